package auth

// RevokedInFlight is how many keys this store reads on every request because
// it revoked them and has not yet read the revocation back (for tests).
func (s *Store) RevokedInFlight() int {
	s.cacheMu.RLock()
	defer s.cacheMu.RUnlock()
	return len(s.uncached)
}
