package api

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// GPTransportErrors wraps a plain-HTTP listener so that the answers Go's HTTP server
// writes by itself, before any handler runs, are GP errors in JSON rather than
// text/plain: 431 (headers too large), 400 (a bad or duplicate Content-Length, bad
// header bytes, a missing Host, a malformed request line), 501 (an unknown
// Transfer-Encoding) and 505 (an unknown HTTP version). The status stays the
// server's; the body is INVALID_REQUEST_DATA 40213 naming the problem. Under TLS the
// server encrypts those answers before a listener sees them, so they stay text/plain
// there.
func GPTransportErrors(ln net.Listener) net.Listener { return transportErrorListener{ln} }

type transportErrorListener struct{ net.Listener }

func (l transportErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return transportErrorConn{c}, nil
}

// transportErrorConn rewrites the server's canned error answers as they are written.
type transportErrorConn struct{ net.Conn }

func (c transportErrorConn) Write(p []byte) (int, error) {
	gp, ok := gpTransportAnswer(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(gp); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite keeps the half-close the server does after a 431 (so the client reads
// the answer before the connection goes).
func (c transportErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// cannedHeaders follow the status line of every answer net/http writes by itself.
// A handler's answer never has them right after its status line: the server writes
// handler headers in key order, with Connection before Content-Type.
const cannedHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// gpTransportAnswer returns the GP answer for one of the server's canned answers, or
// false when p is anything else.
func gpTransportAnswer(p []byte) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	if !bytes.HasPrefix(p, []byte(proto)) {
		return nil, false
	}
	eol := bytes.Index(p, []byte("\r\n"))
	if eol < len(proto)+3 || !bytes.HasPrefix(p[eol:], []byte(cannedHeaders)) {
		return nil, false
	}
	status, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil {
		return nil, false
	}
	detail := string(p[eol+len(cannedHeaders):])
	body, _ := json.Marshal(sandbox.MalformedRequest(transportDescription(status, detail)))
	var b bytes.Buffer
	b.WriteString(proto + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	b.WriteString("Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n")
	b.Write(body)
	return b.Bytes(), true
}

// transportDescription names the problem; net/http says what it was only for some
// (a missing Host, an unknown version), and hides the rest on purpose.
func transportDescription(status int, detail string) string {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return "Request headers are larger than the server accepts"
	case http.StatusNotImplemented:
		return "Transfer-Encoding contains unexpected data"
	case http.StatusHTTPVersionNotSupported:
		return "HTTP version is not supported"
	}
	if _, text, ok := bytes.Cut([]byte(detail), []byte(": ")); ok {
		return "Request is malformed: " + string(text)
	}
	return "Request is malformed (request line, Content-Length or header bytes)"
}
