package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"logistics/internal/app"
	"logistics/internal/auth"
	"logistics/internal/environment"
)

// stdin is where `users create --password-stdin` reads the password.
var stdin io.Reader = os.Stdin

func init() {
	commands["users"] = command{"manage console users: users create --email E --role R [--password-stdin]; users reset-password --email E [--password-stdin]", usersCmd}
	commands["tokens"] = command{"manage API keys: tokens create --name N --env production|sandbox --scopes all", tokensCmd}
}

// usersCmd: `users create --email a@b.c --role admin [--password-stdin]`.
// Without --password-stdin a password is generated and printed on stdout.
func usersCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "reset-password" {
		return resetPasswordCmd(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: users create --email E --role owner|admin|member|viewer [--password-stdin] [database flags]\n" +
			"       users reset-password --email E [--password-stdin] [database flags]")
	}
	var email, role string
	return passwordCmd(ctx, "users create", args[1:], getenv, stdout, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "the user's email (required)")
		fs.StringVar(&role, "role", "member", "owner, admin, member or viewer")
	}, "read the password from the first line of stdin (else one is generated and printed)",
		func(a *app.App, password string) error {
			u, err := a.Auth.Store.CreateUser(ctx, email, password, role)
			if err != nil {
				return err
			}
			a.Log.Info("created console user", "id", u.ID, "email", u.Email, "role", u.Role)
			return nil
		})
}

// resetPasswordCmd: `users reset-password --email a@b.c [--password-stdin]`
// sets a new password (generated and printed on stdout unless read from
// stdin) and ends every session of the user.
func resetPasswordCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var email string
	return passwordCmd(ctx, "users reset-password", args, getenv, stdout, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "the user's email (required)")
	}, "read the new password from the first line of stdin (else one is generated and printed)",
		func(a *app.App, password string) error {
			u, err := a.Auth.Store.ResetPassword(ctx, email, password)
			if err != nil {
				return err
			}
			a.Log.Info("reset the password of a console user; their sessions ended", "id", u.ID, "email", u.Email)
			return nil
		})
}

// passwordCmd is a users command that sets a password: its flags, then
// --password-stdin (described by stdinUsage), then set with the password
// read from stdin or generated; a generated one is printed on stdout once
// set.
func passwordCmd(ctx context.Context, name string, args []string, getenv func(string) string, stdout, stderr io.Writer,
	flags func(*flag.FlagSet), stdinUsage string, set func(a *app.App, password string) error) error {
	var fromStdin bool
	a, rest, err := openApp(ctx, name, args, getenv, stderr, func(fs *flag.FlagSet) {
		flags(fs)
		fs.BoolVar(&fromStdin, "password-stdin", false, stdinUsage)
	})
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	defer a.Close()
	if len(rest) > 0 {
		return fmt.Errorf("%s: unexpected arguments %q", name, rest)
	}
	password, err := readPassword(fromStdin)
	if err != nil {
		return err
	}
	if err := set(a, password); err != nil {
		return err
	}
	if !fromStdin {
		fmt.Fprintln(stdout, password)
	}
	return nil
}

// readPassword reads the first line of stdin, or generates a password.
func readPassword(fromStdin bool) (string, error) {
	if !fromStdin {
		return auth.GeneratePassword(), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// tokensCmd: `tokens create --name ci --env production --scopes all`
// prints the new key's secret, and only that, on stdout.
func tokensCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: tokens create --name N --env production|sandbox --scopes all|hubs:read,… [--expires 720h] [database flags]")
	}
	var name, env, scopes string
	var expires time.Duration
	a, rest, err := openApp(ctx, "tokens create", args[1:], getenv, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "what the key is for (required)")
		fs.StringVar(&env, "env", "production", "production or sandbox")
		fs.StringVar(&scopes, "scopes", "", "comma-separated scopes, \"all\" or \"read\" (required)")
		fs.DurationVar(&expires, "expires", 0, "lifetime, e.g. 720h (default: never expires)")
	})
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	defer a.Close()
	if len(rest) > 0 {
		return fmt.Errorf("tokens create: unexpected arguments %q", rest)
	}
	in := auth.TokenInput{Name: name, Environment: environment.Name(env), Scopes: strings.Split(scopes, ",")}
	if expires > 0 {
		t := time.Now().UTC().Add(expires)
		in.ExpiresAt = &t
	}
	secret, tok, err := a.Auth.Store.CreateToken(ctx, in)
	if err != nil {
		return err
	}
	a.Log.Info("created API key", "id", tok.ID, "name", tok.Name, "environment", tok.Environment, "scopes", strings.Join(tok.Scopes, ","))
	fmt.Fprintln(stdout, secret)
	return nil
}
