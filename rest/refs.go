package rest

import (
	"logistics/ent"
	"logistics/ent/hub"
)

// Resources embed references to others ({id, code} of a hub): the eager
// loads read just those columns, not whole rows (descriptions and addresses
// made the part load of an items page cost as much as the page itself; an
// items page now reads its parts' skus and hubs' codes in its own
// statement, withItemRefs).

func hubRef(q *ent.HubQuery) { q.Select(hub.FieldID, hub.FieldCode) }
