package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// closeBatch is POST /batches/{batch_id} and its partner form: the Java SDK sends no
// body; an id that is not a batch id is GP's 40213, a well-formed unknown one 404.
var closeBatch = operation{
	op:            sandbox.OpBatchClose,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "batch_id"},
	bodyOptional:  true,
	handler: handle(func(s *Server, c *call, _ struct{}) (any, error) {
		id := c.vars["batch_id"]
		if !sandbox.ValidBatchID(id) {
			return nil, sandbox.InvalidField("batch_id")
		}
		b, err := s.svc.CloseBatch(c.caller, sandbox.CloseBatchRequest{
			BatchID: id, MerchantID: c.vars["merchant_id"], Idempotency: c.idem,
		})
		if err != nil {
			return nil, err
		}
		return newBatchView(b), nil
	}),
}

// closeBatchWithoutID is POST /batches/ (an SDK given no batch id): GP's 40223.
var closeBatchWithoutID = operation{
	op:            sandbox.OpBatchClose,
	authenticated: true,
	bodyOptional:  true,
	handler: handle(func(*Server, *call, struct{}) (any, error) {
		return nil, sandbox.BatchIDMissing()
	}),
}
