package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"slices"
	"strings"
	"time"
)

// Validity of the generated certificates. The leaf stays under the 398 days some TLS
// clients accept for a server certificate; the sandbox makes a new pair at every start.
const (
	caValidity   = 397 * 24 * time.Hour
	leafValidity = 397 * 24 * time.Hour
	clockSkew    = time.Hour // valid from an hour ago, for a client whose clock is behind
)

// tlsHosts are the names the generated certificate is always valid for: the official
// SDKs are given https://localhost/ucp, some clients dial the loopback address directly.
var tlsHosts = []string{"localhost", "127.0.0.1", "::1"}

// certificateHosts are tlsHosts and the host of the listen address, when it names one
// (not a wildcard). The Node SDK reaches only port 443 and takes no port in its service
// URL, so two sandboxes on one machine each listen on 443 of their own loopback address
// (127.0.0.2, 127.3.4.5, ...) or host name, and the SDK checks the certificate against it.
func certificateHosts(addr string) []string {
	hosts := append([]string(nil), tlsHosts...)
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return hosts
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsUnspecified() {
		return hosts
	}
	if slices.ContainsFunc(hosts, func(h string) bool { return strings.EqualFold(h, host) || ip != nil && ip.Equal(net.ParseIP(h)) }) {
		return hosts
	}
	return append(hosts, host)
}

// serverTLS builds the HTTPS configuration, or returns nil when TLS is off. Without
// certificate files it generates a private CA and a leaf for the certificateHosts of
// addr signed by it, and writes the CA certificate to c.caOut when asked, so that a
// client can trust exactly this sandbox (NODE_EXTRA_CA_CERTS, a Java trust store, an
// x509.CertPool) without turning verification off.
func serverTLS(c tlsConfig, addr string, now time.Time) (*tls.Config, error) {
	if !c.on {
		return nil, nil
	}
	var cert tls.Certificate
	var err error
	if c.certFile != "" {
		cert, err = tls.LoadX509KeyPair(c.certFile, c.keyFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert %s with --tls-key %s: %w", c.certFile, c.keyFile, err)
		}
	} else {
		var caPEM []byte
		cert, caPEM, err = generateCertificate(now, certificateHosts(addr))
		if err != nil {
			return nil, fmt.Errorf("tls: generate certificate: %w", err)
		}
		if c.caOut != "" {
			if err := writeCA(c.caOut, caPEM); err != nil {
				return nil, fmt.Errorf("tls: write CA certificate: %w", err)
			}
		}
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// writeCA writes the CA certificate to path. A file already there is replaced only
// when it is empty or a PEM certificate, the CA of an earlier start: any other (a
// database, a lock file, a document) is refused and left as it was.
func writeCA(path string, caPEM []byte) error {
	if f, err := os.Open(path); err == nil {
		head := make([]byte, 64)
		n, err := io.ReadFull(f, head)
		_ = f.Close()
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return err
		}
		if n > 0 && !bytes.HasPrefix(bytes.TrimLeft(head[:n], " \t\r\n"), []byte("-----BEGIN CERTIFICATE-----")) {
			return fmt.Errorf("%s exists and is no PEM certificate: it is not overwritten; name a new file", path)
		}
	}
	return os.WriteFile(path, caPEM, 0o644)
}

// generateCertificate makes a self-signed CA and a server certificate for hosts signed
// by it. It returns the server certificate (leaf, then CA, so clients get the chain)
// and the CA certificate as PEM.
func generateCertificate(now time.Time, hosts []string) (tls.Certificate, []byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"gp-sandbox"}, CommonName: "gp-sandbox local CA"},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return tls.Certificate{}, nil, err
	}

	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{Organization: []string{"gp-sandbox"}, CommonName: hosts[0]},
		NotBefore:    now.Add(-clockSkew),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leafTmpl.IPAddresses = append(leafTmpl.IPAddresses, ip)
		} else {
			leafTmpl.DNSNames = append(leafTmpl.DNSNames, h)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	cert := tls.Certificate{Certificate: [][]byte{leafDER, caDER}, PrivateKey: leafKey}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), nil
}

// serial is a random 128-bit certificate serial number, as RFC 5280 recommends.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n
}
