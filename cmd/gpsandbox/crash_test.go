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
	t.Parallel()
	bin := testrun.Build(t)
	db := filepath.Join(t.TempDir(), "crash.db")
	proc, base := testrun.Serve(t, bin, "--db", db)
	tok := mustIssueToken(t, base)

	load := startKeyedLoad(base, tok, "crash")
	testrun.WaitFor(t, "50 acknowledged writes", func() bool { return load.count() >= 50 }) // and more under way
	if err := proc.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	acks := load.stop()
	if len(acks) < 50 {
		t.Fatalf("only %d acknowledged writes before the kill: load too light to prove anything", len(acks))
	}

	// The restarted sandbox opens the file and refuses every acknowledged key.
	proc, base = testrun.Serve(t, bin, "--db", db)
	for _, a := range acks[:50] {
		status, m, err := postJSON(http.DefaultClient, base+"/transactions/"+loadTransactions[0]+"/adjustment", tok, a.key, `{"amount":"1"}`)
		if err != nil || status != 409 || !strings.Contains(fmt.Sprint(m["detailed_error_description"]), "id="+a.resource) {
			t.Errorf("key %s after restart: %d %v %v", a.key, status, m, err)
		}
	}
	proc.Process.Signal(syscall.SIGTERM)
	proc.Wait()

	mustHoldAcks(t, db, acks)
	t.Logf("%d acknowledged writes, all present after SIGKILL", len(acks))
}

// loadTransactions are the fixtures' transactions a keyed load adjusts.
var loadTransactions = []string{"TRN_CapturedSale000000000000000001", "TRN_CapturedSale000000000000000002", "TRN_PreauthorizedSale00000000000001"}

// ack is a write whose 200 reached the client: its idempotency key, the resource it
// answered and its kind.
type ack struct{ key, resource, kind string }

// keyedLoad is 16 writers sending adjustments and orders, each with a key of its own,
// without pause, until stop.
type keyedLoad struct {
	mu      sync.Mutex
	acks    []ack
	writers sync.WaitGroup
	done    chan struct{}
}

func startKeyedLoad(base, token, prefix string) *keyedLoad {
	l := &keyedLoad{done: make(chan struct{})}
	client := &http.Client{Timeout: 5 * time.Second}
	for w := range 16 {
		l.writers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-l.done:
					return
				default:
				}
				key := fmt.Sprintf("%s-%d-%d", prefix, w, i)
				kind, path, body := "transaction", "/transactions/"+loadTransactions[i%3]+"/adjustment", fmt.Sprintf(`{"gratuity_amount":"%d"}`, i+1)
				if i%4 == 3 {
					kind, path, body = "order", "/merchants/MER_00000000000000000000000000000001/orders", `{}`
				}
				status, m, err := postJSON(client, base+path, token, key, body)
				if err != nil || status != 200 {
					continue // refused, or cut off: not acknowledged
				}
				l.mu.Lock()
				l.acks = append(l.acks, ack{key, m["id"].(string), kind})
				l.mu.Unlock()
			}
		})
	}
	return l
}

// count is how many writes were acknowledged so far.
func (l *keyedLoad) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acks)
}

// stop ends the writers and returns the acknowledged writes.
func (l *keyedLoad) stop() []ack {
	close(l.done)
	l.writers.Wait()
	return l.acks
}

// mustHoldAcks opens the database file db with the store and finds every acknowledged
// change in it, with its key.
func mustHoldAcks(t *testing.T, db string, acks []ack) {
	t.Helper()
	s, err := store.Open(db)
	if err != nil {
		t.Fatalf("open %s: %v", db, err)
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
