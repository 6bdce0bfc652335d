package api

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// The request line formatted by logLine must be, byte for byte, what slog's text and
// JSON handlers write for the same record: the binary writes one, tests and embedders
// read the other.
func TestRequestLineIsSlogsLine(t *testing.T) {
	odd := "a b=c\"d\\e\tf\ng\x01h\x7fi\xffj\u2028k\u2029l\u00a0m\u200bn<&>o é 😀"
	infos := map[string]*requestInfo{
		"success": {id: "REQ_abcdefgh_1", method: "POST", path: "/transactions/TRN_1/adjustment", status: 200,
			appID: "SandboxPartnerAppId0000000000001", version: "2021-03-22"},
		"error":                {id: "REQ_abcdefgh_2", method: "GET", path: "/nowhere", status: 404, errorCode: "RESOURCE_NOT_FOUND", errorDetail: "40008"},
		"error without detail": {id: "REQ_x_3", method: "GET", path: "/", status: 500, errorCode: "SYSTEM_ERROR"},
		"scenario with step": {id: "REQ_x_4", method: "POST", path: "/transactions", status: 200, session: "s1",
			rule: "declines#0", step: 0, fault: "timeout", miss: ""},
		"scenario without step": {id: "REQ_x_5", method: "POST", path: "/transactions", status: 402, rule: "declines#2", step: -1},
		"miss":                  {id: "REQ_x_6", method: "POST", path: "/transactions", status: 200, miss: "declines#0: amount is not 1000", step: -1},
		"health probe":          {id: "REQ_x_7", method: "GET", path: healthPath, status: 200},
		"cause with card data": {id: "REQ_x_8", method: "POST", path: "/transactions", status: 500, errorCode: "SYSTEM_ERROR",
			errorDetail: "50000", cause: errors.New("store: write 4263970000005262 failed: disk full")},
		"odd text everywhere": {id: odd, method: odd, path: odd, status: 400, errorCode: odd, errorDetail: odd,
			appID: odd, version: odd, session: odd, rule: odd, step: 3, fault: odd, miss: odd, cause: errors.New(odd)},
		"empty strings": {id: "", method: "", path: "", errorCode: "", rule: "r", step: -1, fault: "f"},
	}
	times := []time.Time{
		time.Date(2026, 11, 24, 0, 32, 22, 123456789, time.UTC),
		time.Date(2026, 11, 24, 0, 32, 22, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 999999999, time.FixedZone("", 5*3600+30*60)),
		time.Date(2026, 1, 2, 3, 4, 5, 100000, time.FixedZone("X", -8*3600)),
		time.Now(),
	}
	durations := []time.Duration{0, 1500 * time.Microsecond, 2*time.Second + 7, 90 * time.Minute}
	for name, info := range infos {
		for _, json := range []bool{false, true} {
			for i, at := range times {
				elapsed := durations[i%len(durations)]
				want := mustSlogLine(t, json, at, info, elapsed)
				line := &logLine{json: json, buf: []byte("left over from the last line")}
				line.begin(at, requestLevel(info), "request")
				requestFields(line, info, elapsed)
				line.end()
				if got := string(line.buf); got != want {
					t.Errorf("%s (json %v, %v):\n got %q\nwant %q", name, json, at, got, want)
				}
			}
		}
	}
}

// mustSlogLine is the line slog's handler with default options writes for the record
// the request log makes of info.
func mustSlogLine(t *testing.T, json bool, at time.Time, info *requestInfo, elapsed time.Duration) string {
	t.Helper()
	var buf bytes.Buffer
	var h slog.Handler = slog.NewTextHandler(&buf, nil)
	if json {
		h = slog.NewJSONHandler(&buf, nil)
	}
	var attrs slogFields
	requestFields(&attrs, info, elapsed)
	rec := slog.NewRecord(at, requestLevel(info), "request", 0)
	rec.AddAttrs(attrs...)
	if err := h.Handle(context.Background(), rec); err != nil {
		t.Fatalf("slog handler: %v", err)
	}
	return buf.String()
}

// The line of a failure of the sandbox names its cause, card data masked.
func TestRequestLineMasksTheCause(t *testing.T) {
	info := &requestInfo{id: "REQ_x_1", method: "POST", path: "/transactions", status: 500, errorCode: "SYSTEM_ERROR",
		errorDetail: "50000", cause: errors.New("write 4263970000005262 failed")}
	line := &logLine{}
	line.begin(time.Now(), requestLevel(info), "request")
	requestFields(line, info, time.Millisecond)
	line.end()
	got := string(line.buf)
	if strings.Contains(got, "4263970000005262") || !strings.Contains(got, "level=ERROR") || !strings.Contains(got, "cause=") {
		t.Errorf("line %q: want level=ERROR and the cause with its card number masked", got)
	}
}
