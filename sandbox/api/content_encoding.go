package api

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// decodeRequestBody replaces the body of a request sent with "Content-Encoding: gzip"
// by its decoded bytes, so that every reader (the journal, the body decoder) sees the
// JSON and the body limit counts decoded bytes: a gzip bomb stops at the limit and is
// 413. The compressed stream is bounded by the same limit, since deflate can pad a
// small body with any number of empty blocks. An encoding other than gzip or identity
// makes the body unreadable with 40213 naming Content-Encoding [SB]: reading it as
// plain JSON would be a guess.
func (s *Server) decodeRequestBody(r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	switch contentCoding(r.Header.Values("Content-Encoding")) {
	case "":
		return
	case "gzip":
		compressed := &limitedReader{r: r.Body, left: s.maxBody, tooLarge: s.bodyTooLarge()}
		r.Body = readCloser{&gzipRequestBody{src: compressed}, r.Body}
		r.ContentLength = -1 // the declared length was the compressed one
	default:
		r.Body = readCloser{errReader{sandbox.InvalidField("Content-Encoding")}, r.Body}
		r.ContentLength = -1
	}
}

// contentCoding reduces Content-Encoding to "" (none or identity only), "gzip", or
// "unsupported" (anything else, including several codings).
func contentCoding(values []string) string {
	var codings []string
	for _, v := range values {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	switch {
	case len(codings) == 0:
		return ""
	case len(codings) == 1 && (codings[0] == "gzip" || codings[0] == "x-gzip"):
		return "gzip"
	}
	return "unsupported"
}

// gzipRequestBody decodes a gzip stream on first read. A broken stream reads as
// errBrokenEncoding, which the body reader answers as a body it cannot read.
type gzipRequestBody struct {
	src io.Reader
	zr  *gzip.Reader
	err error
}

var errBrokenEncoding = errors.New("request body: broken gzip stream")

func (g *gzipRequestBody) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, err := gzip.NewReader(g.src)
		if err != nil {
			g.err = brokenUnlessRefused(err)
			return 0, g.err
		}
		zr.Multistream(false) // one member is one body; what follows is not read
		g.zr = zr
	}
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		g.err = brokenUnlessRefused(err)
		return n, g.err
	}
	return n, err
}

// brokenUnlessRefused keeps a GP error from the compressed stream's limit (with the
// status it was raised with) and turns anything else into errBrokenEncoding.
func brokenUnlessRefused(err error) error {
	if _, ok := sandbox.AsError(err); ok {
		return err
	}
	return errBrokenEncoding
}

// bodyTooLarge is the answer to a body over the limit: 413, the status its error code
// does not say.
func (s *Server) bodyTooLarge() error {
	return withStatus(http.StatusRequestEntityTooLarge, sandbox.BodyTooLarge(s.maxBody))
}

// limitedReader reads at most left bytes and then fails with tooLarge.
type limitedReader struct {
	r        io.Reader
	left     int64
	tooLarge error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, l.tooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, l.tooLarge
	}
	return n, err
}
