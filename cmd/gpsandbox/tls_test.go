package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// TestTLSGeneratedCertificate serves HTTPS with a certificate generated at start and
// talks to it as an SDK would: verifying the chain against the CA written by
// --tls-ca-out, for every name the certificate is issued to.
func TestTLSGeneratedCertificate(t *testing.T) {
	caPath := filepath.Join(t.TempDir(), "ca.pem")
	// The CA file is written before the sandbox reports that it listens, so the health
	// poll can read it then.
	base, stop := mustRunWith(t, lazyTrust(t, caPath), "--db", ":memory:", "--tls", "--tls-ca-out", caPath)
	defer stop()
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("base %q, want https on the loopback address", base)
	}
	client := trustingClient(t, mustReadFile(t, caPath))
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "https://"))

	for _, host := range []string{"localhost", "127.0.0.1"} {
		url := "https://" + host + ":" + port + "/ucp/accesstoken"
		if status := tlsPost(t, client, url); status != http.StatusOK {
			t.Errorf("%s: status %d", url, status)
		}
	}
	// The sandbox listens on 127.0.0.1 here; that the certificate also covers ::1 is
	// checked on the certificate it presented.
	resp, err := client.Get("https://localhost:" + port + "/_sandbox/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := resp.TLS.PeerCertificates[0].VerifyHostname("::1"); err != nil {
		t.Errorf("certificate not valid for ::1: %v", err)
	}

	// Without the CA the chain does not verify: the test above really verified it.
	_, err = (&http.Client{Timeout: time.Until(testrun.Deadline(t))}).Get("https://localhost:" + port + "/_sandbox/health")
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("untrusted client: err %v, want x509.UnknownAuthorityError", err)
	}

	// The container's HEALTHCHECK speaks HTTPS when GPSANDBOX_TLS is set.
	env := map[string]string{"GPSANDBOX_ADDR": "0.0.0.0:" + port, "GPSANDBOX_TLS": "1"}
	if err := run(context.Background(), []string{"healthcheck"}, func(k string) string { return env[k] }, new(bytes.Buffer), new(bytes.Buffer)); err != nil {
		t.Errorf("healthcheck over TLS: %v", err)
	}
}

// TestTLSCertificateFiles serves HTTPS with --tls-cert and --tls-key.
func TestTLSCertificateFiles(t *testing.T) {
	cert, caPEM, err := generateCertificate(time.Now(), tlsHosts)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var chain []byte
	for _, der := range cert.Certificate {
		chain = append(chain, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	mustWriteFile(t, certFile, chain)
	mustWriteFile(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))

	client := trustingClient(t, caPEM)
	base, stop := mustRunWith(t, client, "--db", ":memory:", "--tls-cert", certFile, "--tls-key", keyFile)
	defer stop()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "https://"))
	if status := tlsPost(t, client, "https://localhost:"+port+"/accesstoken"); status != http.StatusOK {
		t.Errorf("status %d", status)
	}
}

func TestTLSFlagsRejected(t *testing.T) {
	for _, args := range [][]string{
		{"--tls-cert", "c.pem"},
		{"--tls-key", "k.pem"},
		{"--tls-ca-out", "ca.pem"},
		{"--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-ca-out", "ca.pem"},
	} {
		err := run(context.Background(), append([]string{"serve"}, args...), func(string) string { return "" }, new(bytes.Buffer), new(bytes.Buffer))
		if err == nil || exitCode(err) != 2 {
			t.Errorf("%v: err %v, want a usage error", args, err)
		}
	}
}

// A certificate or key file that is no PEM is named with its flag.
func TestTLSFileThatIsNoPEM(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"serve", "--db", ":memory:", "--addr", "127.0.0.1:0", "--tls-cert", notPEM, "--tls-key", notPEM},
		func(string) string { return "" }, new(bytes.Buffer), new(bytes.Buffer))
	if want := "--tls-cert " + notPEM + " with --tls-key " + notPEM + ": tls: failed to find any PEM data"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// trustingClient trusts only the CA in caPEM (none when nil); verification stays on.
