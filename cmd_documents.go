package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"logistics/internal/app"
	"logistics/internal/documents"
	"logistics/internal/environment"
)

func init() {
	commands["documents"] = command{"manage trusted GraphQL documents: documents register --env E --client NAME --version V FILE; documents list --env E; documents retire --env E HASH", documentsCmd}
}

const documentsUsage = "usage: documents register --env production|sandbox --client NAME [--version V] FILE  (a graphql-codegen, Relay or Apollo manifest; - for stdin)\n" +
	"       documents list --env production|sandbox [--client NAME] [--retired]\n" +
	"       documents retire --env production|sandbox HASH\n" +
	"       [database flags]"

// documentsCmd registers, lists and retires an environment's trusted
// documents, with the same code as REST and GraphQL (internal/documents),
// on the environment's database directly. A running server sees a
// registration at its next look-up of the hash, a retirement within its
// --trusted-documents-cache-ttl.
func documentsCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(documentsUsage)
	}
	var env, clientName, version string
	var retired bool
	sub := args[0]
	flags := func(fs *flag.FlagSet) {
		fs.StringVar(&env, "env", "production", "production or sandbox")
		switch sub {
		case "register":
			fs.StringVar(&clientName, "client", "", "the app the manifest belongs to (required)")
			fs.StringVar(&version, "version", "", "the app's version")
		case "list":
			fs.StringVar(&clientName, "client", "", "only this app's documents")
			fs.BoolVar(&retired, "retired", false, "retired documents too")
		}
	}
	switch sub {
	case "register", "list", "retire":
	default:
		return errors.New(documentsUsage)
	}
	a, rest, err := openApp(ctx, "documents "+sub, args[1:], getenv, stderr, flags)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	defer a.Close()
	ctx, err = envContext(ctx, a, env)
	if err != nil {
		return err
	}
	store := documents.NewStore(-1)
	switch sub {
	case "register":
		if len(rest) != 1 || clientName == "" {
			return errors.New(documentsUsage)
		}
		b, err := readManifest(rest[0])
		if err != nil {
			return err
		}
		docs, err := documents.ParseManifest(b)
		if err != nil {
			return err
		}
		res, err := store.Register(ctx, documents.Client{Name: clientName, Version: version}, docs)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d created, %d reactivated, %d unchanged\n", res.Created, res.Reactivated, res.Unchanged)
	case "list":
		if len(rest) != 0 {
			return errors.New(documentsUsage)
		}
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "HASH\tOPERATION\tCLIENT\tVERSION\tSTATE")
		o := documents.ListOptions{Limit: documents.MaxListLimit, Client: clientName, Retired: retired}
		for {
			p, err := store.List(ctx, o)
			if err != nil {
				return err
			}
			for _, d := range p.Documents {
				state := "trusted"
				if d.RetiredAt != nil {
					state = "retired " + d.RetiredAt.UTC().Format("2006-01-02T15:04:05Z")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Hash, d.OperationName, d.ClientName, d.ClientVersion, state)
			}
			if p.Next == "" {
				break
			}
			o.Cursor = p.Next
		}
		return tw.Flush()
	case "retire":
		if len(rest) != 1 {
			return errors.New(documentsUsage)
		}
		d, err := store.Retire(ctx, rest[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "retired %s (%s)\n", d.Hash, d.OperationName)
	}
	return nil
}

// envContext is ctx as a request to the named environment has it.
func envContext(ctx context.Context, a *app.App, name string) (context.Context, error) {
	e := a.Envs.Get(environment.Name(name))
	if e == nil || (name != string(environment.Production) && name != string(environment.Sandbox)) {
		return nil, fmt.Errorf("--env %q: production or sandbox", name)
	}
	return environment.NewContext(ctx, e), nil
}

func readManifest(path string) ([]byte, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, documents.MaxManifestBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > documents.MaxManifestBytes {
		return nil, fmt.Errorf("%s: the manifest is larger than %d bytes", path, documents.MaxManifestBytes)
	}
	return b, nil
}
