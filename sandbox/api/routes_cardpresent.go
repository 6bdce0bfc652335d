package api

import (
	"net/http"
)

// cardPresentRoutes registers the card-present lifecycle, each at its plain path and
// at the partner form /merchants/{merchant_id}/... .
func (s *Server) cardPresentRoutes(r *routeTable) {
	for _, prefix := range []string{"", "/merchants/{merchant_id}"} {
		r.Handle(prefix+"/transactions", s.endpoint(createTransaction)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}", s.endpoint(getTransaction)).Methods(http.MethodGet)
		r.Handle(prefix+"/transactions", s.endpoint(listTransactions)).Methods(http.MethodGet)
		r.Handle(prefix+"/verifications", s.endpoint(verification)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/capture", s.endpoint(captureOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/refund", s.endpoint(refundOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/reversal", s.endpoint(reversalOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/reauthorization", s.endpoint(reauthorizationOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/incremental", s.endpoint(incrementalOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/batches/{batch_id}", s.endpoint(closeBatch)).Methods(http.MethodPost)
		r.Handle(prefix+"/batches/", s.endpoint(closeBatchWithoutID)).Methods(http.MethodPost)
	}
	r.Handle("/_sandbox/batches/{id}", s.admin(s.adminGetBatch)).Methods(http.MethodGet)
}
