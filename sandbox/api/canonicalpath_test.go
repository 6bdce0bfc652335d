package api

import (
	"net/url"
	"testing"
)

// The short way of setCanonicalPath leaves a URL as the segment-by-segment escaping
// does: the same path, the same escaped path (what the router matches) and the same
// answer to whether it holds an encoded slash.
func TestCanonicalPathShortWayIsTheLongWay(t *testing.T) {
	for _, target := range []string{
		"/transactions/TRN_1/adjustment", "/merchants/MER_1/transactions/TRN_1/adjustment", "/", "/accesstoken",
		"/transactions/a!b/adjustment", "/transactions/a'b(c)*d[e]/capture", "/transactions/a$b&c+d=e:f@g/refund",
		"/transactions/a;b/adjustment", "/transactions/a,b/adjustment", "/transactions/a%2Fb/adjustment",
		"/transactions/a%2fb/adjustment", "/transactions/adjustmen%74", "/transactions/%41%42", "/a%20b",
		"/transactions/é/x", "/transactions/%C3%A9/x", "/a b", "//transactions//TRN_1", "/ucp", "/ucp/", "/ucp/accesstoken",
		"/ucpx/accesstoken", "/_sandbox/health", "/%5Fsandbox/health", "/x~y-z_.w", "*", "/a*b",
	} {
		short, err := url.ParseRequestURI(target)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		long := *short
		setCanonicalPath(short)
		escapeSegments(&long, long.EscapedPath())
		if short.Path != long.Path || short.EscapedPath() != long.EscapedPath() || hasEncodedSlash(short.RawPath) != hasEncodedSlash(long.RawPath) {
			t.Errorf("%s: path %q escaped %q raw %q; the long way gives %q, %q, %q",
				target, short.Path, short.EscapedPath(), short.RawPath, long.Path, long.EscapedPath(), long.RawPath)
		}
	}
}
