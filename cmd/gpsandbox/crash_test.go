package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
)

// TestCrashKeepsAcknowledgedWrites builds the real binary, drives adjustments and
// orders at it concurrently, kills it with SIGKILL mid-load and restarts it on the
// same database file: every change whose 200 reached the client must be there, with
// its idempotency key still consumed, and the restarted sandbox must serve.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the binary; skipped with -short")
	}
	bin := testrun.Build(t)
	db := filepath.Join(t.TempDir(), "crash.db")
	proc, base := testrun.Serve(t, bin, "--db", db)
	tok := mustIssueToken(t, base)

	type ack struct{ key, resource, kind string }
	var mu sync.Mutex
	var acks []ack
	var wg sync.WaitGroup
	stop := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	txns := []string{"TRN_CapturedSale000000000000000001", "TRN_CapturedSale000000000000000002", "TRN_PreauthorizedSale00000000000001"}
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("crash-%d-%d", w, i)
				kind, path, body := "transaction", "/transactions/"+txns[i%3]+"/adjustment", fmt.Sprintf(`{"gratuity_amount":"%d"}`, i+1)
				if i%4 == 3 {
					kind, path, body = "order", "/merchants/MER_00000000000000000000000000000001/orders", `{}`
				}
				status, m, err := postJSON(client, base+path, tok, key, body)
				if err != nil || status != 200 {
					continue // cut off by the kill: not acknowledged
				}
				mu.Lock()
				acks = append(acks, ack{key, m["id"].(string), kind})
				mu.Unlock()
			}
		}(w)
	}
	time.Sleep(700 * time.Millisecond)
	if err := proc.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	close(stop)
	wg.Wait()
	if len(acks) < 50 {
		t.Fatalf("only %d acknowledged writes before the kill: load too light to prove anything", len(acks))
	}

	// The restarted sandbox opens the file and refuses every acknowledged key.
	proc, base = testrun.Serve(t, bin, "--db", db)
	for _, a := range acks[:50] {
		status, m, err := postJSON(client, base+"/transactions/"+txns[0]+"/adjustment", tok, a.key, `{"amount":"1"}`)
		if err != nil || status != 409 || !strings.Contains(fmt.Sprint(m["detailed_error_description"]), "id="+a.resource) {
			t.Errorf("key %s after restart: %d %v %v", a.key, status, m, err)
		}
	}
	proc.Process.Signal(syscall.SIGTERM)
	proc.Wait()

	// Every acknowledged change is in the file, with its key.
	s, err := store.Open(db)
	if err != nil {
		t.Fatalf("reopen after crash: %v", err)
	}
	defer s.Close()
	app := "SandboxPartnerAppId0000000000001"
	err = s.View(func(tx sandbox.Tx) error {
		for _, a := range acks {
			rec, err := tx.Idempotency(app, a.key)
			if err != nil || rec.ResourceID != a.resource {
				t.Errorf("key %s: %+v %v", a.key, rec, err)
			}
			if a.kind == "order" {
				if _, err := tx.Order(a.resource); err != nil {
					t.Errorf("acknowledged order %s lost: %v", a.resource, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d acknowledged writes, all present after SIGKILL", len(acks))
}

func mustIssueToken(t *testing.T, base string) string {
	t.Helper()
	status, m, err := postJSON(http.DefaultClient, base+"/accesstoken", "", "", `{"app_id":"SandboxPartnerAppId0000000000001","nonce":"n","secret":"`+
		sandbox.Secret("n", "SandboxAppKey001")+`","grant_type":"client_credentials"}`)
	if err != nil || status != 200 {
		t.Fatalf("token: %d %v %v", status, m, err)
	}
	return m["token"].(string)
}