func trustingClient(t *testing.T, caPEM []byte) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if caPEM != nil && !pool.AppendCertsFromPEM(caPEM) {
		t.Fatalf("no certificate in CA PEM")
	}
	return &http.Client{Timeout: time.Until(testrun.Deadline(t)), Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool},
	}}
}

// lazyTrust is a client that trusts the CA at caPath, read at each request, for a
// sandbox that writes it only once started.
func lazyTrust(t *testing.T, caPath string) *http.Client {
	return &http.Client{Timeout: time.Until(testrun.Deadline(t)), Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		pem, err := os.ReadFile(caPath)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}
		return tr.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func tlsPost(t *testing.T, client *http.Client, url string) int {
	t.Helper()
	nonce := "tls"
	body := `{"app_id":"SandboxPartnerAppId0000000000001","nonce":"` + nonce + `","secret":"` +
		sandbox.Secret(nonce, "SandboxAppKey001") + `","grant_type":"client_credentials"}`
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	resp.Body.Close()
	if resp.TLS == nil || len(resp.TLS.VerifiedChains) == 0 {
		t.Errorf("%s: no verified chain", url)
	}
	return resp.StatusCode
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustWriteFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestCertificateHosts(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want []string
	}{
		{"127.0.0.1:8080", tlsHosts},
		{"localhost:443", tlsHosts},
		{"LOCALHOST:443", tlsHosts},
		{"[::1]:443", tlsHosts},
		{"[0:0:0:0:0:0:0:1]:443", tlsHosts},
		{"0.0.0.0:443", tlsHosts},
		{"[::]:443", tlsHosts},
		{":443", tlsHosts},
		{"not an address", tlsHosts},
		{"127.31.7.200:443", append(append([]string(nil), tlsHosts...), "127.31.7.200")},
		{"sandbox.test:443", append(append([]string(nil), tlsHosts...), "sandbox.test")},
	} {
		if got := certificateHosts(tc.addr); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("certificateHosts(%q) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

// TestTLSCertificateForListenHost checks that the generated certificate verifies, with
// the written CA, for the host of the listen address: what a client dialling
// https://127.31.7.200/ucp checks when the sandbox listens on 127.31.7.200:443.
func TestTLSCertificateForListenHost(t *testing.T) {
	caPath := filepath.Join(t.TempDir(), "ca.pem")
	cfg, err := serverTLS(tlsConfig{on: true, caOut: caPath}, "127.31.7.200:443", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(mustReadFile(t, caPath)) {
		t.Fatal("no certificate in the written CA file")
	}
	leaf, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.31.7.200", "localhost", "127.0.0.1", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "127.31.7.201", Roots: roots}); err == nil {
		t.Error("certificate also valid for 127.31.7.201, want only the listen host and the loopback names")
	}
}

// --tls-ca-out replaces an empty file or an earlier CA certificate, and nothing else:
// a database given there by mistake is refused and left as it was.
func TestTLSCAOutOverwritesNoOtherFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "run.db")
	base, stop := mustRun(t, "--db", db)
	mustIssueToken(t, base)
	stop()
	before := mustReadFile(t, db)
	_, err := runOnce(t, "--addr", "127.0.0.1:0", "--db", ":memory:", "--tls", "--tls-ca-out", db)
	if err == nil || !strings.Contains(err.Error(), "is no PEM certificate: it is not overwritten") {
		t.Errorf("--tls-ca-out over a database: %v", err)
	}
	if after := mustReadFile(t, db); !bytes.Equal(after, before) {
		t.Errorf("the database file changed: %d bytes before, %d after", len(before), len(after))
	}
	empty := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // an empty file, then the CA the first start wrote
		base, stop := mustRunWith(t, lazyTrust(t, empty), "--db", ":memory:", "--tls", "--tls-ca-out", empty)
		stop()
		if pem := mustReadFile(t, empty); !bytes.HasPrefix(pem, []byte("-----BEGIN CERTIFICATE-----")) {
			t.Errorf("%s: CA file %.40q", base, pem)
		}
	}
}
