package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"logistics/graph"
	"logistics/internal/documents"
	"logistics/internal/environment"
	"logistics/internal/metrics"
)

// trustedOptions are the environment's trusted documents for its GraphQL
// endpoint: the store every environment shares (its cache is keyed by
// environment; each reads its own database) and the environment's modes.
func (a *App) trustedOptions(env *environment.Env) graph.TrustedOptions {
	a.trustedOnce.Do(func() {
		ttl := a.Config.TrustedCacheTTL
		if ttl == 0 {
			ttl = -1 // no cache: every look-up reads the database
		}
		a.Documents = documents.NewStore(ttl)
		a.untrusted = a.Metrics.CounterVec(prometheus.CounterOpts{
			Name: "logistics_graphql_untrusted_operations_total",
			Help: "GraphQL operations that were not trusted documents, by environment, credential (session, key) and action (ran: report mode; refused: enforce).",
		}, []string{"environment", "credential", "action"})
		a.Metrics.Counter("logistics_graphql_documents_parsed_total",
			"GraphQL documents parsed and validated (misses of the query cache, which a trusted document's text hits after its first request).",
			nil, func() []metrics.Sample { return []metrics.Sample{{Value: float64(a.Parses.Load())}} })
	})
	return graph.TrustedOptions{
		Store:  a.Documents,
		Policy: a.Config.TrustedPolicy(env.Name == environment.Sandbox),
		Untrusted: func(envName, credential, action string) {
			a.untrusted.WithLabelValues(envName, credential, action).Inc()
		},
	}
}
