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
)

func init() {
	commands["seed"] = command{"fill an empty environment with deterministic demo data (--env sandbox --scale 1)", seed}
}

// seed loads the demo dataset: `go run . seed --env sandbox --scale 1`, with
// the same database flags as serve (--db, --sandbox-db, --data-dir, …).
func seed(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	env, scale := "sandbox", 1.0
	var rest []string
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || (name != "env" && name != "scale") {
			rest = append(rest, args[i])
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return fmt.Errorf("seed: --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if name == "env" {
			env = val
		} else {
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || f <= 0 || f > demodata.MaxScale {
				return fmt.Errorf("seed: --scale %q: a number above 0 and at most %d", val, demodata.MaxScale)
			}
			scale = f
		}
	}
	if env != string(environment.Sandbox) && env != string(environment.Production) {
		return fmt.Errorf("seed: --env %q: sandbox or production", env)
	}
	// The automatic sandbox demo data would fill the database first.
	noDemo := func(k string) string {
		if k == "LOGISTICS_NO_DEMO_DATA" {
			return "1"
		}
		return getenv(k)
	}
	a, extra, err := openApp(ctx, "seed", rest, noDemo, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "  -env string\n    \tenvironment to fill: sandbox or production (default sandbox)\n  -scale float\n    \tsize: 1 ≈ 50 hubs, 20,000 parts, 200,000 items, 50,000 orders (default 1)")
			return nil
		}
		return err
	}
	defer a.Close()
	if len(extra) > 0 {
		return fmt.Errorf("seed: unexpected arguments %q", extra)
	}
	e := a.Envs.Get(environment.Name(env))
	start := time.Now()
	c, err := demodata.Load(ctx, e.DB, scale)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "seeded %s (%s) at scale %g in %s: %d hubs, %d parts, %d items, %d orders, %d order lines, %d tracking entries, %d order events, %d reservations\n",
		env, e.DB.Source, scale, time.Since(start).Round(time.Millisecond), c.Hubs, c.Parts, c.Items, c.Orders, c.OrderLines, c.TrackingEntries, c.OrderEvents, c.Reservations)
	return nil
}
