package web

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// logRequest logs the request's line, one per request with what the middleware
// learnt about it, and journals the request.
func (h *Handler) logRequest(r *http.Request, rec *Record) {
	// The fields a request chose, for both sinks: a version or a session header may
	// carry card data like any other value.
	rec.AppID, rec.Version, rec.Session = carddata.Mask(rec.AppID), carddata.Mask(rec.Version), carddata.Mask(rec.Session)
	rec.Miss = carddata.Mask(rec.Miss)
	h.log.LogAttrs(r.Context(), requestLevel(rec), "request", requestAttrs(rec, time.Since(rec.Start))...)
	if rec.Journaled {
		h.journal.Add(r, rec)
	}
}

// requestLevel is the level of a request's line: Error for a failure of the sandbox
// itself, Debug for a healthy health probe (a container probes every second: the log
// is kept for requests), Info otherwise.
func requestLevel(rec *Record) slog.Level {
	switch {
	case rec.Cause != nil:
		return slog.LevelError
	case rec.Probe && rec.Status == http.StatusOK:
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// requestAttrs are the fields of a request's line: always its id, method, path
// (card data masked when the request arrived), status and duration, then each other
// field the request has. A sandbox failure's cause is masked here: it may quote
// what a request sent.
func requestAttrs(rec *Record, elapsed time.Duration) []slog.Attr {
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs,
		slog.String("request_id", rec.ID),
		slog.String("method", rec.Method),
		slog.String("path", rec.Path),
		slog.Int("status", rec.Status),
		slog.Duration("duration", elapsed),
	)
	if rec.ErrorCode != "" {
		attrs = append(attrs, slog.String("error_code", rec.ErrorCode), slog.String("detailed_error_code", rec.ErrorDetail))
	}
	for _, opt := range [...]struct{ key, value string }{
		{"app_id", rec.AppID}, {"version", rec.Version}, {"session", rec.Session}, {"rule", rec.Rule},
	} {
		if opt.value != "" {
			attrs = append(attrs, slog.String(opt.key, opt.value))
		}
	}
	if rec.Rule != "" && rec.Step >= 0 {
		attrs = append(attrs, slog.Int("step", rec.Step))
	}
	if rec.Fault != "" {
		attrs = append(attrs, slog.String("fault", rec.Fault))
	}
	if rec.Miss != "" {
		attrs = append(attrs, slog.String("miss", rec.Miss))
	}
	if len(rec.Draws) > 0 {
		attrs = append(attrs, slog.String("draws", drawsText(rec.Draws)))
	}
	if rec.DuplicateOf != "" {
		attrs = append(attrs, slog.String("duplicate_of", rec.DuplicateOf))
	}
	if rec.Cause != nil {
		attrs = append(attrs, slog.String("cause", carddata.Mask(rec.Cause.Error())))
	}
	return attrs
}

// drawsText lists a request's chance draws on one line, separated by "; ".
func drawsText(draws []scenario.Draw) string {
	parts := make([]string, len(draws))
	for i, d := range draws {
		parts[i] = d.String()
	}
	return strings.Join(parts, "; ")
}
