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

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

func TestBaseURLForms(t *testing.T) {
	env := mustSandbox(t)
	for _, path := range []string{"/accesstoken", "/ucp/accesstoken", "//accesstoken", "/ucp//accesstoken", "//ucp/accesstoken"} {
		r := env.Do("POST", path, apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""))
		if r.Status != 200 {
			t.Errorf("%s: %d %s (want 200, never a redirect)", path, r.Status, r.Body)
		}
	}
}

func TestGzipWhenAsked(t *testing.T) {
	env := mustSandbox(t)
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"success", apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""), 200},
		{"error", apitest.TokenBody(apitest.PartnerApp, "bad", ""), 403},
	} {
		h := apitest.JSONHeader()
		h["Accept-Encoding"] = "gzip, deflate"
		r := env.Do("POST", "/accesstoken", h, tc.body)
		if r.Status != tc.status || r.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: status %d encoding %q", tc.name, r.Status, r.Header.Get("Content-Encoding"))
		}
		r.JSON(t) // decompressed body is a JSON object
	}
	r := env.Do("POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""))
	if r.Header.Get("Content-Encoding") != "" {
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
		r := env.Do("POST", "/accesstoken", h, apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""))
		if r.Status != 200 {
			t.Errorf("Content-Type %q: %d %s", ct, r.Status, r.Body)
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("response Content-Type %q", got)
		}
		if r.Header.Get("X-Request-Id") == "" {
			t.Errorf("no X-Request-Id")
		}
	}
	// Header names are case-insensitive: lower-case x-gp-idempotency is the same header.
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	h := apitest.APIHeader(tok)
	delete(h, "X-GP-Version")
	h["x-gp-version"] = apitest.Version
	h["x-gp-idempotency"] = "lower"
	path := "/transactions/" + apitest.CapturedOne + "/adjustment"
	if r := env.Do("POST", path, h, `{"amount":"1"}`); r.Status != 200 {
		t.Fatalf("lower-case headers: %d %s", r.Status, r.Body)
	}
	if r := env.Do("POST", path, h, `{"amount":"1"}`); r.Status != 409 {
		t.Errorf("lower-case idempotency key not honoured: %d", r.Status)
	}
}

// A declared length over the limit is refused without reading the body.
func TestOversizeDeclaredBodyRefusedUnread(t *testing.T) {
	env := mustSandbox(t)
	req := "POST /accesstoken HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{"
	r := mustRawExchange(t, env.URL, req)
	if r.Status != 413 || !strings.Contains(string(r.Body), `"detailed_error_code":"40213"`) {
		t.Errorf("response to a 100 MiB declaration: %d %s", r.Status, r.Body)
	}
}

// State survives closing and reopening the database file.
func TestRestartKeepsState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.db")
	env := mustSandboxAt(t, path)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	adjust := "/transactions/" + apitest.CapturedOne + "/adjustment"
	if r := env.Do("POST", adjust, apitest.APIHeader(tok, "X-GP-Idempotency", "restart-key"), `{"gratuity_amount":"321"}`); r.Status != 200 {
		t.Fatalf("adjust: %d %s", r.Status, r.Body)
	}
	order := env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok), `{}`).JSON(t)["id"].(string)
	env.DB.Close()

	env2 := mustSandboxAt(t, path) // fixtures are not reloaded over existing state
	if txn := env2.mustTransaction(apitest.CapturedOne); txn.GratuityAmount != "321" {
		t.Errorf("gratuity after restart: %q", txn.GratuityAmount)
	}
	if o := env2.mustOrder(order); o.Status != "INITIATED" {
		t.Errorf("order after restart: %+v", o)
	}
	// The token still works and the key is still consumed.
	r := env2.Do("POST", adjust, apitest.APIHeader(tok, "X-GP-Idempotency", "restart-key"), `{"gratuity_amount":"321"}`)
	if got := r.GPError(t); got.Status != 409 || got.Detail != "40039" {
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
	body := apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, "")
	req := fmt.Sprintf("POST /accesstoken HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+10, body)
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	conn.CloseWrite() // the body ends here, 10 bytes early
	r := mustReadReply(t, conn)
	if r.Status != 400 || !strings.Contains(string(r.Body), `"detailed_error_code":"40213"`) {
		t.Errorf("response to a body 10 bytes short of its Content-Length: %d %s", r.Status, r.Body)
	}
}
