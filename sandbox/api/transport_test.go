package api_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func TestBaseURLForms(t *testing.T) {
	env := mustSandbox(t)
	for _, path := range []string{"/accesstoken", "/ucp/accesstoken", "//accesstoken", "/ucp//accesstoken", "//ucp/accesstoken"} {
		r := env.do("POST", path, jsonHeader(), tokenBody(partnerApp, partnerKey, ""))
		if r.status != 200 {
			t.Errorf("%s: %d %s (want 200, never a redirect)", path, r.status, r.body)
		}
	}
}

func TestGzipWhenAsked(t *testing.T) {
	env := mustSandbox(t)
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"success", tokenBody(partnerApp, partnerKey, ""), 200},
		{"error", tokenBody(partnerApp, "bad", ""), 403},
	} {
		h := jsonHeader()
		h["Accept-Encoding"] = "gzip, deflate"
		r := env.do("POST", "/accesstoken", h, tc.body)
		if r.status != tc.status || r.header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: status %d encoding %q", tc.name, r.status, r.header.Get("Content-Encoding"))
		}
		r.json(t) // decompressed body is a JSON object
	}
	r := env.do("POST", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, ""))
	if r.header.Get("Content-Encoding") != "" {
		t.Errorf("compressed without being asked")
	}
}

func TestResponseShape(t *testing.T) {
	env := mustSandbox(t)
	// The Node SDK sends the malformed Content-Type "charset=UTF-8"; GP accepts it.
	for _, ct := range []string{"charset=UTF-8", "", "application/json; charset=utf-8"} {
		h := map[string]string{}
		if ct != "" {
			h["Content-Type"] = ct
		}
		r := env.do("POST", "/accesstoken", h, tokenBody(partnerApp, partnerKey, ""))
		if r.status != 200 {
			t.Errorf("Content-Type %q: %d %s", ct, r.status, r.body)
		}
		if got := r.header.Get("Content-Type"); got != "application/json" {
			t.Errorf("response Content-Type %q", got)
		}
		if r.header.Get("X-Request-Id") == "" {
			t.Errorf("no X-Request-Id")
		}
	}
	// Header names are case-insensitive: lower-case x-gp-idempotency is the same header.
	tok := env.mustToken(partnerApp, partnerKey, "")
	h := apiHeader(tok)
	delete(h, "X-GP-Version")
	h["x-gp-version"] = version
	h["x-gp-idempotency"] = "lower"
	path := "/transactions/" + capturedOne + "/adjustment"
	if r := env.do("POST", path, h, `{"amount":"1"}`); r.status != 200 {
		t.Fatalf("lower-case headers: %d %s", r.status, r.body)
	}
	if r := env.do("POST", path, h, `{"amount":"1"}`); r.status != 409 {
		t.Errorf("lower-case idempotency key not honoured: %d", r.status)
	}
}

// A declared length over the limit is refused without reading the body.
func TestOversizeDeclaredBodyRefusedUnread(t *testing.T) {
	env := mustSandbox(t)
	req := "POST /accesstoken HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{"
	r := mustRawExchange(t, env.URL, req)
	if r.status != 413 || !strings.Contains(string(r.body), `"detailed_error_code":"40213"`) {
		t.Errorf("response to a 100 MiB declaration: %d %s", r.status, r.body)
	}
}

// State survives closing and reopening the database file.
func TestRestartKeepsState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.db")
	env := mustSandboxAt(t, path)
	tok := env.mustToken(partnerApp, partnerKey, "")
	adjust := "/transactions/" + capturedOne + "/adjustment"
	if r := env.do("POST", adjust, apiHeader(tok, "X-GP-Idempotency", "restart-key"), `{"gratuity_amount":"321"}`); r.status != 200 {
		t.Fatalf("adjust: %d %s", r.status, r.body)
	}
	order := env.do("POST", "/merchants/"+merchantOne+"/orders", apiHeader(tok), `{}`).json(t)["id"].(string)
	env.db.Close()

	env2 := mustSandboxAt(t, path) // fixtures are not reloaded over existing state
	if txn := env2.mustTransaction(capturedOne); txn.GratuityAmount != "321" {
		t.Errorf("gratuity after restart: %q", txn.GratuityAmount)
	}
	if o := env2.mustOrder(order); o.Status != "INITIATED" {
		t.Errorf("order after restart: %+v", o)
	}
	// The token still works and the key is still consumed.
	r := env2.do("POST", adjust, apiHeader(tok, "X-GP-Idempotency", "restart-key"), `{"gratuity_amount":"321"}`)
	if got := r.gpError(t); got.Status != 409 || got.Detail != "40039" {
		t.Errorf("after restart: %+v", got)
	}
}

// A 100 MiB chunked body (no declared length) is refused at the limit: the sandbox
// stops reading after the limit, so the client cannot push the rest.
func TestOversizeStreamedBodyRefusedAtTheLimit(t *testing.T) {
	env := mustSandbox(t)
	pr, pw := io.Pipe()
	var sent atomic.Int64
	go func() {
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		pw.Write([]byte(`{"app_id":"`))
		for sent.Load() < 100<<20 {
			n, err := pw.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", env.URL+"/accesstoken", pr)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	pr.CloseWithError(io.ErrClosedPipe) // stop the writer once answered
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 413 || !strings.Contains(string(body), "Request body is larger than 65536 bytes") {
		t.Errorf("streamed 100 MiB: %d %s", resp.StatusCode, body)
	}
	if n := sent.Load(); n >= 100<<20 {
		t.Errorf("the whole 100 MiB was accepted (%d bytes) before the answer", n)
	}
}

// A body that ends before its declared length is refused, never served as what came.
func TestBodyShorterThanDeclaredRefused(t *testing.T) {
	env := mustSandbox(t)
	conn := mustRawConn(t, env.URL)
	body := tokenBody(partnerApp, partnerKey, "")
	req := fmt.Sprintf("POST /accesstoken HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+10, body)
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	conn.CloseWrite() // the body ends here, 10 bytes early
	r := mustReadReply(t, conn)
	if r.status != 400 || !strings.Contains(string(r.body), `"detailed_error_code":"40213"`) {
		t.Errorf("response to a body 10 bytes short of its Content-Length: %d %s", r.status, r.body)
	}
}
