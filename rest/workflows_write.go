package rest

import (
	"net/http"
	"time"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/resourceid"
	"logistics/internal/workflowdef"
)

type workflowRequest struct {
	Key          string                   `json:"key"`
	Name         string                   `json:"name"`
	States       []string                 `json:"states"`
	InitialState string                   `json:"initial_state"`
	Transitions  []workflowdef.Transition `json:"transitions"`
}

type workflowJSON struct {
	ID           resourceid.ID            `json:"id"`
	Key          string                   `json:"key"`
	Name         string                   `json:"name"`
	Version      int                      `json:"version"`
	Latest       bool                     `json:"latest"`
	BuiltIn      bool                     `json:"built_in"`
	States       []string                 `json:"states"`
	InitialState string                   `json:"initial_state"`
	Transitions  []workflowdef.Transition `json:"transitions"`
	CreatedAt    time.Time                `json:"created_at"`
	UpdatedAt    time.Time                `json:"updated_at"`
}

func toWorkflowJSON(w *ent.Workflow) workflowJSON {
	return workflowJSON{w.ID, w.Key, w.Name, w.Version, w.Latest, w.BuiltIn, w.States, w.InitialState, w.Transitions, w.CreatedAt, w.UpdatedAt}
}

// handleCreateWorkflow answers POST /v1/workflows: version 1 of a new key, or
// the next version of an existing one (201 either way).
func handleCreateWorkflow(d Deps) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in workflowRequest
		if err := decodeFlowJSON(w, r, &in); err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		wf, err := d.Service.CreateWorkflow(r.Context(), in.Key, in.Name, workflowdef.Definition{
			States: in.States, InitialState: in.InitialState, Transitions: in.Transitions,
		})
		if err != nil {
			apperr.Write(w, r, d.Log, err)
			return
		}
		w.Header().Set("Location", r.URL.Path+"/"+string(wf.ID))
		WriteJSON(w, http.StatusCreated, toWorkflowJSON(wf))
	})
}
