package store

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// Card-present records: batches and their members.
//
//	batch:<id>                       sandbox.Batch
//	bmember:<batch id>:<txn id>      a JSON string: the id of a transaction in the batch

func (x tx) Transactions() ([]sandbox.Transaction, error) {
	return scan[sandbox.Transaction](x.t, "txn:*")
}

func (x tx) Batch(id string) (sandbox.Batch, error) { return get[sandbox.Batch](x.t, "batch:"+id) }
func (x tx) PutBatch(b sandbox.Batch) error         { return put(x.t, "batch:"+b.ID, b) }

func (x tx) BatchMembers(batchID string) ([]string, error) {
	return scan[string](x.t, "bmember:"+batchID+":*")
}

func (x tx) PutBatchMember(batchID, transactionID string) error {
	return put(x.t, "bmember:"+batchID+":"+transactionID, transactionID)
}
