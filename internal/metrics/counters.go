package metrics

import "github.com/prometheus/client_golang/prometheus"

// CounterVec registers a counter vector the caller adds to. Its labels must
// take few values (an environment, a kind): each combination is a series.
func (r *Registry) CounterVec(opts prometheus.CounterOpts, labels []string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(opts, labels)
	r.reg.MustRegister(c)
	return c
}
