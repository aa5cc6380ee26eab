package postgres

import "testing"

func TestParseLSN(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want LSN
		ok   bool
	}{
		{"0/0", 0, true},
		{"0/16B3748", 0x16B3748, true},
		{"16/B374D848", 0x16_B374D848, true},
		{"ffffffff/FFFFFFFF", 1<<64 - 1, true},
		{"", 0, false},
		{"0/", 0, false},
		{"/1", 0, false},
		{"0x1/2", 0, false},
		{"1/2/3", 0, false},
		{"100000000/0", 0, false},
		{"-1/0", 0, false},
		{"1 /0", 0, false},
	} {
		got, err := ParseLSN(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseLSN(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok {
			if back, _ := ParseLSN(got.String()); back != got {
				t.Errorf("%q: String %q does not read back", tc.in, got.String())
			}
		}
	}
}
