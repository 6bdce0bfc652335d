package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthcheckHealthy(t *testing.T) {
	base, stop := mustRun(t, "--db", ":memory:")
	defer stop()
	hostport := strings.TrimPrefix(base, "http://")
	_, port, _ := net.SplitHostPort(hostport)

	// By flag, by environment (as the container's HEALTHCHECK does), and through the
	// wildcard address the container listens on.
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"flag", []string{"--addr", hostport}, nil},
		{"env", nil, map[string]string{"GPSANDBOX_ADDR": hostport}},
		{"wildcard", nil, map[string]string{"GPSANDBOX_ADDR": "0.0.0.0:" + port}},
	} {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"healthcheck"}, tc.args...), func(k string) string { return tc.env[k] }, &out, &out)
		if err != nil || strings.TrimSpace(out.String()) != "ok" {
			t.Errorf("%s: err %v, output %q", tc.name, err, out.String())
		}
	}
}

func TestHealthcheckUnhealthy(t *testing.T) {
	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"status":"starting"}`))
	}))
	defer starting.Close()
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`hello`))
	}))
	defer notJSON.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there any more

	for name, addr := range map[string]string{
		"starting": strings.TrimPrefix(starting.URL, "http://"),
		"not json": strings.TrimPrefix(notJSON.URL, "http://"),
		"refused":  closed,
	} {
		err := run(context.Background(), []string{"healthcheck", "--addr", addr}, func(string) string { return "" }, new(bytes.Buffer), new(bytes.Buffer))
		if err == nil || exitCode(err) != 1 {
			t.Errorf("%s: err %v, want exit status 1", name, err)
		}
	}
	err = run(context.Background(), []string{"healthcheck", "--addr", "no-port"}, func(string) string { return "" }, new(bytes.Buffer), new(bytes.Buffer))
	if err == nil || exitCode(err) != 2 {
		t.Errorf("bad address: err %v, want a usage error", err)
	}
}

func TestHealthURL(t *testing.T) {
	for _, tc := range []struct {
		addr string
		tls  bool
		want string
	}{
		{"127.0.0.1:8080", false, "http://127.0.0.1:8080/_sandbox/health"},
		{"0.0.0.0:8080", false, "http://127.0.0.1:8080/_sandbox/health"},
		{":8080", false, "http://127.0.0.1:8080/_sandbox/health"},
		{"[::]:8443", true, "https://127.0.0.1:8443/_sandbox/health"},
		{"[::1]:8080", false, "http://[::1]:8080/_sandbox/health"},
		{"localhost:443", true, "https://localhost:443/_sandbox/health"},
	} {
		if got, err := healthURL(tc.addr, tc.tls); err != nil || got != tc.want {
			t.Errorf("healthURL(%q, %v) = %q, %v; want %q", tc.addr, tc.tls, got, err, tc.want)
		}
	}
}
