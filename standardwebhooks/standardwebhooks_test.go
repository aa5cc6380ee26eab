package standardwebhooks

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// The specification's published example (its reference libraries' tests):
// secret, message id, timestamp and body, and the signature they must give.
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specTimestamp = 1614265330
	specBody      = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignMatchesSpecificationExample(t *testing.T) {
	got, err := Sign(specSecret, specID, time.Unix(specTimestamp, 0), []byte(specBody))
	if err != nil {
		t.Fatal(err)
	}
	if got != specSignature {
		t.Fatalf("Sign = %s, want %s", got, specSignature)
	}
	// The secret without its prefix is the same key.
	if got2, _ := Sign(specSecret[len(SecretPrefix):], specID, time.Unix(specTimestamp, 0), []byte(specBody)); got2 != specSignature {
		t.Fatalf("Sign without prefix = %s", got2)
	}
}

func header(id string, ts int64, sig string) http.Header {
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderSignature, sig)
	return h
}

func TestVerify(t *testing.T) {
	at := time.Unix(specTimestamp, 0)
	other := NewSecret()
	otherSig, _ := Sign(other, specID, at, []byte(specBody))
	for _, tc := range []struct {
		name string
		h    http.Header
		body string
		now  time.Time
		want error
	}{
		{"spec example", header(specID, specTimestamp, specSignature), specBody, at, nil},
		{"rotation: old and new signatures", header(specID, specTimestamp, otherSig+" "+specSignature), specBody, at, nil},
		{"unknown versions skipped", header(specID, specTimestamp, "v1a,AAAA v2,xyz "+specSignature), specBody, at, nil},
		{"body changed", header(specID, specTimestamp, specSignature), `{"test": 2432232315}`, at, ErrSignature},
		{"id changed", header("msg_other", specTimestamp, specSignature), specBody, at, ErrSignature},
		{"other secret only", header(specID, specTimestamp, otherSig), specBody, at, ErrSignature},
		{"too old", header(specID, specTimestamp, specSignature), specBody, at.Add(6 * time.Minute), ErrTimestamp},
		{"from the future", header(specID, specTimestamp, specSignature), specBody, at.Add(-6 * time.Minute), ErrTimestamp},
		{"missing signature", header(specID, specTimestamp, ""), specBody, at, ErrMissingHeaders},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(specSecret, tc.h, []byte(tc.body), tc.now, 5*time.Minute)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if a == b || len(a) != len(SecretPrefix)+44 || a[:len(SecretPrefix)] != SecretPrefix {
		t.Fatalf("NewSecret: %q %q", a, b)
	}
	if _, err := key(a); err != nil {
		t.Fatal(err)
	}
}
