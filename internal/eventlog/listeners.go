package eventlog

import (
	"context"
	"sync"

	"logistics/ent"
	"logistics/internal/resourceid"
)

// Inserted is an event a transaction has just inserted, as an insert
// listener sees it.
type Inserted struct {
	ID        resourceid.ID
	Type      string
	SubjectID string // the resource the event is about (its object's id)
}

// InsertListener is called in the writing transaction, through its client c,
// for every event the event log inserts with its own SQL (PostgreSQL while
// the sequencer runs: insertPending; SQLite: insertNumbered), with the
// endpoints' stamp of the transaction in ctx (EndpointsStamp). An error
// rolls the transaction back.
//
// Events inserted through ent (PostgreSQL without the sequencer; a
// transaction without a Log in its context) run the client's ent hooks on
// Event creation instead, with the same context: a component that acts on
// every inserted event (the webhook fan-out) registers both.
type InsertListener func(ctx context.Context, c *ent.Client, events []Inserted) error

// listeners holds a Log's insert listeners.
type listeners struct {
	mu   sync.RWMutex
	list []InsertListener
}

// OnInsert registers f for the environment's events (see InsertListener).
// Register before anything writes events.
func (l *Log) OnInsert(f InsertListener) {
	l.listeners.mu.Lock()
	l.listeners.list = append(l.listeners.list, f)
	l.listeners.mu.Unlock()
}

// inserted calls the listeners for events inserted through c.
func (l *Log) inserted(ctx context.Context, c *ent.Client, events []Inserted) error {
	if l == nil {
		return nil
	}
	l.listeners.mu.RLock()
	list := l.listeners.list
	l.listeners.mu.RUnlock()
	for _, f := range list {
		if err := f(ctx, c, events); err != nil {
			return err
		}
	}
	return nil
}
