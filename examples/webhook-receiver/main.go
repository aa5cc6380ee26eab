// Command webhook-receiver is an example receiver of the Logistics Service's
// webhooks: it verifies each request's Standard Webhooks signature, ignores
// an event it has already handled (by webhook-id: retries and resends repeat
// it), and prints the event.
//
//	WEBHOOK_SECRET=whsec_… go run ./examples/webhook-receiver --addr 127.0.0.1:9000
//
// Register http://<that address>/webhooks as an endpoint (the service refuses
// private addresses unless it runs with --webhook-allow-private).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"logistics/standardwebhooks"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "address to listen on")
	flag.Parse()
	secret := os.Getenv("WEBHOOK_SECRET")
	if secret == "" {
		log.Fatal("set WEBHOOK_SECRET to the endpoint's signing secret (whsec_…)")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log.Printf("listening on http://%s/webhooks", ln.Addr())
	if err := serve(ctx, ln, newReceiver(secret, os.Stdout)); err != nil {
		log.Fatal(err)
	}
}

func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// receiver handles POST /webhooks.
type receiver struct {
	secret string
	out    io.Writer

	mu   sync.Mutex
	seen map[string]bool // webhook-ids handled (a real receiver keeps them in its database)
}

func newReceiver(secret string, out io.Writer) *receiver {
	return &receiver{secret: secret, out: out, seen: map[string]bool{}}
}

// event is the part of the body this example uses.
type event struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	Sequence  int64          `json:"sequence"` // 0 for webhook.test, which is not in the event log
	CreatedAt string         `json:"created_at"`
	SubjectID string         `json:"subject_id"`
	Data      map[string]any `json:"data"`
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/webhooks" {
		http.NotFound(w, r)
		return
	}
	// Verify the raw bytes: decoding and re-encoding JSON would change them.
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	if err := standardwebhooks.Verify(rc.secret, r.Header, body, time.Now(), 5*time.Minute); err != nil {
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get(standardwebhooks.HeaderID)
	rc.mu.Lock()
	dup := rc.seen[id]
	rc.seen[id] = true
	rc.mu.Unlock()
	if dup {
		w.WriteHeader(http.StatusNoContent) // handled before: answer 2xx so it is not retried
		return
	}
	var ev event
	if err := json.Unmarshal(body, &ev); err != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	fmt.Fprintf(rc.out, "%s %s %s\n", ev.Type, ev.SubjectID, id)
	w.WriteHeader(http.StatusNoContent)
}
