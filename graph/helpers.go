package graph

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
