package view

import (
	"context"
	"slices"
	"sync"

	"logistics/ent"
	"logistics/ent/workflow"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
)

// workflows holds workflow id → *ent.Workflow (a version's definition never
// changes; see Workflows).
var workflows sync.Map

// Workflows returns the workflow versions with the given ids (repeats
// allowed), from a process-wide cache: a version's key, name, states and
// transitions never change once it is created (a new definition is a new
// version), so every instance may keep them. Only Latest changes, when a newer
// version appears: the cached rows do not follow it, and callers must not
// read it, nor query from a cached row (it may hold the driver of a
// transaction that has ended). Ids missing from the cache are read in one statement; ids that do
// not exist are absent from the map. Ids are unique across environments.
func Workflows(ctx context.Context, ids []resourceid.ID) (map[resourceid.ID]*ent.Workflow, error) {
	out := make(map[resourceid.ID]*ent.Workflow, 1)
	var missing []resourceid.ID
	for _, id := range ids {
		if _, done := out[id]; done {
			continue
		}
		if v, ok := workflows.Load(id); ok {
			out[id] = v.(*ent.Workflow)
			continue
		}
		if !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	wfs, err := client(ctx).Workflow.Query().Where(workflow.IDIn(missing...)).All(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	for _, wf := range wfs {
		wf.Edges = ent.WorkflowEdges{}
		workflows.Store(wf.ID, wf)
		out[wf.ID] = wf
	}
	return out, nil
}

// CachedWorkflow returns workflow id when the cache holds it, without a
// statement or a map (GraphQL's allowedTransitions asks once per order).
func CachedWorkflow(id resourceid.ID) (*ent.Workflow, bool) {
	if v, ok := workflows.Load(id); ok {
		return v.(*ent.Workflow), true
	}
	return nil, false
}

// client returns the ent client of the request: the environment's, or the
// transaction's inside the service's WithTx.
func client(ctx context.Context) *ent.Client {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx.Client()
	}
	return ent.FromContext(ctx)
}
