package filter

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"logistics/ent"
	"logistics/internal/apperr"
)

func whereJSON(t *testing.T, tab *Table, raw string) (string, []string, error) {
	t.Helper()
	conds, ignored, err := tab.Parse(raw)
	if err != nil {
		return "", ignored, err
	}
	b, err := json.Marshal(Where(conds))
	if err != nil {
		t.Fatal(err)
	}
	return string(b), ignored, nil
}

func TestParse(t *testing.T) {
	const hub = `{"hasHubWith":[{"code":"AMS1"}]}`
	for _, tc := range []struct {
		name    string
		tab     *Table
		raw     string
		want    string // JSON of the where input
		ignored string
	}{
		{"seed exact", OrderTable, "status=open", `{"status":"open"}`, ""},
		{"seed substring", PartTable, "part_name=*bolt*", `{"partNameContainsFold":"bolt"}`, ""},
		{"seed gte raw", ItemTable, "quantity>=10", `{"quantityGTE":10}`, ""},
		{"seed gte encoded op", ItemTable, "quantity%3E=10", `{"quantityGTE":10}`, ""},
		{"seed gte fully encoded", ItemTable, "quantity%3E%3D10", `{"quantityGTE":10}`, ""},
		{"seed IN", ItemTable, "hub[]=AMS1&hub[]=RTM2", `{"hasHubWith":[{"codeIn":["AMS1","RTM2"]}]}`, ""},
		{"seed IN encoded", OrderTable, "hub%5B%5D=AMS1&hub%5B%5D=RTM2", `{"hasHubWith":[{"codeIn":["AMS1","RTM2"]}]}`, ""},
		{"gt without =", ItemTable, "quantity>10.5", `{"quantityGT":10.5}`, ""},
		{"lt", ItemTable, "quantity<1", `{"quantityLT":1}`, ""},
		{"lte", ItemTable, "quantity<=0.125", `{"quantityLTE":0.125}`, ""},
		{"ne", OrderTable, "status!=open", `{"statusNEQ":"open"}`, ""},
		{"not in", ItemTable, "status[]!=damaged&status[]!=quarantined", `{"statusNotIn":["damaged","quarantined"]}`, ""},
		{"hub eq", ItemTable, "hub=AMS1", hub, ""},
		{"hub ne", TrackingEntryTable, "hub!=AMS1", `{"not":` + hub + `}`, ""},
		{"hub not in", TrackingEntryTable, "hub[]!=AMS1", `{"not":{"hasHubWith":[{"codeIn":["AMS1"]}]}}`, ""},
		{"hub substring", ItemTable, "hub=*ams*", `{"hasHubWith":[{"codeContainsFold":"ams"}]}`, ""},
		{"not substring", PartTable, "part_name!=*bolt*", `{"not":{"partNameContainsFold":"bolt"}}`, ""},
		{"single star is literal", PartTable, "part_name=*", `{"partName":"*"}`, ""},
		{"and", ItemTable, "quantity>1&quantity<5", `{"and":[{"quantityGT":1},{"quantityLT":5}]}`, ""},
		{"unknown ignored", ItemTable, "colour=red&quantity>=1&size>3", `{"quantityGTE":1}`, "colour,size"},
		{"reserved skipped", ItemTable, "limit=5&cursor=abc&sort=-quantity", `{}`, ""},
		{"empty", ItemTable, "", `{}`, ""},
		{"value with =", PartTable, "sku=a%3Db", `{"sku":"a=b"}`, ""},
		{"value with & encoded", PartTable, "part_name=a%26b", `{"partName":"a\u0026b"}`, ""},
		{"plus is space", PartTable, "part_name=hex+bolt", `{"partName":"hex bolt"}`, ""},
		{"time", OrderTable, "due_at<2025-01-02T03:04:05Z", `{"dueAtLT":"2025-01-02T03:04:05Z"}`, ""},
		{"time offset plus decoded as space", OrderTable, "due_at>=2025-01-02T03:04:05+02:00", `{"dueAtGTE":"2025-01-02T01:04:05Z"}`, ""},
		{"time offset encoded", OrderTable, "due_at>=2025-01-02T03:04:05%2B02:00", `{"dueAtGTE":"2025-01-02T01:04:05Z"}`, ""},
		{"bool", PartTable, "hazardous=true", `{"hazardous":true}`, ""},
		{"bool ne", HubTable, "active!=false", `{"activeNEQ":false}`, ""},
		{"float", HubTable, "latitude>52.1", `{"latitudeGT":52.1}`, ""},
		{"int", WorkflowTable, "version>=2", `{"versionGTE":2}`, ""},
		{"id", ItemTable, "part_id=prt_01JD3K0000000000000000000A", `{"partID":"prt_01JD3K0000000000000000000A"}`, ""},
		{"edge sku", ItemTable, "sku[]=A&sku[]=B", `{"hasPartWith":[{"skuIn":["A","B"]}]}`, ""},
		{"event subject", EventTable, "subject_id=hub_x&type=hub.created", `{"and":[{"subjectID":"hub_x"},{"type":"hub.created"}]}`, ""},
		{"in and not in", ItemTable, "status[]=available&status[]!=damaged", `{"and":[{"statusIn":["available"]},{"statusNotIn":["damaged"]}]}`, ""},
		{"no value is ignored when unknown", ItemTable, "foo", `{}`, "foo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ignored, err := whereJSON(t, tc.tab, tc.raw)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.raw, err)
			}
			if got != tc.want {
				t.Errorf("Parse(%q) = %s, want %s", tc.raw, got, tc.want)
			}
			if strings.Join(ignored, ",") != tc.ignored {
				t.Errorf("ignored = %q, want %q", ignored, tc.ignored)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, raw, field, msg string
		tab                   *Table
	}{
		{"decimal", "quantity>abc", "quantity", "decimal", ItemTable},
		{"too many decimals", "quantity>1.0001", "quantity", "decimal", ItemTable},
		{"time", "due_at<yesterday", "due_at", "RFC 3339", OrderTable},
		{"enum", "status=lost", "status", "available", ItemTable},
		{"bool", "hazardous=maybe", "hazardous", "true or false", PartTable},
		{"int", "version=1.5", "version", "integer", WorkflowTable},
		{"id prefix", "part_id=hub_01JD3K0000000000000000000A", "part_id", "prt_", ItemTable},
		{"substring on decimal", "quantity=*1*", "quantity", "decimal", ItemTable},
		{"comparison on enum", "status>available", "status", "operator", ItemTable},
		{"comparison on bool", "hazardous<true", "hazardous", "operator", PartTable},
		{"array comparison", "quantity[]>1", "quantity", "operator", ItemTable},
		{"bang without =", "status!open", "status", "operator", OrderTable},
		{"no operator", "quantity", "quantity", "operator", ItemTable},
		{"NUL", "lot=a%00b", "lot", "UTF-8", ItemTable},
		{"invalid UTF-8", "lot=%ff", "lot", "UTF-8", ItemTable},
		{"invalid UTF-8 substring", "lot=*%ff*", "lot", "UTF-8", ItemTable},
		{"too many values", "lot[]=a" + strings.Repeat("&lot[]=a", MaxValues), "lot", "at most", ItemTable},
		{"too many conditions", "lot=a" + strings.Repeat("&lot=a", MaxConditions), "lot", "at most", ItemTable},
		{"long substring", "part_name=*" + strings.Repeat("x", 50_001) + "*", "part_name", "at most 1000 characters", PartTable},
		{"long value", "sku=" + strings.Repeat("x", MaxValueLength+1), "sku", "at most 1000 characters", PartTable},
		{"long IN value", "sku[]=a&sku[]=" + strings.Repeat("x", MaxValueLength+1), "sku", "at most 1000 characters", PartTable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.tab.Parse(tc.raw)
			var ae *apperr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("Parse(%q) err = %v, want an apperr", tc.raw, err)
			}
			if ae.Kind != apperr.KindBadRequest || len(ae.Fields) != 1 || ae.Fields[0].Field != tc.field || !strings.Contains(ae.Message, tc.msg) {
				t.Errorf("Parse(%q) = %+v, want 400 on %s mentioning %q", tc.raw, ae, tc.field, tc.msg)
			}
		})
	}
	// MaxValueLength counts characters, not bytes.
	if _, _, err := PartTable.Parse("part_name=*" + strings.Repeat("é", MaxValueLength) + "*"); err != nil {
		t.Errorf("%d two-byte characters refused: %v", MaxValueLength, err)
	}
	if _, _, err := ItemTable.Parse("quantity=%zz"); err == nil {
		t.Error("bad percent-encoding accepted")
	}
}

