package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

// On loopback the admin API needs no setup; on an address other machines can reach
// it needs a token, or --admin-open / GPSANDBOX_ADMIN_OPEN to be open on purpose.
func TestAdminExposure(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		ok   bool
	}{
		{"loopback IPv4", []string{"--addr", "127.0.0.1:8080"}, nil, true},
		{"loopback IPv4, another address", []string{"--addr", "127.0.0.2:8080"}, nil, true},
		{"loopback IPv6", []string{"--addr", "[::1]:8080"}, nil, true},
		{"localhost", []string{"--addr", "localhost:8080"}, nil, true},
		{"default address", nil, nil, true},
		{"wildcard", []string{"--addr", "0.0.0.0:8080"}, nil, false},
		{"wildcard from the environment", nil, map[string]string{"GPSANDBOX_ADDR": "0.0.0.0:8080"}, false},
		{"no host", []string{"--addr", ":8080"}, nil, false},
		{"IPv6 wildcard", []string{"--addr", "[::]:8080"}, nil, false},
		{"a LAN address", []string{"--addr", "192.168.1.20:8080"}, nil, false},
		{"a host name", []string{"--addr", "sandbox.example:8080"}, nil, false},
		{"wildcard with a token", []string{"--addr", "0.0.0.0:8080", "--admin-token", "s3cret"}, nil, true},
		{"wildcard with a token from the environment", []string{"--addr", "0.0.0.0:8080"}, map[string]string{"GPSANDBOX_ADMIN_TOKEN": "s3cret"}, true},
		{"wildcard, open on purpose", []string{"--addr", "0.0.0.0:8080", "--admin-open"}, nil, true},
		{"wildcard, open on purpose from the environment", []string{"--addr", "0.0.0.0:8080"}, map[string]string{"GPSANDBOX_ADMIN_OPEN": "1"}, true},
		{"wildcard, the environment says not open", []string{"--addr", "0.0.0.0:8080"}, map[string]string{"GPSANDBOX_ADMIN_OPEN": "0"}, false},
		{"wildcard, the flag overrides the environment", []string{"--addr", "0.0.0.0:8080", "--admin-open=false"}, map[string]string{"GPSANDBOX_ADMIN_OPEN": "1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseServeFlags(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.ok && err != nil {
				t.Errorf("refused: %v", err)
			}
			if !tc.ok {
				if err == nil || exitCode(err) != 2 {
					t.Fatalf("err %v, want a usage error", err)
				}
				for _, want := range []string{"admin API", "--admin-token", "GPSANDBOX_ADMIN_TOKEN", "--admin-open", "GPSANDBOX_ADMIN_OPEN=1"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q does not name %s", err, want)
					}
				}
			}
		})
	}
}

// The refusal stops the program before it opens the database or listens.
func TestAdminExposureRefusesToStart(t *testing.T) {
	db := t.TempDir() + "/never.db"
	err := run(context.Background(), []string{"serve", "--addr", "0.0.0.0:0", "--db", db}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || exitCode(err) != 2 {
		t.Fatalf("err %v, want exit status 2", err)
	}
	if _, statErr := os.Stat(db); statErr == nil {
		t.Errorf("the database %s was created by a refused start", db)
	}
}

// An address without a port is a usage error naming the flag and an example, for serve
// and healthcheck, from the flag or the environment; never "reachable from other
// machines", which a loopback name is not.
func TestAddrWithoutPort(t *testing.T) {
	db := t.TempDir() + "/never.db"
	for _, tc := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"serve", "--db", db, "--addr", "localhost"}, nil},
		{[]string{"serve", "--db", db, "--addr", "127.0.0.1"}, nil},
		{[]string{"serve", "--db", db}, map[string]string{"GPSANDBOX_ADDR": "localhost"}},
		{[]string{"healthcheck", "--addr", "localhost"}, nil},
	} {
		err := run(context.Background(), tc.args, func(k string) string { return tc.env[k] }, io.Discard, io.Discard)
		if err == nil || exitCode(err) != 2 {
			t.Fatalf("%v %v: err %v, want exit status 2", tc.args, tc.env, err)
		}
		for _, want := range []string{"--addr", "missing port in address", "--addr 127.0.0.1:8080"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v %v: message %q lacks %q", tc.args, tc.env, err, want)
			}
		}
		if strings.Contains(err.Error(), "other machines") {
			t.Errorf("%v %v: message %q calls the address reachable from other machines", tc.args, tc.env, err)
		}
		if _, statErr := os.Stat(db); statErr == nil {
			t.Errorf("%v: the database was created by a refused start", tc.args)
		}
	}
}
