package view

import (
	"logistics/ent"
	"logistics/ent/hub"
)

// Resources embed references to others ({id, code} of a hub): the eager
// loads read just those columns, not whole rows (descriptions and addresses
// made the part load of an items page cost as much as the page itself; an
// items page and an orders page now read them in their own statement,
// internal/view).

func HubRef(q *ent.HubQuery) { q.Select(hub.FieldID, hub.FieldCode) }
