package schema

import (
	"errors"
	"regexp"
	"time"
)

var (
	codeRE    = regexp.MustCompile(`^[A-Z0-9][A-Z0-9_-]*$`)
	countryRE = regexp.MustCompile(`^[A-Z]{2}$`)
	skuRE     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)
)

func validCode(s string) error {
	if !codeRE.MatchString(s) {
		return errors.New("must be upper-case letters, digits, - or _, e.g. AMS1")
	}
	return nil
}

func validCountry(s string) error {
	if !countryRE.MatchString(s) {
		return errors.New("must be an ISO 3166-1 alpha-2 code such as NL")
	}
	return nil
}

func validSKU(s string) error {
	if !skuRE.MatchString(s) {
		return errors.New("must be letters, digits, '.', '_', '/' or '-', starting with a letter or digit")
	}
	return nil
}

func validTimezone(s string) error {
	if s == "" || s == "Local" {
		return errors.New("must be an IANA time zone such as Europe/Amsterdam")
	}
	if _, err := time.LoadLocation(s); err != nil {
		return errors.New("unknown IANA time zone")
	}
	return nil
}

func optionalCountry(s string) error {
	if s != "" && !countryRE.MatchString(s) {
		return errors.New("must be an ISO 3166-1 alpha-2 code such as NL")
	}
	return nil
}