func TestRawAndEncodedAgree(t *testing.T) {
	for _, raw := range []string{"quantity>=10", "status!=available", "hub[]=AMS1&hub[]=RTM2", "quantity<=3&lot=*a*", "hub[]!=X"} {
		enc := ""
		for i, seg := range strings.Split(raw, "&") {
			if i > 0 {
				enc += "&"
			}
			enc += url.QueryEscape(seg)
		}
		a, _, errA := whereJSON(t, ItemTable, raw)
		b, _, errB := whereJSON(t, ItemTable, enc)
		if errA != nil || errB != nil || a != b {
			t.Errorf("%q → %s (%v) but %q → %s (%v)", raw, a, errA, enc, b, errB)
		}
	}
}

func TestBuildTyped(t *testing.T) {
	w, ignored, err := Items("quantity>=10&hub[]=AMS1&hub[]=RTM2&colour=red")
	if err != nil {
		t.Fatal(err)
	}
	if len(ignored) != 1 || ignored[0] != "colour" {
		t.Errorf("ignored = %v", ignored)
	}
	if len(w.And) != 2 || w.And[0].QuantityGTE == nil || *w.And[0].QuantityGTE != 10000 {
		t.Fatalf("where = %+v", w)
	}
	if len(w.And[1].HasHubWith) != 1 || len(w.And[1].HasHubWith[0].CodeIn) != 2 {
		t.Fatalf("hub = %+v", w.And[1])
	}
	if _, err := w.P(); err != nil {
		t.Fatalf("P(): %v", err)
	}
	var _ *ent.ItemWhereInput = w
}

