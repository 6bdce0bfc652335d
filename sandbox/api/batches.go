package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// closeBatch is POST /batches/{batch_id} and its partner form: the Java SDK sends no
// body; an id that is not a batch id is GP's 40213, a well-formed unknown one 404.
var closeBatch = read(sandbox.OpBatchClose, []string{"merchant_id", "batch_id"}, func(s *Server, c *call) (any, error) {
	id, err := batchID(c)
	if err != nil {
		return nil, err
	}
	b, err := s.svc.CloseBatch(c.caller, sandbox.CloseBatchRequest{
		BatchID: id, MerchantID: c.vars["merchant_id"], Idempotency: c.idem,
	})
	if err != nil {
		return nil, err
	}
	return NewBatchView(b), nil
})

// closeOpenBatch is POST /batches and its partner form: the Java and .NET SDKs close
// the account's open batch this way when they are given no batch id [GP].
var closeOpenBatch = operation{
	op:            sandbox.OpBatchClose,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	bodyOptional:  true,
	handler: handle(func(s *Server, c *call, req closeOpenBatchBody) (any, error) {
		b, err := s.svc.CloseBatch(c.caller, sandbox.CloseBatchRequest{
			MerchantID: c.vars["merchant_id"], AccountID: req.AccountID, AccountName: req.AccountName,
			Channel: req.Channel, Currency: req.Currency, Country: req.Country, Idempotency: c.idem,
		})
		if err != nil {
			return nil, err
		}
		return NewBatchView(b), nil
	}),
}

// closeOpenBatchBody is a POST /batches body.
type closeOpenBatchBody struct {
	accountBody
	Channel        string   `json:"channel" gp:"enum=CP|CNP"`
	Currency       string   `json:"currency" gp:"currency"`
	Country        string   `json:"country" gp:"country"`
	PaymentMethods []string `json:"payment_methods" gp:"max=10"` // e.g. CARD: not judged [SB]
}

// closeBatchWithoutID is POST /batches/ (an SDK given no batch id, before the SDKs
// learnt POST /batches): GP's 40223.
var closeBatchWithoutID = operation{
	op:            sandbox.OpBatchClose,
	authenticated: true,
	bodyOptional:  true,
	handler: handle(func(*Server, *call, struct{}) (any, error) {
		return nil, sandbox.BatchIDMissing()
	}),
}

// getBatch is GET /batches/{batch_id}: a batch's summary, as its close answered it.
var getBatch = read(sandbox.OpBatchDetail, []string{"merchant_id", "batch_id"}, func(s *Server, c *call) (any, error) {
	id, err := batchID(c)
	if err != nil {
		return nil, err
	}
	b, err := s.svc.GetBatch(c.caller, c.vars["merchant_id"], id)
	if err != nil {
		return nil, err
	}
	v := NewBatchView(b)
	read := newActionView(s.svc.ReadAction(c.caller, sandbox.ActionBatchOne)) // the close stays close_action_id [GP]
	v.Action = &read
	return v, nil
})

// batchID is the path's batch id: one that is not a batch id is GP's 40213, before
// anything is looked up.
func batchID(c *call) (string, error) {
	id := c.vars["batch_id"]
	if !sandbox.ValidBatchID(id) {
		return "", sandbox.InvalidField("batch_id")
	}
	return id, nil
}
