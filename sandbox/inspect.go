package sandbox

// Read-only listings for the admin API and the inspector.

// TransactionRecord is a stored transaction with its adjustment history, as one read
// saw both.
type TransactionRecord struct {
	Transaction Transaction
	History     []Adjustment
}

// Transactions returns up to limit stored transactions whose id sorts after after,
// in id order, each with its history, all in one read: a page read apart from its
// histories took a read per transaction, and a reset between them made the page 404.
func (s *Service) Transactions(after string, limit int) ([]TransactionRecord, error) {
	return view(s, func(tx Tx) ([]TransactionRecord, error) {
		page, err := transactionsByID(tx, after, limit)
		if err != nil {
			return nil, err
		}
		out := make([]TransactionRecord, len(page))
		for i, t := range page {
			if out[i].History, err = tx.Adjustments(t.ID); err != nil {
				return nil, err
			}
			out[i].Transaction = t
		}
		return out, nil
	})
}

// transactionsByID lists up to limit transactions (all when limit < 0) whose id sorts
// after after ("" for the first page), in id order: the walk of the public list.
func transactionsByID(tx Tx, after string, limit int) ([]Transaction, error) {
	var from *Transaction
	if after != "" {
		from = &Transaction{ID: after} // the ID order reads the id alone
	}
	out := []Transaction{}
	_, _, err := tx.WalkTransactions("ID", false, from, limit, func(t Transaction) bool {
		out = append(out, t)
		return true
	})
	return out, err
}

// Orders returns up to limit stored orders whose id sorts after after, in id order.
func (s *Service) Orders(after string, limit int) ([]Order, error) {
	return view(s, func(tx Tx) ([]Order, error) { return tx.OrderPage(after, limit) })
}

// view returns what read reads in one read-only transaction.
func view[T any](s *Service, read func(Tx) (T, error)) (T, error) {
	var out T
	err := s.store.View(func(tx Tx) error {
		var err error
		out, err = read(tx)
		return err
	})
	return out, err
}

// inspect is view with the inspector's listings.
func inspect[T any](s *Service, read func(Tx, InspectTx) (T, error)) (T, error) {
	var out T
	err := s.store.Inspect(func(tx Tx, in InspectTx) error {
		var err error
		out, err = read(tx, in)
		return err
	})
	return out, err
}

// Batches returns up to limit batches whose id sorts after after, in id order, each
// with its members: a closed one as stored, an open one with its totals as they stand
// (tallyOpen). A batch due to close is closed when read alone, by BatchState.
func (s *Service) Batches(after string, limit int) ([]Batch, error) {
	return inspect(s, func(tx Tx, in InspectTx) ([]Batch, error) {
		page, err := in.BatchPage(after, limit)
		if err != nil {
			return nil, err
		}
		for i := range page {
			if err = tallyOpen(tx, &page[i]); err != nil {
				return nil, err
			}
			if page[i].Members, err = listedMembers(tx, page[i].ID); err != nil {
				return nil, err
			}
		}
		return page, nil
	})
}

// Binding is a fixture record bound to scenarios: its requests are decided against
// them unless the request names its own.
type Binding struct {
	Kind      string   `json:"kind"` // "app", "merchant" or "transaction"
	ID        string   `json:"id"`
	Scenarios []string `json:"scenarios"`
}

// ScenarioState is what the scenario engine keeps in the store: the records bound to
// scenarios and the sequence counters.
type ScenarioState struct {
	Bindings []Binding      `json:"bindings"`
	Steps    []ScenarioStep `json:"steps"`
}

// ScenarioState reads the scenario bindings of every app, merchant and transaction
// and every sequence counter. It scans all transactions: an admin call, not a hot path.
func (s *Service) ScenarioState() (ScenarioState, error) {
	st := ScenarioState{Bindings: []Binding{}, Steps: []ScenarioStep{}}
	err := s.store.Inspect(func(tx Tx, in InspectTx) error {
		apps, err := tx.Apps()
		if err != nil {
			return err
		}
		for _, a := range apps {
			st.bind("app", a.ID, a.Scenarios)
		}
		merchants, err := in.Merchants()
		if err != nil {
			return err
		}
		for _, m := range merchants {
			st.bind("merchant", m.ID, m.Scenarios)
		}
		transactions, err := transactionsByID(tx, "", -1)
		if err != nil {
			return err
		}
		for _, t := range transactions {
			st.bind("transaction", t.ID, t.Scenarios)
		}
		steps, err := in.ScenarioSteps()
		st.Steps = append(st.Steps, steps...)
		return err
	})
	return st, err
}

func (st *ScenarioState) bind(kind, id string, names []string) {
	if len(names) > 0 {
		st.Bindings = append(st.Bindings, Binding{Kind: kind, ID: id, Scenarios: names})
	}
}
