package api

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
func (s *Server) logRequest(r *http.Request, info *requestInfo) {
	// The fields a request chose, for both sinks: a version or a session header may
	// carry card data like any other value.
	info.appID, info.version, info.session = carddata.Mask(info.appID), carddata.Mask(info.version), carddata.Mask(info.session)
	info.miss = carddata.Mask(info.miss)
	s.log.LogAttrs(r.Context(), requestLevel(info), "request", requestAttrs(info, time.Since(info.start))...)
	if info.journaled {
		s.journal.add(info)
	}
}

// requestLevel is the level of a request's line: Error for a failure of the sandbox
// itself, Debug for a healthy health probe (a container probes every second: the log
// is kept for requests), Info otherwise.
func requestLevel(info *requestInfo) slog.Level {
	switch {
	case info.cause != nil:
		return slog.LevelError
	case info.path == healthPath && info.status == http.StatusOK:
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// requestAttrs are the fields of a request's line: always its id, method, path
// (card data masked when the request arrived), status and duration, then each other
// field the request has. A sandbox failure's cause is masked here: it may quote
// what a request sent.
func requestAttrs(info *requestInfo, elapsed time.Duration) []slog.Attr {
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs,
		slog.String("request_id", info.id),
		slog.String("method", info.method),
		slog.String("path", info.path),
		slog.Int("status", info.status),
		slog.Duration("duration", elapsed),
	)
	if info.errorCode != "" {
		attrs = append(attrs, slog.String("error_code", info.errorCode), slog.String("detailed_error_code", info.errorDetail))
	}
	for _, opt := range [...]struct{ key, value string }{
		{"app_id", info.appID}, {"version", info.version}, {"session", info.session}, {"rule", info.rule},
	} {
		if opt.value != "" {
			attrs = append(attrs, slog.String(opt.key, opt.value))
		}
	}
	if info.rule != "" && info.step >= 0 {
		attrs = append(attrs, slog.Int("step", info.step))
	}
	if info.fault != "" {
		attrs = append(attrs, slog.String("fault", info.fault))
	}
	if info.miss != "" {
		attrs = append(attrs, slog.String("miss", info.miss))
	}
	if len(info.draws) > 0 {
		attrs = append(attrs, slog.String("draws", drawsText(info.draws)))
	}
	if info.duplicateOf != "" {
		attrs = append(attrs, slog.String("duplicate_of", info.duplicateOf))
	}
	if info.cause != nil {
		attrs = append(attrs, slog.String("cause", carddata.Mask(info.cause.Error())))
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
