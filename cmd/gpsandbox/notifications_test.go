package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Scenario rules with operation: notification reach the delivery worker: the first
// notification of the app is dropped, the second sent twice, to a real listener.
func TestNotificationScenarios(t *testing.T) {
	dir := t.TempDir()
	mustWriteFile(t, filepath.Join(dir, "webhooks.yaml"), []byte(`version: 1
name: ugly-webhooks
rules:
  - when: {operation: notification}
    sequence:
      - {then: {fault: drop}}
      - {then: {fault: duplicate}}
      - {then: pass}
`))
	var mu sync.Mutex
	var received []string
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var o struct{ Status string }
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &o)
		mu.Lock()
		received = append(received, o.Status)
		mu.Unlock()
	}))
	defer listener.Close()

	base, stop := mustRun(t, "--db", ":memory:", "--scenarios", dir, "--scenario", "ugly-webhooks")
	defer stop()
	tok := mustIssueToken(t, base)
	status, order, err := postJSON(http.DefaultClient, base+"/merchants/MER_00000000000000000000000000000001/orders", tok, "",
		`{"notifications":{"status_url":"`+listener.URL+`/hook"}}`)
	if err != nil || status != 200 {
		t.Fatalf("order: %d %v %v", status, order, err)
	}
	id := order["id"].(string)
	if status, m, err := postJSON(http.DefaultClient, base+"/_sandbox/orders/"+id+"/status", "", "", `{"status":"PROCESSING"}`); err != nil || status != 200 {
		t.Fatalf("status change: %d %v %v", status, m, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got := append([]string(nil), received...)
		mu.Unlock()
		if len(got) >= 2 || time.Now().After(deadline) {
			if len(got) != 2 || got[0] != "PROCESSING" || got[1] != "PROCESSING" {
				t.Fatalf("listener received %v, want the PROCESSING notification twice and nothing for INITIATED", got)
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get(base + "/_sandbox/notifications?order_id=" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var log struct {
		Notifications []struct {
			Seq   int
			State string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&log); err != nil {
		t.Fatal(err)
	}
	if len(log.Notifications) != 2 || log.Notifications[0].State != "DROPPED" {
		t.Errorf("notification log %+v: want the first DROPPED", log.Notifications)
	}
}
