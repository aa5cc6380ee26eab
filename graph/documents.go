package graph

import (
	"context"

	"entgo.io/contrib/entgql"

	"logistics/graph/model"
	"logistics/internal/documents"
	"logistics/internal/resourceid"
)

// documents is the resolver's store (NewHandler makes one when its
// options hold none).
func (r *Resolver) documents() *documents.Store { return r.Documents }

func registerManifest(ctx context.Context, s *documents.Store, manifest, clientName, clientVersion string) (*model.TrustedDocumentRegistration, error) {
	docs, err := documents.ParseManifest([]byte(manifest))
	if err != nil {
		return nil, err
	}
	res, err := s.Register(ctx, documents.Client{Name: clientName, Version: clientVersion}, docs)
	if err != nil {
		return nil, err
	}
	return &model.TrustedDocumentRegistration{Created: res.Created, Reactivated: res.Reactivated, Unchanged: res.Unchanged, Documents: res.Documents}, nil
}

func listDocuments(ctx context.Context, s *documents.Store, first *int, after *entgql.Cursor[resourceid.ID], clientName *string, includeRetired *bool) (*model.TrustedDocumentConnection, error) {
	o := documents.ListOptions{Limit: derefInt(first), Client: deref(clientName), Retired: includeRetired != nil && *includeRetired}
	if after != nil {
		o.Cursor = documents.EncodeCursor(after.ID)
	}
	p, err := s.List(ctx, o)
	if err != nil {
		return nil, err
	}
	info := &entgql.PageInfo[resourceid.ID]{HasNextPage: p.Next != "", HasPreviousPage: after != nil}
	if n := len(p.Documents); n > 0 {
		info.StartCursor = &entgql.Cursor[resourceid.ID]{ID: p.Documents[0].ID}
		info.EndCursor = &entgql.Cursor[resourceid.ID]{ID: p.Documents[n-1].ID}
	}
	return &model.TrustedDocumentConnection{Nodes: p.Documents, PageInfo: info}, nil
}
