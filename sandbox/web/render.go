package web

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

// WriteBody is the one place a response leaves the sandbox: every body is a JSON
// object, and it is gzip-compressed when the client accepts gzip (the official Node
// SDK only reads error codes out of a compressed body).
func WriteBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	if rec := RecordOf(r); rec != nil {
		rec.Status, rec.Response, rec.ResponseHeader = status, body, h
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

// WriteError renders err as a GP error. Anything that is not a catalogue error is the
// sandbox's own failure: logged with the request id, shown as SYSTEM_ERROR only.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := ErrorResponse(r, err)
	WriteBody(w, r, status, body)
}

// ErrorResponse is the status and body of err as WriteError sends them, noting the
// error on the request's log record.
func ErrorResponse(r *http.Request, err error) (int, []byte) {
	gp, ok := sandbox.AsError(err)
	if !ok {
		if rec := RecordOf(r); rec != nil {
			rec.Cause = err
		}
		gp = sandbox.SystemError()
	}
	if rec := RecordOf(r); rec != nil {
		rec.ErrorCode = gp.Code
		rec.ErrorDetail = gp.Detail
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
