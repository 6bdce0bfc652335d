package api_test

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// BenchmarkAdjustment measures the adjustment endpoint over real loopback HTTP with a
// file-backed store, an idempotency key on every request and parallel clients.
func BenchmarkAdjustment(b *testing.B) {
	env := mustSandboxAt(b, filepath.Join(b.TempDir(), "bench.db"))
	tok := env.mustToken(partnerApp, partnerKey, "")
	url := env.URL + "/transactions/" + capturedOne + "/adjustment"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	var seq atomic.Uint64
	b.SetParallelism(32) // 32 x GOMAXPROCS clients
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("POST", url, strings.NewReader(`{"gratuity_amount":"150"}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("X-GP-Version", version)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GP-Idempotency", fmt.Sprintf("bench-%d", seq.Add(1)))
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}
