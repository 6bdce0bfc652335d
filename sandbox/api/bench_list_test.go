package api_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// benchListSize is how many transactions the list benchmarks seed: the size at which
// a list that read everything took 1.4 s a page.
const benchListSize = 60_000

// benchListPollers is how many clients poll the list while adjustments are timed.
const benchListPollers = 4

// BenchmarkTransactionList reads the first page of GET /transactions, in GP's default
// order, from a file-backed store of 60,000 transactions; then times adjustments, one
// at a time, while 4 clients poll that page without pause, and reports their p50,
// p99 and max.
//
//	go test -run '^$' -bench TransactionList -benchtime 50x ./sandbox/api/
func BenchmarkTransactionList(b *testing.B) {
	env := mustSandboxWith(b, apitest.Options{
		DBPath:   filepath.Join(b.TempDir(), "bench.db"),
		Fixtures: seedTransactions(benchListSize),
	})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	client := benchClient()
	listURL := env.URL + "/transactions?page_size=10"
	list := func() *http.Request {
		req, _ := http.NewRequest("GET", listURL, nil)
		apitest.SetAPIHeaders(req, tok, 0)
		return req
	}
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			mustSend(b, client, list())
		}
	})
	b.Run("adjustment-while-polled", func(b *testing.B) {
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for range benchListPollers {
			wg.Go(func() {
				for ctx.Err() == nil {
					resp, err := client.Do(list().WithContext(ctx))
					if err == nil {
						resp.Body.Close()
					}
				}
			})
		}
		time.Sleep(100 * time.Millisecond) // the pollers are in the middle of their pages
		adjustURL := env.URL + "/transactions/" + apitest.CapturedOne + "/adjustment"
		var took []time.Duration
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			mustSend(b, client, adjustmentRequest(adjustURL, tok, uint64(i)))
			took = append(took, time.Since(start))
		}
		stop()
		wg.Wait()
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms")
	})
}

// seedTransactions adds n captured sales of merchant One to the fixtures, a second
// apart.
func seedTransactions(n int) func(*sandbox.Fixtures) {
	return func(fx *sandbox.Fixtures) {
		i := slices.IndexFunc(fx.Transactions, func(t sandbox.Transaction) bool { return t.ID == apitest.CapturedOne })
		model := fx.Transactions[i]
		model.BatchID = ""
		for i := range n {
			t := model
			t.ID = fmt.Sprintf("TRN_Bench%026d", i)
			t.TimeCreated = apitest.StartTime.Add(-time.Duration(i) * time.Second)
			fx.Transactions = append(fx.Transactions, t)
		}
	}
}
