package rest

import (
	"net/http"
	"strings"

	"logistics/ent"
	"logistics/internal/apperr"
	"logistics/internal/count"
)

// maxPreferBytes bounds the Prefer header of every request: the app
// refuses a longer one (CheckPreferSize) before any handler reads it.
const maxPreferBytes = 256

// CheckPreferSize refuses a request whose Prefer headers together are over
// 256 bytes: a 400 invalid_count, the code of a Prefer the service cannot
// take (apperr's table).
func CheckPreferSize(r *http.Request) error {
	size := 0
	for _, v := range r.Header.Values("Prefer") {
		size += len(v)
	}
	if size > maxPreferBytes {
		return apperr.BadRequest("the Prefer header is over %d bytes", maxPreferBytes).WithCode("invalid_count")
	}
	return nil
}

// preferredCount reads the count a list request prefers (RFC 7240's
// Prefer, spelled as PostgREST does: count=exact|planned|estimated, and
// count=bounded): counted is false without one. Other preferences are
// ignored, as RFC 7240 asks; a count that names no mode, or two counts that
// differ is a 400 invalid_count (and a Prefer over 256 bytes never gets
// here: CheckPreferSize).
func preferredCount(r *http.Request) (mode count.Mode, counted bool, err error) {
	for _, v := range r.Header.Values("Prefer") {
		for _, pref := range strings.Split(v, ",") {
			token, _, _ := strings.Cut(pref, ";") // parameters of a preference: none for count
			name, value, _ := strings.Cut(strings.TrimSpace(token), "=")
			if !strings.EqualFold(strings.TrimSpace(name), "count") {
				continue
			}
			m, ok := count.ParseMode(strings.Trim(strings.TrimSpace(value), `"`))
			if !ok {
				return 0, false, apperr.BadRequest("Prefer: count=%s is not a count: use count=exact, count=planned, count=estimated or count=bounded", truncate(value)).WithCode("invalid_count")
			}
			if counted && m != mode {
				return 0, false, apperr.BadRequest("Prefer names two counts (count=%s and count=%s): name one", mode, m).WithCode("invalid_count")
			}
			mode, counted = m, true
		}
	}
	return mode, counted, nil
}

// countList counts the list whose page out holds, as mode asks, into out's
// total_count and total_count_kind, and says in Preference-Applied which
// count ran (on SQLite, planned and estimated run as bounded).
func countList(w http.ResponseWriter, r *http.Request, pc *ent.PageCounter, mode count.Mode, out *listJSON) error {
	n, ok, err := pc.Count(r.Context(), mode)
	if err != nil || !ok {
		return err
	}
	out.TotalCount, out.TotalCountKind = &n.Value, n.Kind.String()
	w.Header().Set("Preference-Applied", "count="+n.Mode.String())
	return nil
}
