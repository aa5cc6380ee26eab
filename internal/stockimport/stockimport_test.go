package stockimport

import (
	"errors"
	"io"
	"strings"
	"testing"

	"logistics/internal/decimal"
)

func TestHeader(t *testing.T) {
	for _, tc := range []struct {
		head string
		want string // "" = fine, else a substring of the error
	}{
		{"sku,hub,quantity", ""},
		{"\uFEFFSKU, Hub ,Quantity,lot,serial,status,expires_at", ""},
		{"quantity,hub,sku", ""},
		{"sku,hub", `required column "quantity"`},
		{"sku,hub,quantity,colour", `unknown column "colour"`},
		{"sku,hub,quantity,sku", `"sku" appears twice`},
		{"", "empty"},
	} {
		_, err := NewReader(strings.NewReader(tc.head))
		var he *HeaderError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.head, err)
		case tc.want != "" && (!errors.As(err, &he) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %s", tc.head, err, tc.want)
		}
	}
}

func TestRows(t *testing.T) {
	in := "sku,hub,quantity,status,expires_at,lot\n" +
		"A-1,ams1,0.1,,2027-01-02,L1\n" + // 2 ok
		"A-1,AMS1,1.2345,,,\n" + // 3 quantity
		"A-1,AMS1,-2,,,\n" + // 4 negative
		",,,broken,tomorrow,\n" + // 5 five problems
		"A-1,AMS1,3,Quarantined,2027-01-02T03:04:05+02:00\n" + // 6 ok, short row
		"\"A-1,AMS1,3\n" // 7 malformed quote
	rd, err := NewReader(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	bad := map[int][]string{}
	for {
		r, errs, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range errs {
			bad[e.Row] = append(bad[e.Row], e.Column)
		}
		if errs == nil {
			rows = append(rows, r)
		}
	}
	if len(rows) != 2 || rows[0].Row != 2 || rows[0].Hub != "AMS1" || rows[0].Quantity != decimal.MustParse("0.1") || rows[0].Status != "available" || rows[0].ExpiresAt == nil || rows[0].Lot != "L1" {
		t.Errorf("row 2: %+v", rows[0])
	}
	if rows[1].Row != 6 || rows[1].Status != "quarantined" || rows[1].ExpiresAt.Hour() != 1 {
		t.Errorf("row 6: %+v", rows[1])
	}
	want := map[int]int{3: 1, 4: 1, 5: 5, 7: 1}
	for row, n := range want {
		if len(bad[row]) != n {
			t.Errorf("row %d: errors on %v, want %d", row, bad[row], n)
		}
	}
	if len(bad) != len(want) {
		t.Errorf("bad rows %v", bad)
	}
}
