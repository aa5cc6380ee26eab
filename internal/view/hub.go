package view

import (
	"logistics/ent"
	"logistics/internal/resourceid"
)

type AddressJSON struct {
	Line1      string `json:"line1"`
	City       string `json:"city"`
	PostalCode string `json:"postal_code"`
	Country    string `json:"country"`
}

type HubJSON struct {
	ID        resourceid.ID `json:"id"`
	Code      string        `json:"code"`
	Name      string        `json:"name"`
	Kind      string        `json:"kind"`
	Address   AddressJSON   `json:"address"`
	Latitude  *float64      `json:"latitude"`
	Longitude *float64      `json:"longitude"`
	Timezone  string        `json:"timezone"`
	Active    bool          `json:"active"`
	Revision  int           `json:"revision"`
	CreatedAt string        `json:"created_at"`
	UpdatedAt string        `json:"updated_at"`
}

func RenderHub(h *ent.Hub) HubJSON {
	return HubJSON{
		ID: h.ID, Code: h.Code, Name: h.Name, Kind: h.Kind.String(),
		Address:  AddressJSON{Line1: h.AddressLine1, City: h.City, PostalCode: h.PostalCode, Country: h.Country},
		Latitude: h.Latitude, Longitude: h.Longitude, Timezone: h.Timezone, Active: h.Active,
		Revision: h.Revision, CreatedAt: ts(h.CreatedAt), UpdatedAt: ts(h.UpdatedAt),
	}
}
