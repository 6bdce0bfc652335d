package web

import (
	"errors"
	"net/http"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// statusByCode is the HTTP status of each GP error code (the wire contract, sandbox/api/README.md §1):
// GP decides the status by the error code, whatever the detailed code.
var statusByCode = map[string]int{
	sandbox.CodeNotAuthenticated:         http.StatusUnauthorized,
	sandbox.CodeActionNotAuthorized:      http.StatusForbidden,
	sandbox.CodeMandatoryDataMissing:     http.StatusBadRequest,
	sandbox.CodeInvalidRequestData:       http.StatusBadRequest,
	sandbox.CodeResourceNotFound:         http.StatusNotFound,
	sandbox.CodeDuplicateAction:          http.StatusConflict,
	sandbox.CodeInvalidAction:            http.StatusBadRequest,
	sandbox.CodeInvalidBatchAction:       http.StatusBadRequest,
	sandbox.CodeSystemErrorDownstream:    http.StatusBadGateway,
	sandbox.CodeSystemError:              http.StatusInternalServerError,
	sandbox.CodeActionFailed:             http.StatusBadGateway,
	sandbox.CodeConfigurationMissing:     http.StatusBadRequest,
	sandbox.CodeInvalidTransactionAction: http.StatusNotFound, // 40042 [GP: .NET tests]
	sandbox.CodeInvalidDisputeAction:     http.StatusBadRequest,
}

// statusByDetail is the HTTP status of the detailed codes GP answers otherwise than
// their error code says.
var statusByDetail = map[string]int{
	"40003": http.StatusBadRequest, // ACTION_NOT_AUTHORIZED, a foreign account_name filter [GP]
}

// statusOf is the HTTP status err is answered with. The error code decides, except
// for the detailed codes of statusByDetail and where the HTTP exchange does and the handler said so with WithStatus; anything that is
// not a GP error is the sandbox's own failure.
func statusOf(err error) int {
	var exchange statusError
	if errors.As(err, &exchange) {
		return exchange.status
	}
	if gp, ok := sandbox.AsError(err); ok {
		if status, ok := statusByDetail[gp.Detail]; ok {
			return status
		}
		if status, ok := statusByCode[gp.Code]; ok {
			return status
		}
	}
	return http.StatusInternalServerError
}

// statusError is a GP error whose status the HTTP exchange decides rather than its
// error code: a body over the limit (413) or a method the path does not take (405),
// both sandbox tuples whose code means 400 elsewhere, and a scenario's scripted error
// with the status its author chose.
type statusError struct {
	status int
	gp     *sandbox.Error
}

// WithStatus is gp answered with the given status.
func WithStatus(status int, gp *sandbox.Error) error { return statusError{status, gp} }

func (e statusError) Error() string { return e.gp.Error() }
func (e statusError) Unwrap() error { return e.gp }
