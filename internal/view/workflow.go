package view

import (
	"logistics/ent"
	"logistics/internal/resourceid"
	"logistics/internal/workflowdef"
)

type WorkflowJSON struct {
	ID           resourceid.ID            `json:"id"`
	Key          string                   `json:"key"`
	Name         string                   `json:"name"`
	Version      int                      `json:"version"`
	Latest       bool                     `json:"latest"`
	BuiltIn      bool                     `json:"built_in"`
	States       []string                 `json:"states"`
	InitialState string                   `json:"initial_state"`
	Transitions  []workflowdef.Transition `json:"transitions"`
	CreatedAt    string                   `json:"created_at"`
	UpdatedAt    string                   `json:"updated_at"`
}

func RenderWorkflow(wf *ent.Workflow) WorkflowJSON {
	out := WorkflowJSON{
		ID: wf.ID, Key: wf.Key, Name: wf.Name, Version: wf.Version, Latest: wf.Latest, BuiltIn: wf.BuiltIn,
		States: wf.States, InitialState: wf.InitialState, Transitions: wf.Transitions,
		CreatedAt: ts(wf.CreatedAt), UpdatedAt: ts(wf.UpdatedAt),
	}
	if out.States == nil {
		out.States = []string{}
	}
	if out.Transitions == nil {
		out.Transitions = []workflowdef.Transition{}
	}
	return out
}
