package rest

import (
	"logistics/ent"
	"logistics/ent/hub"
	"logistics/ent/part"
)

// Resources embed references to others ({id, code} of a hub, {id, sku} of a
// part): the eager loads read just those columns, not whole rows
// (descriptions and addresses made the part load of an items page cost as
// much as the page itself).

func hubRef(q *ent.HubQuery) { q.Select(hub.FieldID, hub.FieldCode) }

func partRef(q *ent.PartQuery) { q.Select(part.FieldID, part.FieldSku, part.FieldPartName) }
