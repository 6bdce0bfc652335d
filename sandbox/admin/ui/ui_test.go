package ui_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/admin/ui"
)

func TestHandlerServesAssetsWithSecurityHeaders(t *testing.T) {
	srv := httptest.NewServer(ui.Handler())
	defer srv.Close()
	tests := []struct {
		path, status, contentType, contains string
	}{
		{"/", "200", "text/html", `<script type="module" src="app.js"></script>`},
		{"/app.js", "200", "text/javascript", "function el("},
		{"/app.css", "200", "text/css", ":root"},
		{"/favicon.svg", "200", "image/svg+xml", "<svg"},
		{"/nope.js", "404", "text/plain", "not found"},
	}
	for _, tt := range tests {
		resp, err := http.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.Status[:3]; got != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentType) ||
			!strings.Contains(string(body), tt.contains) {
			t.Errorf("%s: %s %s, body %.200s", tt.path, resp.Status, resp.Header.Get("Content-Type"), body)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: security headers %v", tt.path, resp.Header)
		}
	}
}

// TestScriptsNeverParseDataAsHTML: the page builds its DOM from text only, so a
// journaled body holding markup is shown, never run. Any HTML-parsing sink in the
// scripts, or an inline script the CSP would block anyway, fails this test.
func TestScriptsNeverParseDataAsHTML(t *testing.T) {
	sinks := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|createContextualFragment|DOMParser|srcdoc`)
	files, err := filepath.Glob("assets/*.js")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := sinks.FindAll(src, -1); len(m) > 0 {
			t.Errorf("%s uses %q", f, m)
		}
	}
	page, err := os.ReadFile("assets/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if inline := regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]|\son[a-z]+=`).Find(page); inline != nil {
		t.Errorf("index.html has an inline script or handler: %s", inline)
	}
}
