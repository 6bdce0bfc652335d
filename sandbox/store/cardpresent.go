package store

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// Card-present records: batches and their members.
//
//	batch:<id>                       sandbox.Batch
//	bmember:<batch id>:<txn id>      a JSON string: the id of a transaction in the batch

func (x tx) Transactions() ([]sandbox.Transaction, error) {
	return scan[sandbox.Transaction](x.t, "txn:*")
}

// Batches are cached decoded, as transactions are: every adjustment and capture reads
// its merchant's open batch (to close it at its batch_close_time), and decoding its
// JSON on each of them showed in the profile.
func (x tx) Batch(id string) (sandbox.Batch, error) {
	return cachedGet(x, "batch:"+id, cloneBatch)
}

func (x tx) PutBatch(b sandbox.Batch) error { return cachedPut(x, "batch:"+b.ID, b, cloneBatch) }

func (x tx) BatchMembers(batchID string) ([]string, error) {
	return scan[string](x.t, "bmember:"+batchID+":*")
}

func (x tx) PutBatchMember(batchID, transactionID string) error {
	return put(x.t, "bmember:"+batchID+":"+transactionID, transactionID)
}
