package webhooks

import (
	"context"
	"net/http"
	"net/netip"
)

// SetResolver makes m resolve endpoint names with f, at registration and at
// every connection: tests give names addresses without a DNS server.
func SetResolver(m *Manager, f func(host string) ([]netip.Addr, error)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resolver = resolverFunc(f)
}

type resolverFunc func(host string) ([]netip.Addr, error)

func (f resolverFunc) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return f(host)
}

// Get sends a GET to url with the client deliveries are sent with.
func Get(ctx context.Context, m *Manager, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Destinations is the check every connection makes before dialling host.
func Destinations(ctx context.Context, m *Manager, host string) ([]netip.Addr, error) {
	return m.destinations(ctx, host)
}
