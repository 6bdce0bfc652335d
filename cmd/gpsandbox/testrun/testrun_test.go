package testrun

import (
	"io"
	"strings"
	"testing"
)

func TestBaseURL(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"gpsandbox dev listening on http://127.0.0.1:4242\nmore", "http://127.0.0.1:4242"},
		{"gpsandbox 1.2.0 listening on https://[::1]:8443\r\n", "https://[::1]:8443"},
		{"gpsandbox dev listening on http://127.0.0.1:8080 (API http://127.0.0.1:8080/ucp, inspector http://127.0.0.1:8080/_sandbox/ui/, database /d/gpsandbox.db)\n", "http://127.0.0.1:8080"},
	} {
		r := strings.NewReader(tc.out)
		got, err := BaseURL(r)
		if err != nil || got != tc.want {
			t.Errorf("%q: %q %v, want %q", tc.out, got, err, tc.want)
		}
		// Nothing past the first line is consumed.
		rest, _ := io.ReadAll(r)
		if _, after, _ := strings.Cut(tc.out, "\n"); string(rest) != after {
			t.Errorf("%q: left %q, want %q", tc.out, rest, after)
		}
	}
	for _, out := range []string{"", "gpsandbox dev listening on http://127.0.0.1:1", "listen tcp: address in use\n",
		"gpsandbox dev listening on 127.0.0.1:1\n"} {
		if got, err := BaseURL(strings.NewReader(out)); err == nil {
			t.Errorf("%q: %q, want an error", out, got)
		}
	}
}
