// Package resourceid defines the opaque, type-prefixed identifiers shared by every
// interface: "hub_01J…", "ord_01J…". The prefix names the resource; the rest is
// a ULID, so ids sort by creation time and Relay cursors ordered by id are
// stable under concurrent inserts.
package resourceid

import (
	"crypto/rand"
	"database/sql/driver"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// ID is a prefixed identifier such as "hub_01JD3K…".
type ID string

// Prefixes of every resource, in one place.
const (
	Hub           = "hub"
	Part          = "prt"
	Item          = "itm"
	Order         = "ord"
	OrderLine     = "oln"
	TrackingEntry = "trk"
	Workflow      = "wfl"
	OrderEvent    = "oev"
	Event         = "evt"
	User          = "usr"
	APIToken      = "tok"
	Session       = "ses"
	Idempotency   = "idk"
	Reservation   = "rsv"
	Webhook       = "whe" // a webhook endpoint
	Delivery      = "whd" // a webhook delivery
	Document      = "tdc" // a trusted GraphQL document
	Clock         = "clk" // the sandbox's test clock
	SimScan       = "sim" // a simulated carrier's scheduled tracking entry
)

// New returns a fresh id with the given prefix. The random part comes from
// crypto/rand. Within one process ids increase strictly: the first id of a
// millisecond takes 80 random bits, the next ones of that millisecond the
// one before plus a random step of 1 to 2³² (oklog/ulid's monotonic
// entropy), so what one process makes within a millisecond — an order's
// transitions, an allocation's reservations — lists in the order it was
// made wherever ids order a list. Across processes ids order by
// millisecond only.
func New(prefix string) ID {
	now := ulid.Timestamp(time.Now())
	monoMu.Lock()
	u, err := ulid.New(now, mono)
	monoMu.Unlock()
	if err != nil { // the millisecond's random part overflowed: start afresh
		u = ulid.MustNew(now, rand.Reader)
	}
	return ID(prefix + "_" + u.String())
}

var (
	monoMu sync.Mutex
	mono   = ulid.Monotonic(rand.Reader, 0)
)

// Prefix returns the part before the first underscore ("" when there is none).
func (id ID) Prefix() string {
	p, _, ok := strings.Cut(string(id), "_")
	if !ok {
		return ""
	}
	return p
}

// Parse checks that s is a well-formed id with the wanted prefix.
func Parse(s, prefix string) (ID, error) {
	id := ID(s)
	if id.Prefix() != prefix {
		return "", fmt.Errorf("%q is not a %s_… id", s, prefix)
	}
	if _, err := ulid.ParseStrict(s[len(prefix)+1:]); err != nil {
		return "", fmt.Errorf("%q is not a well-formed id", s)
	}
	return id, nil
}

// Valid reports whether id is a well-formed id of any known shape.
func (id ID) Valid() bool {
	p := id.Prefix()
	if p == "" {
		return false
	}
	_, err := Parse(string(id), p)
	return err == nil
}

// Scan implements sql.Scanner.
func (id *ID) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		*id = ID(v)
	case []byte:
		*id = ID(string(v))
	case ID:
		*id = v
	default:
		return fmt.Errorf("ids: cannot scan %T", src)
	}
	return nil
}

// Value implements driver.Valuer.
func (id ID) Value() (driver.Value, error) { return string(id), nil }

// UnmarshalGQL implements graphql.Unmarshaler. It accepts the ID type itself
// too, which gqlgen passes when an id is re-used inside a query.
func (id *ID) UnmarshalGQL(v any) error {
	switch s := v.(type) {
	case string:
		*id = ID(s)
	case ID:
		*id = s
	default:
		return fmt.Errorf("an id must be a string, not %T", v)
	}
	return nil
}

// MarshalGQL implements graphql.Marshaler.
func (id ID) MarshalGQL(w io.Writer) {
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			_, _ = io.WriteString(w, strconv.Quote(string(id)))
			return
		}
	}
	// The common case, prefix + ULID: nothing to escape, and no string built
	// (the writers are buffers).
	_, _ = io.WriteString(w, `"`)
	_, _ = io.WriteString(w, string(id))
	_, _ = io.WriteString(w, `"`)
}
