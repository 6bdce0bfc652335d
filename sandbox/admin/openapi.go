package admin

import (
	_ "embed"
	"net/http"
	"strconv"

	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// openapiYAML is the OpenAPI document of everything the sandbox serves. The contract
// test validates every request and response of the API test suite against it.
//
//go:embed openapi.yaml
var openapiYAML []byte

// openapi serves the embedded document as it is: the one body that is not JSON.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	if rec := web.RecordOf(r); rec != nil {
		rec.Status = http.StatusOK
	}
	h := w.Header()
	h.Set("Content-Type", "application/yaml")
	h.Set("Content-Length", strconv.Itoa(len(openapiYAML)))
	w.WriteHeader(http.StatusOK)
	w.Write(openapiYAML)
}
