package admin

import (
	"net/http"
	"strconv"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The web inspector's admin calls, the ones only it needs: lists, the live journal,
// the scenario state (see routes).

// maxListPage bounds one page of GET /_sandbox/transactions and /_sandbox/orders.
const maxListPage = 500

// pageQueryParams are the query parameters of a paged admin list, which pageQuery reads.
var pageQueryParams = []string{"after", "limit"}

// pageQuery reads ?after=&limit= (limit 1..maxListPage, default 100).
func pageQuery(r *http.Request) (after string, limit int, err error) {
	q := adminQuery(r)
	limit = 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListPage {
			return "", 0, sandbox.InvalidField("limit")
		}
		limit = n
	}
	return q.Get("after"), limit, nil
}

// listPage answers one page of an admin list: the page's views under key, and in
// "next" the cursor of the page after a full one ("" after the last page).
func listPage[T, V any](r *http.Request, key string, fetch func(after string, limit int) ([]T, error),
	id func(T) string, view func(T) V) (any, error) {
	after, limit, err := pageQuery(r)
	if err != nil {
		return nil, err
	}
	list, err := fetch(after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]V, 0, len(list))
	for _, item := range list {
		out = append(out, view(item))
	}
	next := ""
	if len(list) == limit {
		next = id(list[len(list)-1])
	}
	return map[string]any{key: out, "next": next}, nil
}

// GET /_sandbox/transactions?after=&limit=: stored transactions in id order, each
// as GET /_sandbox/transactions/{id} shows it.
func (s *Server) adminListTransactions(r *http.Request) (any, error) {
	return listPage(r, "transactions", s.svc.Transactions,
		func(t sandbox.TransactionRecord) string { return t.Transaction.ID },
		func(t sandbox.TransactionRecord) adminTransaction {
			return adminTransactionView(t.Transaction, t.History)
		})
}

// GET /_sandbox/orders?after=&limit=: stored orders in id order, each as GET
// /_sandbox/orders/{id} shows it.
func (s *Server) adminListOrders(r *http.Request) (any, error) {
	return listPage(r, "orders", s.svc.Orders,
		func(o sandbox.Order) string { return o.ID },
		adminOrderView)
}

// GET /_sandbox/batches?after=&limit=: batches in id order, each as GET
// /_sandbox/batches/{id} shows it (as stored: reading one alone closes it when due).
func (s *Server) adminListBatches(r *http.Request) (any, error) {
	return listPage(r, "batches", s.svc.Batches,
		func(b sandbox.Batch) string { return b.ID },
		adminBatchView)
}

// GET /_sandbox/scenario-state
func (s *Server) adminScenarioState(*http.Request) (any, error) {
	st, err := s.svc.ScenarioState()
	if err != nil {
		return nil, err
	}
	view := scenarioStateView{ScenarioState: st, Sessions: []sessionView{}}
	if s.journal != nil {
		view.Sessions = s.journal.sessions()
	}
	return view, nil
}
