package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"logistics/internal/demodata"
	"logistics/internal/environment"
	"logistics/internal/sandboxreset"
)

func init() {
	commands["reset"] = command{"empty the sandbox and load its demo data again, in one transaction: reset --env sandbox --confirm sandbox [--scale 0.05] [--seed 0]", resetCmd}
}

// resetCmd is `go run . reset --env sandbox --confirm sandbox`, with the
// same database flags as serve (--db, --sandbox-db, --data-dir, …). The
// same code as POST /v1/sandbox/reset (internal/sandboxreset), with a
// larger bound on the scale (demodata.MaxScale): a serving process's
// writers to the sandbox wait for the one transaction meanwhile.
// Production is refused, whatever the other flags say.
func resetCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	env, opt := "", sandboxreset.Options{MaxScale: demodata.MaxScale}
	var rest []string
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || (name != "env" && name != "scale" && name != "seed" && name != "confirm") {
			rest = append(rest, args[i])
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return fmt.Errorf("reset: --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		switch name {
		case "env":
			env = val
		case "confirm":
			opt.Confirm = val
		case "scale":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return fmt.Errorf("reset: --scale %q: a number above 0 and at most %d", val, demodata.MaxScale)
			}
			opt.Scale = f
		case "seed":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return fmt.Errorf("reset: --seed %q: a whole number from 0 to %d", val, sandboxreset.MaxSeed)
			}
			opt.Seed = n
		}
	}
	switch env {
	case string(environment.Sandbox):
	case string(environment.Production):
		return errors.New("reset: production cannot be reset: only the sandbox can (--env sandbox)")
	case "":
		return errors.New("reset: give --env sandbox (the only environment a reset empties)")
	default:
		return fmt.Errorf("reset: --env %q: only sandbox", env)
	}
	if opt.Confirm != sandboxreset.Confirm {
		return fmt.Errorf("reset: erases every hub, part, item, order and tracking entry of the sandbox: confirm with --confirm %s", sandboxreset.Confirm)
	}
	// No automatic demo data: the reset loads its own.
	noDemo := func(k string) string {
		if k == "LOGISTICS_NO_DEMO_DATA" {
			return "1"
		}
		return getenv(k)
	}
	a, extra, err := openApp(ctx, "reset", rest, noDemo, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "  -env sandbox\n    \tthe environment to reset: only the sandbox\n  -confirm sandbox\n    \tthe confirmation\n  -scale float\n    \tsize of the demo data: 1 ≈ 50 hubs, 20,000 parts, 200,000 items, 50,000 orders (default 0.05, at most 100)\n  -seed int\n    \tseed of the demo data (default 0: the dataset of every first start)")
			return nil
		}
		return err
	}
	defer a.Close()
	if len(extra) > 0 {
		return fmt.Errorf("reset: unexpected arguments %q", extra)
	}
	e := a.Envs.Get(environment.Sandbox)
	res, err := sandboxreset.Reset(ctx, e, opt)
	if err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	fmt.Fprintf(stdout, "reset %s (%s) at scale %g, seed %d in %s: erased %d hubs, %d parts, %d items, %d orders; loaded %d hubs, %d parts, %d items, %d orders\n",
		e.Name, e.DB.Source, res.Scale, res.Seed, (time.Duration(res.TookMs) * time.Millisecond).String(),
		res.Erased.Hubs, res.Erased.Parts, res.Erased.Items, res.Erased.Orders,
		res.Loaded.Hubs, res.Loaded.Parts, res.Loaded.Items, res.Loaded.Orders)
	return nil
}
