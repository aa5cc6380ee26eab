package service

import (
	"context"

	"logistics/ent"
	"logistics/ent/workflow"
	"logistics/internal/apperr"
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
	w, err := client(ctx).Workflow.Query().
		Where(workflow.Key(key)).
		Order(ent.Desc(workflow.FieldVersion)).
		First(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.Validation(apperr.FieldError{Field: "workflow", Message: "no workflow has the key " + key})
	}
	if err != nil {
		return nil, apperr.From(err)
	}
	return w, nil
}

// Definition returns the workflow's definition.
func Definition(w *ent.Workflow) workflowdef.Definition {
	return workflowdef.Definition{States: w.States, InitialState: w.InitialState, Transitions: w.Transitions}
}
