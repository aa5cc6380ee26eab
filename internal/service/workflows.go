package service

import (
	"context"
	"fmt"
	"strings"

	"logistics/ent"
	"logistics/ent/workflow"
	"logistics/internal/apperr"
	"logistics/internal/view"
	"logistics/internal/workflowdef"
)

// EnsureBuiltins creates the built-in fulfilment workflow when the
// environment's database does not have it yet. Safe to call at every start,
// from several instances at once.
func (s *Service) EnsureBuiltins(ctx context.Context) error {
	c := client(ctx)
	ok, err := c.Workflow.Query().Where(workflow.Key(workflowdef.FulfilmentKey)).Exist(ctx)
	if err != nil || ok {
		return err
	}
	d := workflowdef.Fulfilment()
	err = c.Workflow.Create().
		SetKey(workflowdef.FulfilmentKey).
		SetName("Fulfilment").
		SetVersion(1).
		SetBuiltIn(true).
		SetStates(d.States).
		SetInitialState(d.InitialState).
		SetTransitions(d.Transitions).
		Exec(ctx)
	if ent.IsConstraintError(err) {
		return nil // another instance created it first
	}
	return err
}

// LatestWorkflow returns the newest version of the workflow with the given key.
func (s *Service) LatestWorkflow(ctx context.Context, key string) (*ent.Workflow, error) {
	// The newest version's id only; the version itself from the
	// process-wide cache (Workflows: versions never change). Each order
	// creation read and decoded the whole row, definition included, inside
	// its write transaction.
	ids, err := client(ctx).Workflow.Query().
		Where(workflow.KeyIn(key)). // IN (?), not = ?: SQLite would prepare = ? again at each use
		Order(ent.Desc(workflow.FieldVersion)).
		Limit(1).
		IDs(ctx)
	if err != nil {
		return nil, apperr.From(err)
	}
	if len(ids) == 0 {
		return nil, apperr.Validation(apperr.FieldError{Field: "workflow", Message: "no workflow has the key " + key})
	}
	wfs, err := view.Workflows(ctx, ids)
	if err != nil {
		return nil, err
	}
	if wfs[ids[0]] == nil {
		return nil, apperr.Internal(fmt.Errorf("workflow %s: not found after its id was read", ids[0]))
	}
	return wfs[ids[0]], nil
}

// CreateWorkflow validates def and stores it as version 1 of a new workflow
// key, or as the next version of an existing one: earlier versions are never
// changed (only their latest flag drops), so orders keep the version they
// started with and new orders get the new one. The built-in fulfilment
// workflow cannot be changed (409 built_in_workflow): create a custom
// workflow under another key instead.
func (s *Service) CreateWorkflow(ctx context.Context, key, name string, def workflowdef.Definition) (*ent.Workflow, error) {
	key, name = strings.TrimSpace(key), strings.TrimSpace(name)
	problems := []apperr.FieldError{}
	if !workflowdef.ValidName(key) {
		problems = append(problems, apperr.FieldError{Field: "key", Message: "must be 1 to 64 lower-case letters, digits or _"})
	}
	if name == "" {
		name = key
	}
	if len(name) > 200 {
		problems = append(problems, apperr.FieldError{Field: "name", Message: "is too long (200 characters at most)"})
	}
	for _, p := range def.Validate() {
		problems = append(problems, apperr.FieldError{Field: p.Field, Message: p.Message})
	}
	if len(problems) > 0 {
		return nil, apperr.Validation(problems...)
	}
	if key == workflowdef.FulfilmentKey {
		return nil, apperr.Conflict("built_in_workflow", "the built-in %s workflow cannot be changed: create a workflow with another key", key)
	}
	var w *ent.Workflow
	err := WithTx(ctx, func(ctx context.Context) error {
		c := client(ctx)
		prev, err := c.Workflow.Query().Where(workflow.Key(key)).Order(ent.Desc(workflow.FieldVersion)).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return apperr.From(err)
		}
		version := 1
		if prev != nil {
			version = prev.Version + 1
			if _, err := c.Workflow.Update().Where(workflow.Key(key), workflow.Latest(true)).SetLatest(false).Save(ctx); err != nil {
				return apperr.From(err)
			}
		}
		w, err = c.Workflow.Create().
			SetKey(key).
			SetName(name).
			SetVersion(version).
			SetLatest(true).
			SetStates(def.States).
			SetInitialState(def.InitialState).
			SetTransitions(def.Transitions).
			Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.Conflict("concurrent_update", "workflow %s got a new version meanwhile: retry", key)
		} else if err != nil {
			return apperr.From(err)
		}
		return s.emitCreated(ctx, "workflow.created", w.ID, nil)
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Definition returns the workflow's definition.
func Definition(w *ent.Workflow) workflowdef.Definition {
	return workflowdef.Definition{States: w.States, InitialState: w.InitialState, Transitions: w.Transitions}
}
