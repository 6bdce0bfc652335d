package web

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A request's line carries the fields the README lists, in this order: always the
// id, method, path, status and duration, then each other field the request has; its
// level says whether the sandbox failed, and a healthy probe is logged at Debug.
func TestRequestLineFields(t *testing.T) {
	for _, tt := range []struct {
		name string
		info Record
		want string // the JSON line, its time left out and its duration D
	}{
		{"success", Record{ID: "REQ_x_1", Method: "POST", Path: "/transactions/TRN_1/adjustment", Status: 200,
			AppID: "SandboxPartnerAppId0000000000001", Version: "2021-03-22", Step: -1},
			`{"level":"INFO","msg":"request","request_id":"REQ_x_1","method":"POST","path":"/transactions/TRN_1/adjustment","status":200,"duration":D,"app_id":"SandboxPartnerAppId0000000000001","version":"2021-03-22"}`},
		{"error", Record{ID: "REQ_x_2", Method: "GET", Path: "/nowhere", Status: 404, ErrorCode: "RESOURCE_NOT_FOUND", ErrorDetail: "40118", Step: -1},
			`{"level":"INFO","msg":"request","request_id":"REQ_x_2","method":"GET","path":"/nowhere","status":404,"duration":D,"error_code":"RESOURCE_NOT_FOUND","detailed_error_code":"40118"}`},
		{"scenario with step", Record{ID: "REQ_x_3", Method: "POST", Path: "/transactions", Status: 504, Session: "s 1",
			Rule: "timeouts#0", Step: 0, Fault: "timeout"},
			`{"level":"INFO","msg":"request","request_id":"REQ_x_3","method":"POST","path":"/transactions","status":504,"duration":D,"session":"s 1","rule":"timeouts#0","step":0,"fault":"timeout"}`},
		{"scenario without step", Record{ID: "REQ_x_4", Method: "POST", Path: "/transactions", Status: 402, Rule: "declines#2", Step: -1},
			`{"level":"INFO","msg":"request","request_id":"REQ_x_4","method":"POST","path":"/transactions","status":402,"duration":D,"rule":"declines#2"}`},
		{"miss", Record{ID: "REQ_x_5", Method: "POST", Path: "/transactions", Status: 200, Miss: "declines#0: amount is not 1000", Step: -1},
			`{"level":"INFO","msg":"request","request_id":"REQ_x_5","method":"POST","path":"/transactions","status":200,"duration":D,"miss":"declines#0: amount is not 1000"}`},
		{"health probe", Record{ID: "REQ_x_6", Method: "GET", Path: "/_sandbox/health", Probe: true, Status: 200, Step: -1},
			`{"level":"DEBUG","msg":"request","request_id":"REQ_x_6","method":"GET","path":"/_sandbox/health","status":200,"duration":D}`},
		{"failure with card data in its cause", Record{ID: "REQ_x_7", Method: "POST", Path: "/transactions", Status: 500,
			ErrorCode: "SYSTEM_ERROR", ErrorDetail: "50000", Step: -1, Cause: errors.New("store: write 4263970000005262 failed")},
			`{"level":"ERROR","msg":"request","request_id":"REQ_x_7","method":"POST","path":"/transactions","status":500,"duration":D,"error_code":"SYSTEM_ERROR","detailed_error_code":"50000","cause":"store: write 426397******5262 failed"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustLogRequest(t, &tt.info)
			if got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(got, "4263970000005262") {
				t.Errorf("card number in clear: %s", got)
			}
		})
	}
}

// mustLogRequest returns the JSON line logRequest logs for rec at the Debug level,
// without its time and with its duration written D.
func mustLogRequest(t *testing.T, rec *Record) string {
	t.Helper()
	var buf bytes.Buffer
	withoutTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	h := &Handler{log: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: withoutTime}))}
	rec.Start = time.Now()
	h.logRequest(httptest.NewRequest(rec.Method, "/", nil), rec)
	took := regexp.MustCompile(`"duration":[0-9]+`)
	if !took.MatchString(buf.String()) {
		t.Fatalf("no duration: %s", buf.String())
	}
	return strings.TrimSuffix(took.ReplaceAllString(buf.String(), `"duration":D`), "\n")
}
