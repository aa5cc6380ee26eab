package app

import (
	"testing"

	"logistics/internal/database"
)

func TestReadPreference(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   database.ReadPreference
	}{
		{nil, database.ReadDefault},
		{[]string{"read=replica"}, database.ReadReplica},
		{[]string{"READ = \"Primary\""}, database.ReadPrimary},
		{[]string{"respond-async, read=replica; strict"}, database.ReadReplica},
		{[]string{"count=exact"}, database.ReadDefault},
		{[]string{"read=nearest"}, database.ReadDefault},                 // unknown: ignored (RFC 7240)
		{[]string{"read=replica", "read=primary"}, database.ReadPrimary}, // the last wins
		{[]string{"reader=replica"}, database.ReadDefault},
	} {
		if got := readPreference(tc.values); got != tc.want {
			t.Errorf("readPreference(%q) = %v, want %v", tc.values, got, tc.want)
		}
	}
}
