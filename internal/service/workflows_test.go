package service_test

import (
	"testing"

	"logistics/internal/apptest"
	"logistics/internal/environment"
	"logistics/internal/resourceid"
	"logistics/internal/view"
	"logistics/internal/workflowdef"
)

// Workflow versions are read once per process: the first request for a set
// of ids costs one statement, later ones none; unknown ids are absent; a new
// version of a key leaves the cached earlier one as it was.
func TestWorkflowsCache(t *testing.T) {
	var counter apptest.StatementCounter
	s := apptest.New(t, apptest.Options{Driver: counter.Wrap})
	svc, ctx := s.App.Service, s.Ctx(environment.Production)
	def := workflowdef.Definition{
		States:       []string{"new", "gone"},
		InitialState: "new",
		Transitions:  []workflowdef.Transition{{Name: "ship", From: []string{"new"}, To: "gone", Effect: workflowdef.EffectShip}},
	}
	v1, err := svc.CreateWorkflow(ctx, "express", "Express", def)
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := svc.LatestWorkflow(ctx, workflowdef.FulfilmentKey)
	if err != nil {
		t.Fatal(err)
	}
	unknown := resourceid.New(resourceid.Workflow)

	counter.Reset()
	got, err := view.Workflows(ctx, []resourceid.ID{v1.ID, builtin.ID, v1.ID, unknown})
	if err != nil {
		t.Fatal(err)
	}
	if n := counter.Count(); n != 1 {
		t.Errorf("%d statements for two missing versions, want 1", n)
	}
	if len(got) != 2 || got[v1.ID].Key != "express" || got[v1.ID].Version != 1 || len(got[v1.ID].Transitions) != 1 ||
		got[builtin.ID].Key != workflowdef.FulfilmentKey {
		t.Fatalf("got %+v", got)
	}

	v2, err := svc.CreateWorkflow(ctx, "express", "Express", workflowdef.Definition{
		States: []string{"new", "done"}, InitialState: "new",
		Transitions: []workflowdef.Transition{{Name: "finish", From: []string{"new"}, To: "done"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	counter.Reset()
	got, err = view.Workflows(ctx, []resourceid.ID{v1.ID, builtin.ID})
	if err != nil || counter.Count() != 0 {
		t.Fatalf("cached versions: %d statements, %v", counter.Count(), err)
	}
	if got[v1.ID].Transitions[0].Name != "ship" {
		t.Errorf("v1 changed in the cache: %+v", got[v1.ID])
	}
	got, err = view.Workflows(ctx, []resourceid.ID{v2.ID})
	if err != nil || got[v2.ID].Version != 2 || got[v2.ID].Transitions[0].Name != "finish" {
		t.Fatalf("v2: %+v, %v", got[v2.ID], err)
	}
}
