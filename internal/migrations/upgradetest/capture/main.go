// Command capture writes the golden of an upgrade fixture: every row of an
// environment read through a running server's REST API
// (scripts/migration-fixtures.sh runs it against the release that built
// the fixture).
//
//	go run ./internal/migrations/upgradetest/capture -url http://127.0.0.1:8080/sandbox -token lsk_test_… > golden.json
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"

	"logistics/internal/migrations/upgradetest"
)

func main() {
	url := flag.String("url", "", "the environment's base URL")
	token := flag.String("token", "", "an API key of the environment with every read scope")
	flag.Parse()
	c, err := upgradetest.Capture(http.DefaultClient, *url, *token)
	if err == nil {
		err = upgradetest.Write(os.Stdout, c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "capture:", err)
		os.Exit(1)
	}
}
