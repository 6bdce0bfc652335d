package api

import (
	"log/slog"
	"net/http"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// noteDuplicate tells of a payment that repeats an earlier approved one (same card,
// amount, currency and reference within the duplicate window, under another
// idempotency key or none): the real API charges twice, and so does the sandbox, but
// the journal entry, the inspector and a warning in the log name both transactions.
func (s *Server) noteDuplicate(r *http.Request, t sandbox.Transaction) {
	if t.DuplicateOf == "" {
		return
	}
	requestID := ""
	if rec := web.RecordOf(r); rec != nil {
		rec.DuplicateOf, requestID = t.DuplicateOf, rec.ID
	}
	s.log.LogAttrs(r.Context(), slog.LevelWarn, "possible double charge: a payment repeats an earlier one with the same card, amount, currency and reference",
		slog.String("transaction_id", t.ID), slog.String("duplicate_of", t.DuplicateOf), slog.String("request_id", requestID))
}
