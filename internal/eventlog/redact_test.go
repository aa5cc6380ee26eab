package eventlog

import "testing"

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://hooks.example/in":                       "https://hooks.example/in",
		"https://hooks.example/in?token=abc&tenant=acme": "https://hooks.example/in?token=REDACTED&tenant=REDACTED",
		"https://hooks.example/in?token":                 "https://hooks.example/in?token=REDACTED",
		"https://hooks.example/in?":                      "https://hooks.example/in",
		"https://u:p@hooks.example:8443/a/b?k=v#frag":    "https://hooks.example:8443/a/b?k=REDACTED",
		"https://hooks.example/in?a=1&&b=%20x":           "https://hooks.example/in?a=REDACTED&b=REDACTED",
		"https://hooks.example/in?token=REDACTED":        "https://hooks.example/in?token=REDACTED",
		"http://[::1]:9/x?secret=s":                      "http://[::1]:9/x?secret=REDACTED",
		"://not a url":                                   "",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
