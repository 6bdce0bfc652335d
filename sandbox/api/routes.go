package api

import (
	"net/http"

	"github.com/gorilla/mux"
)

// Register puts the API's routes on r (NewRouter).
func (s *Server) Register(r *mux.Router) {
	r.Handle("/accesstoken", s.endpoint(accessToken)).Methods(http.MethodPost)
	r.Handle("/transactions/{id}/adjustment", s.endpoint(adjustment)).Methods(http.MethodPost)
	r.Handle("/merchants/{merchant_id}/transactions/{id}/adjustment", s.endpoint(adjustment)).Methods(http.MethodPost)
	r.Handle("/merchants/{merchant_id}/orders", s.endpoint(orders)).Methods(http.MethodPost)
	s.registerBoarding(r)
	s.registerSettlement(r)
	// The card-present lifecycle, at its plain path and at the partner form.
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
		r.Handle(prefix+"/batches/{batch_id}", s.endpoint(getBatch)).Methods(http.MethodGet)
		r.Handle(prefix+"/batches", s.endpoint(closeOpenBatch)).Methods(http.MethodPost)
		r.Handle(prefix+"/batches/", s.endpoint(closeBatchWithoutID)).Methods(http.MethodPost)
		r.Handle(prefix+"/payment-methods", s.endpoint(createPaymentMethod)).Methods(http.MethodPost)
		r.Handle(prefix+"/payment-methods/{id}", s.endpoint(getPaymentMethod)).Methods(http.MethodGet)
		r.Handle(prefix+"/payment-methods/{id}", s.endpoint(editPaymentMethod)).Methods(http.MethodPatch)
		r.Handle(prefix+"/payment-methods/{id}", s.endpoint(deletePaymentMethod)).Methods(http.MethodDelete)
		r.Handle(prefix+"/devices", s.endpoint(deviceOp)).Methods(http.MethodPost)
	}
	s.registerBackOffice(r)
}
