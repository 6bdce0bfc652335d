package web

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
)

// WriteBody's headers, whatever the response already had: Content-Type and
// Content-Length replace any earlier value (the length the compressed one under
// gzip), Vary is added to.
func TestWriteBodyHeaders(t *testing.T) {
	body := []byte(`{"id":"TRN_1"}`)
	tests := []struct {
		name   string
		before http.Header
		gzip   bool
	}{
		{"empty", http.Header{}, false},
		{"a Vary already", http.Header{"Vary": {"Origin"}}, false},
		{"an empty Vary", http.Header{"Vary": {}}, false},
		{"old values replaced", http.Header{"Content-Type": {"text/plain"}, "Content-Length": {"1", "2"}, "X-Request-Id": {"r"}}, false},
		{"gzip", http.Header{"Vary": {"Origin"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if tt.gzip {
				r.Header.Set("Accept-Encoding", "gzip")
			}
			w := httptest.NewRecorder()
			maps.Copy(w.Header(), tt.before.Clone())
			WriteBody(w, r, http.StatusOK, body)

			want := tt.before.Clone()
			want.Set("Content-Type", "application/json")
			want.Add("Vary", "Accept-Encoding")
			if tt.gzip {
				want.Set("Content-Encoding", "gzip")
				want.Set("Content-Length", strconv.Itoa(w.Body.Len()))
			} else {
				want.Set("Content-Length", strconv.Itoa(len(body)))
			}
			got := w.Result().Header
			if !maps.EqualFunc(got, want, slices.Equal) {
				t.Errorf("headers\n got %v\nwant %v", got, want)
			}
		})
	}
}
