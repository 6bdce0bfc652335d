package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// healthTimeout bounds the whole probe: a container health check that hangs is worse
// than one that fails.
const healthTimeout = 3 * time.Second

// healthcheck asks a running sandbox for GET /_sandbox/health and succeeds only on
// {"status":"ok"}. It exists because the container image is FROM scratch: there is no
// curl or wget to put in a HEALTHCHECK, so the binary probes itself.
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("healthcheck", stderr)
	addr := fs.String("addr", envOr(getenv, "GPSANDBOX_ADDR", defaultAddr), "address of the sandbox to probe (GPSANDBOX_ADDR)")
	useTLS := fs.Bool("tls", envBool(getenv, "GPSANDBOX_TLS"), "the sandbox serves HTTPS (GPSANDBOX_TLS)")
	if err := parseFlags(fs, args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	url, err := healthURL(*addr, *useTLS)
	if err != nil {
		return usageError(err.Error())
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if err := probe(ctx, url); err != nil {
		return fmt.Errorf("unhealthy: %w", err)
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}

// healthURL turns a listen address into the URL to probe. A wildcard host (0.0.0.0,
// [::] or none at all, as in ":8080") is where the server listens, not an address to
// dial, so the probe dials the loopback address instead.
func healthURL(addr string, useTLS bool) (string, error) {
	if err := checkAddr(addr); err != nil {
		return "", err
	}
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/_sandbox/health", nil
}

func probe(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{
		// The probe checks that this very process answers, not who it is: the
		// certificate is the sandbox's own, generated at start and unknown here.
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
		DisableKeepAlives: true,
		Proxy:             nil, // never send a health probe through HTTP_PROXY
	}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&body); err != nil {
		return fmt.Errorf("%s answered %d with no JSON status: %v", url, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || body.Status != "ok" {
		return fmt.Errorf("%s answered %d with status %q", url, resp.StatusCode, body.Status)
	}
	return nil
}