func TestSort(t *testing.T) {
	keys, err := ItemTable.ParseSort("-quantity,status,id")
	if err != nil || len(keys) != 2 || keys[0] != (SortKey{"QUANTITY", true, Decimal, false}) || keys[1] != (SortKey{"STATUS", false, Enum, false}) {
		t.Fatalf("ParseSort = %v, %v", keys, err)
	}
	if keys, err := ItemTable.ParseSort("-expires_at,quantity"); err != nil || len(keys) != 2 || keys[0] != (SortKey{"EXPIRES_AT", true, Time, true}) {
		t.Fatalf("ParseSort(-expires_at,quantity) = %v, %v", keys, err)
	}
	for _, bad := range []string{"lot", "colour", "quantity,quantity", "-id", ",", "quantity,expires_at"} {
		if _, err := ItemTable.ParseSort(bad); err == nil {
			t.Errorf("ParseSort(%q) accepted", bad)
		}
	}
}

// Every field of every table must produce a where input that ent accepts.
func TestEveryFieldBuilds(t *testing.T) {
	sample := map[Type]string{String: "x", Decimal: "1.5", Int: "2", Float: "1.5", Time: "2025-01-01T00:00:00Z", Bool: "true"}
	for _, tab := range Tables {
		for _, f := range tab.Fields {
			v := sample[f.Type]
			switch f.Type {
			case Enum:
				v = f.Values[0]
			case ID:
				v = f.Prefix + "_01JD3K0000000000000000000A"
			}
			for _, op := range f.Type.Operators() {
				raw := f.Name + string(op) + v
				if op == Contains {
					raw = f.Name + "=*" + v + "*"
				}
				if _, _, err := build(tab, raw); err != nil {
					t.Errorf("%s: %q: %v", tab.Resource, raw, err)
				}
			}
		}
	}
}

func build(tab *Table, raw string) (any, []string, error) {
	switch tab {
	case HubTable:
		return runP(Hubs(raw))
	case PartTable:
		return runP(Parts(raw))
	case ItemTable:
		return runP(Items(raw))
	case OrderTable:
		return runP(Orders(raw))
	case OrderLineTable:
		return runP(OrderLines(raw))
	case TrackingEntryTable:
		return runP(TrackingEntries(raw))
	case WorkflowTable:
		return runP(Workflows(raw))
	case OrderEventTable:
		return runP(OrderEvents(raw))
	case EventTable:
		return runP(Events(raw))
	}
	return nil, nil, errors.New("unknown table")
}

type pe[P any] interface{ P() (P, error) }

func runP[P any, W pe[P]](w W, ignored []string, err error) (any, []string, error) {
	if err != nil {
		return nil, ignored, err
	}
	_, err = w.P()
	if err != nil && strings.Contains(err.Error(), "empty predicate") {
		err = nil
	}
	return w, ignored, err
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"quantity>=10", "status=open&hub[]=AMS1&hub[]=RTM2", "part_name=*bolt*", "hub[]!=X", "a=%zz",
		"due_at<2025-01-01T00:00:00Z", "quantity[]>1", "=&&=", "[]=", "*=**", "hub=**", "%", "quantity=1e400",
		"limit=0;x", "sort=code;x&sort=a", "name=*" + strings.Repeat("x", MaxValueLength) + "é*", "cursor=%ff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, tab := range Tables {
			_, _, err := build(tab, raw)
			var ae *apperr.Error
			if err != nil && (!errors.As(err, &ae) || ae.Kind == apperr.KindInternal) {
				t.Fatalf("%s %q: %v", tab.Resource, raw, err)
			}
		}
		if _, err := Params(raw); err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Kind != apperr.KindBadRequest {
				t.Fatalf("Params(%q): %v", raw, err)
			}
		}
	})
}

func TestParams(t *testing.T) {
	for _, tc := range []struct {
		raw, field string // field "" when valid
		want       map[string]string
	}{
		{"limit=5&sort=-code&cursor=abc&name=x", "", map[string]string{"limit": "5", "sort": "-code", "cursor": "abc"}},
		{"limit=0;x", "", map[string]string{"limit": "0;x"}}, // kept whole: readPage refuses it
		{"sort=code;x", "", map[string]string{"sort": "code;x"}},
		{"sort%3D-code", "", map[string]string{"sort": "-code"}},
		{"limit=5&limit=6", "limit", nil},
		{"cursor=" + strings.Repeat("a", MaxParamLength+1), "cursor", nil},
		{"sort=%ff", "sort", nil},
	} {
		got, err := Params(tc.raw)
		if tc.field != "" {
			var ae *apperr.Error
			if !errors.As(err, &ae) || len(ae.Fields) != 1 || ae.Fields[0].Field != tc.field {
				t.Errorf("Params(%.40q) = %v, %v; want a 400 on %s", tc.raw, got, err, tc.field)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("Params(%q) = %v, %v; want %v", tc.raw, got, err, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("Params(%q)[%s] = %q, want %q", tc.raw, k, got[k], v)
			}
		}
	}
}
