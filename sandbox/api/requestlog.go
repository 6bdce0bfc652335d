package api

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The request log: one line per request, with what the middleware learnt about it.
// It goes through the Logger, or, when the server has a RequestLog writer, is
// formatted here as slog's TextHandler or JSONHandler with default options writes
// the same record: under load, slog's generic path (a record, an attribute slice,
// a handler state) was a sizeable share of the CPU a request costs.

// maxPooledLine bounds the buffers kept for the next lines: a line with a long
// cause or scenario miss is not kept for good.
const maxPooledLine = 4 << 10

// logRequest logs the request's line and journals it.
func (s *Server) logRequest(r *http.Request, info *requestInfo) {
	elapsed := time.Since(info.start)
	level := requestLevel(info)
	switch {
	case s.requestLog == nil:
		attrs := make(slogFields, 0, 16)
		requestFields(&attrs, info, elapsed)
		s.log.LogAttrs(r.Context(), level, "request", attrs...)
	case level >= slog.LevelInfo: // the default handler level
		line := s.logLines.Get().(*logLine)
		line.begin(time.Now(), level, "request")
		requestFields(line, info, elapsed)
		line.end()
		_, _ = s.requestLog.Write(line.buf) // nobody to tell: the log is where failures go
		if cap(line.buf) <= maxPooledLine {
			s.logLines.Put(line)
		}
	}
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

// logFields receives the fields of a log line, in order.
type logFields interface {
	str(key, value string)
	num(key string, n int)
	dur(key string, d time.Duration)
}

// requestFields passes the fields of a request's line to f: always its id, method,
// path, status and duration, then each other field the request has.
func requestFields(f logFields, info *requestInfo, elapsed time.Duration) {
	f.str("request_id", info.id)
	f.str("method", info.method)
	f.str("path", info.path)
	f.num("status", info.status)
	f.dur("duration", elapsed)
	if info.errorCode != "" {
		f.str("error_code", info.errorCode)
		f.str("detailed_error_code", info.errorDetail)
	}
	for _, opt := range [...]struct{ key, value string }{
		{"app_id", info.appID}, {"version", info.version}, {"session", info.session}, {"rule", info.rule},
	} {
		if opt.value != "" {
			f.str(opt.key, opt.value)
		}
	}
	if info.rule != "" && info.step >= 0 {
		f.num("step", info.step)
	}
	if info.fault != "" {
		f.str("fault", info.fault)
	}
	if info.miss != "" {
		f.str("miss", info.miss)
	}
	if info.cause != nil {
		f.str("cause", sandbox.MaskCardData(info.cause.Error()))
	}
}

// slogFields collects a line's fields as slog attributes.
type slogFields []slog.Attr

func (a *slogFields) str(key, value string)           { *a = append(*a, slog.String(key, value)) }
func (a *slogFields) num(key string, n int)           { *a = append(*a, slog.Int(key, n)) }
func (a *slogFields) dur(key string, d time.Duration) { *a = append(*a, slog.Duration(key, d)) }

// A logLine formats a record the way slog.NewTextHandler(w, nil), or
// slog.NewJSONHandler(w, nil) when json is set, writes it: the same bytes, field
// for field (requestlog_test.go holds it to them).
type logLine struct {
	buf  []byte
	json bool
	sep  bool // a field was written: the next one is separated
}

func (l *logLine) begin(t time.Time, level slog.Level, msg string) {
	l.buf, l.sep = l.buf[:0], false
	if l.json {
		l.buf = append(l.buf, '{')
	}
	l.key("time")
	if l.json {
		l.buf = append(l.buf, '"')
		l.buf = t.AppendFormat(l.buf, time.RFC3339Nano)
		l.buf = append(l.buf, '"')
	} else {
		l.buf = appendRFC3339Millis(l.buf, t)
	}
	l.str("level", level.String())
	l.str("msg", msg)
}

func (l *logLine) end() {
	if l.json {
		l.buf = append(l.buf, '}')
	}
	l.buf = append(l.buf, '\n')
}

func (l *logLine) key(k string) {
	if l.sep {
		if l.json {
			l.buf = append(l.buf, ',')
		} else {
			l.buf = append(l.buf, ' ')
		}
	}
	l.sep = true
	l.string(k)
	if l.json {
		l.buf = append(l.buf, ':')
	} else {
		l.buf = append(l.buf, '=')
	}
}

func (l *logLine) str(key, value string) {
	l.key(key)
	l.string(value)
}

func (l *logLine) num(key string, n int) {
	l.key(key)
	l.buf = strconv.AppendInt(l.buf, int64(n), 10)
}

// dur writes a duration as slog does: nanoseconds in JSON, Duration.String in text.
func (l *logLine) dur(key string, d time.Duration) {
	l.key(key)
	if l.json {
		l.buf = strconv.AppendInt(l.buf, int64(d), 10)
		return
	}
	l.buf = append(l.buf, d.String()...)
}

func (l *logLine) string(s string) {
	switch {
	case l.json:
		l.buf = append(l.buf, '"')
		l.buf = appendJSONEscaped(l.buf, s)
		l.buf = append(l.buf, '"')
	case textNeedsQuoting(s):
		l.buf = strconv.AppendQuote(l.buf, s)
	default:
		l.buf = append(l.buf, s...)
	}
}

// appendRFC3339Millis appends t in RFC 3339 with exactly three digits of
// milliseconds, truncated, as the text handler writes its time.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano drops trailing zeros: a tenth of a millisecond more makes four
	// digits sure, and the fourth is dropped.
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// textNeedsQuoting reports whether the text handler quotes s: when it is empty, or
// holds a space, '=', a quote, a control character, a byte that is not UTF-8, or a
// rune that is a space or not printable. A backslash alone does not need it.
func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b != '\\' && (b == ' ' || b == '=' || !jsonSafe(b)) {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// jsonSafe reports whether an ASCII byte goes into a JSON string as it is: anything
// but a control character (DEL is not one here), '"' and '\'.
func jsonSafe(b byte) bool { return b >= 0x20 && b != '"' && b != '\\' }

// appendJSONEscaped appends s escaped for a JSON string as slog's JSON handler
// escapes it: \n, \r, \t and \u00XX for control characters, \ufffd for each byte
// that is not UTF-8, and \u2028 and \u2029 escaped; HTML characters stay as they are.
func appendJSONEscaped(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe(b) {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '\\', '"':
				buf = append(buf, '\\', b)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			buf = append(append(buf, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			buf = append(append(buf, s[start:i]...), '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(buf, s[start:]...)
}
