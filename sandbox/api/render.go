package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// writeBody is the one place a response leaves the sandbox: every body is a JSON
// object, and it is gzip-compressed when the client accepts gzip (the official Node
// SDK only reads error codes out of a compressed body).
func writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	if info := infoOf(r); info != nil {
		info.status, info.response, info.responseHeader = status, body, h
	}
	h.Set("Content-Type", "application/json")
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		buf := gzipBody(body)
		defer gzipBuffers.Put(buf)
		h.Set("Content-Encoding", "gzip")
		body = buf.Bytes()
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// writeError renders err as a GP error. Anything that is not a catalogue error is the
// sandbox's own failure: logged with the request id, shown as SYSTEM_ERROR only.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := errorResponse(r, err)
	writeBody(w, r, status, body)
}

// errorResponse is the status and body of err as writeError sends them, noting the
// error on the request's log record.
func errorResponse(r *http.Request, err error) (int, []byte) {
	gp, ok := sandbox.AsError(err)
	if !ok {
		if info := infoOf(r); info != nil {
			info.cause = err
		}
		gp = sandbox.SystemError()
	}
	if info := infoOf(r); info != nil {
		info.errorCode = gp.Code
		info.errorDetail = gp.Detail
	}
	body, _ := json.Marshal(gp) // three strings: cannot fail
	return statusOf(err), body
}

// acceptsGzip reports whether Accept-Encoding lists gzip without q=0.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
				continue
			}
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

var gzipBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

func gzipBody(body []byte) *bytes.Buffer {
	buf := gzipBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(buf)
	zw.Write(body)
	zw.Close()
	gzipWriters.Put(zw)
	return buf
}
