package documents

import "fmt"

// Mode is what an environment does with an operation that is not trusted,
// for one kind of credential.
type Mode string

// The modes. Off is the default: every document runs, as before trusted
// documents existed.
const (
	Off     Mode = "off"     // run it
	Report  Mode = "report"  // run it, count it and log it with its client
	Enforce Mode = "enforce" // refuse it (TRUSTED_DOCUMENT_REQUIRED)
)

// ParseMode reads a mode flag.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Off, Report, Enforce:
		return m, nil
	case "":
		return Off, nil
	}
	return "", fmt.Errorf("%q is not a trusted-documents mode (off, report or enforce)", s)
}

// Policy is one environment's enforcement: console and SPA sessions
// (cookies) apart from API keys, so that an SPA's sessions can be locked
// down while integrations keep sending their own documents.
type Policy struct {
	Sessions Mode
	Keys     Mode
}

// AdhocScope lets its holder send any document whatever the mode.
const AdhocScope = "graphql:adhoc"
