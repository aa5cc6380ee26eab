package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusesForeignKeysOff: the service leaves references to the
// foreign keys, so a DSN that turns them off does not open.
func TestRefusesForeignKeysOff(t *testing.T) {
	for _, opt := range []string{"_fk=0", "_foreign_keys=0&_fk=0"} {
		dsn := "file:" + filepath.Join(t.TempDir(), "x.db") + "?" + opt
		db, err := Open(context.Background(), dsn, Config{})
		if err == nil {
			db.Close()
			t.Fatalf("%s: opened", opt)
		}
		if !strings.Contains(err.Error(), "foreign keys must be on") {
			t.Fatalf("%s: %v", opt, err)
		}
	}
}
