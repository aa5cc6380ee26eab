package migrations

import (
	"embed"
	"fmt"
	"io/fs"
	"path"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
)

// files are the migration files of every dialect, in the binary.
//
//go:embed sqlite postgres
var files embed.FS

// Folder is the directory of dia's files, in this package and in files.
func Folder(dia string) (string, error) {
	switch dia {
	case dialect.SQLite:
		return "sqlite", nil
	case dialect.Postgres:
		return "postgres", nil
	}
	return "", fmt.Errorf("migrations: no migration files for dialect %q", dia)
}

// Dir is the embedded migration directory of dia, as Atlas reads one, in
// memory: writing to it changes nothing on disk.
func Dir(dia string) (migrate.Dir, error) {
	name, err := Folder(dia)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(files, name)
	if err != nil {
		return nil, err
	}
	d := &migrate.MemDir{}
	for _, e := range entries {
		b, err := files.ReadFile(path.Join(name, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := d.WriteFile(e.Name(), b); err != nil {
			return nil, err
		}
	}
	return d, nil
}
