package web

import (
	"net/url"
	"testing"
)

// setCanonicalPath folds doubled slashes, drops the /ucp prefix, reads escapes again
// and escapes each segment the standard way, an encoded slash kept escaped: the path,
// the escaped path (what the router matches) and whether it holds an encoded slash.
func TestCanonicalPath(t *testing.T) {
	for _, tt := range []struct {
		target, path, escaped string
		encodedSlash          bool
	}{
		{"/transactions/TRN_1/adjustment", "/transactions/TRN_1/adjustment", "/transactions/TRN_1/adjustment", false},
		{"/merchants/MER_1/transactions/TRN_1/adjustment", "/merchants/MER_1/transactions/TRN_1/adjustment", "/merchants/MER_1/transactions/TRN_1/adjustment", false},
		{"/", "/", "/", false},
		{"/accesstoken", "/accesstoken", "/accesstoken", false},
		{"/transactions/a!b/adjustment", "/transactions/a!b/adjustment", "/transactions/a%21b/adjustment", false},
		{"/transactions/a'b(c)*d[e]/capture", "/transactions/a'b(c)*d[e]/capture", "/transactions/a%27b%28c%29%2Ad%5Be%5D/capture", false},
		{"/transactions/a$b&c+d=e:f@g/refund", "/transactions/a$b&c+d=e:f@g/refund", "/transactions/a$b&c+d=e:f@g/refund", false},
		{"/transactions/a;b/adjustment", "/transactions/a;b/adjustment", "/transactions/a%3Bb/adjustment", false},
		{"/transactions/a,b/adjustment", "/transactions/a,b/adjustment", "/transactions/a%2Cb/adjustment", false},
		{"/transactions/a%2Fb/adjustment", "/transactions/a/b/adjustment", "/transactions/a%2Fb/adjustment", true},
		{"/transactions/a%2fb/adjustment", "/transactions/a/b/adjustment", "/transactions/a%2Fb/adjustment", true},
		{"/transactions/adjustmen%74", "/transactions/adjustment", "/transactions/adjustment", false},
		{"/transactions/%41%42", "/transactions/AB", "/transactions/AB", false},
		{"/a%20b", "/a b", "/a%20b", false},
		{"/transactions/é/x", "/transactions/é/x", "/transactions/%C3%A9/x", false},
		{"/transactions/%C3%A9/x", "/transactions/é/x", "/transactions/%C3%A9/x", false},
		{"/a b", "/a b", "/a%20b", false},
		{"//transactions//TRN_1", "/transactions/TRN_1", "/transactions/TRN_1", false},
		{"/ucp", "/", "/", false},
		{"/ucp/", "/", "/", false},
		{"/ucp/accesstoken", "/accesstoken", "/accesstoken", false},
		{"/ucpx/accesstoken", "/ucpx/accesstoken", "/ucpx/accesstoken", false},
		{"/_sandbox/health", "/_sandbox/health", "/_sandbox/health", false},
		{"/%5Fsandbox/health", "/_sandbox/health", "/_sandbox/health", false},
		{"/x~y-z_.w", "/x~y-z_.w", "/x~y-z_.w", false},
		{"*", "*", "%2A", false},
		{"/a*b", "/a*b", "/a%2Ab", false},
	} {
		u, err := url.ParseRequestURI(tt.target)
		if err != nil {
			t.Fatalf("%s: %v", tt.target, err)
		}
		setCanonicalPath(u)
		if u.Path != tt.path || u.EscapedPath() != tt.escaped || hasEncodedSlash(u.RawPath) != tt.encodedSlash {
			t.Errorf("%s: path %q escaped %q encoded slash %v; want %q, %q, %v",
				tt.target, u.Path, u.EscapedPath(), hasEncodedSlash(u.RawPath), tt.path, tt.escaped, tt.encodedSlash)
		}
	}
}

// An empty segment inside a GP API path is an id left out; doubled slashes at its
// start (a base URL ending in a slash) or its end are read as one.
func TestHasEmptySegment(t *testing.T) {
	for path, want := range map[string]bool{
		"/disputes//documents/DOC_1":     true,
		"/ucp/disputes//documents/DOC_1": true,
		"/transactions//adjustment":      true,
		"//transactions/TRN_1":           false,
		"/ucp//transactions/TRN_1":       false,
		"/batches//":                     false,
		"/batches/":                      false,
		"/_sandbox/batches//x":           false,
		"/ucp/_sandbox//x":               false,
		"/transactions/TRN_1/adjustment": false,
	} {
		if got := hasEmptySegment(path); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}
