package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

// mustRunOnLoopback serves an in-memory sandbox with Run and returns its address.
func mustRunOnLoopback(t *testing.T) string {
	t.Helper()
	a, err := app.Open(app.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		a.Close()
	})
	return ln.Addr().String()
}

// The answers Go's HTTP server gives by itself, before the sandbox sees a request, are
// GP errors in JSON with the server's status.
func TestTransportErrorsAreGPShaped(t *testing.T) {
	addr := mustRunOnLoopback(t)
	tests := []struct {
		name, request string
		status        int
		description   string
	}{
		{"headers too large", "GET /_sandbox/health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 100<<10) + "\r\n\r\n",
			431, "Request headers are larger than the server accepts"},
		{"two different Content-Lengths", "POST /accesstoken HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
			400, "Request is malformed (request line, Content-Length or header bytes)"},
		{"Content-Length not a number", "POST /accesstoken HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}",
			400, "Request is malformed (request line, Content-Length or header bytes)"},
		{"control byte in a header name", "GET /_sandbox/health HTTP/1.1\r\nHost: x\r\nX-A\x01b: v\r\n\r\n",
			400, "Request is malformed (request line, Content-Length or header bytes)"},
		{"no Host", "GET /_sandbox/health HTTP/1.1\r\n\r\n",
			400, "Request is malformed: missing required Host header"},
		{"malformed request line", "GARBAGE\r\n\r\n",
			400, "Request is malformed (request line, Content-Length or header bytes)"},
		{"unknown Transfer-Encoding", "POST /accesstoken HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
			501, "Transfer-Encoding contains unexpected data"},
		{"unknown HTTP version", "GET /_sandbox/health HTTP/3.0\r\nHost: x\r\n\r\n",
			505, "HTTP version is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			go io.WriteString(conn, tt.request) // the server may answer before it read it all
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got struct {
				Code        string `json:"error_code"`
				Detail      string `json:"detailed_error_code"`
				Description string `json:"detailed_error_description"`
			}
			dec := json.NewDecoder(resp.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("%d %s: body is not a GP error: %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
			}
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/json" ||
				got.Code != "INVALID_REQUEST_DATA" || got.Detail != "40213" || got.Description != tt.description {
				t.Errorf("got %d %s %+v, want %d INVALID_REQUEST_DATA 40213 %q", resp.StatusCode, resp.Header.Get("Content-Type"), got, tt.status, tt.description)
			}
		})
	}
	// A request the server reads is answered by the sandbox as always.
	if status, body := mustCall(t, "http://"+addr, "GET", "/_sandbox/health", "", ""); status != 200 || body != `{"status":"ok"}` {
		t.Errorf("health: %d %s", status, body)
	}
}
