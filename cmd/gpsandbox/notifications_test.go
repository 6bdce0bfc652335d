package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox/sandboxtest"
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
	var got []string
	testrun.WaitFor(t, "two notifications", func() bool {
		mu.Lock()
		got = append([]string(nil), received...)
		mu.Unlock()
		return len(got) >= 2
	})
	if len(got) != 2 || got[0] != "PROCESSING" || got[1] != "PROCESSING" {
		t.Fatalf("listener received %v, want the PROCESSING notification twice and nothing for INITIATED", got)
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

// The binary and sandboxtest are both opened by package app: a scripted notification
// fault is answered the same way by both. A global `fault: drop` scenario drops the
// creation and the status-change notifications, and the listener receives nothing.
func TestNotificationFaultsAnsweredAlikeByBinaryAndSandboxtest(t *testing.T) {
	dir := t.TempDir()
	mustWriteFile(t, filepath.Join(dir, "drop.yaml"), []byte(`version: 1
name: drop-webhooks
rules:
  - when: {operation: notification}
    then: {fault: drop}
`))
	starters := map[string]func(t *testing.T) string{
		"binary": func(t *testing.T) string {
			base, stop := mustRun(t, "--db", ":memory:", "--scenarios", dir, "--scenario", "drop-webhooks")
			t.Cleanup(stop)
			return base
		},
		"sandboxtest": func(t *testing.T) string {
			return sandboxtest.NewServer(t, sandboxtest.WithScenarios(os.DirFS(dir)), sandboxtest.WithGlobalScenarios("drop-webhooks")).URL
		},
	}
	outcomes := map[string]string{}
	for name, start := range starters {
		t.Run(name, func(t *testing.T) {
			outcomes[name] = mustNotificationOutcome(t, start(t))
		})
	}
	want := "states [DROPPED DROPPED], listener received []"
	for name, got := range outcomes {
		if got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

// mustNotificationOutcome places an order with a listener, changes its status, waits
// until both notifications are settled and describes what happened to them.
func mustNotificationOutcome(t *testing.T, base string) string {
	t.Helper()
	var mu sync.Mutex
	var received []string
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received = append(received, r.URL.Path)
		mu.Unlock()
	}))
	defer listener.Close()
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
	var states []string
	testrun.WaitFor(t, "both notifications settled", func() bool {
		states = mustNotificationStates(t, base, id)
		return len(states) == 2 && !slices.Contains(states, "PENDING")
	})
	mu.Lock()
	defer mu.Unlock()
	return fmt.Sprintf("states %v, listener received %v", states, received)
}

// mustNotificationStates lists the states of an order's notifications, oldest first.
func mustNotificationStates(t *testing.T, base, orderID string) []string {
	t.Helper()
	resp, err := http.Get(base + "/_sandbox/notifications?order_id=" + orderID)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var log struct{ Notifications []struct{ State string } }
	if err := json.NewDecoder(resp.Body).Decode(&log); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, n := range log.Notifications {
		states = append(states, n.State)
	}
	return states
}

// A status_url is where the partner asked to be called: a card-number-like id in it
// (Luhn-valid) is no card data, called and shown as sent.
func TestNotificationReachesTheExactURL(t *testing.T) {
	const path = "/hook/4263970000005262?order=5425-2334-3010-9903"
	got := make(chan string, 8)
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.URL.RequestURI()
	}))
	defer listener.Close()
	base, stop := mustRun(t, "--db", ":memory:")
	defer stop()
	tok := mustIssueToken(t, base)
	status, order, err := postJSON(http.DefaultClient, base+"/merchants/MER_00000000000000000000000000000001/orders", tok, "",
		`{"notifications":{"status_url":"`+listener.URL+path+`"}}`)
	if err != nil || status != 200 {
		t.Fatalf("order: %d %v %v", status, order, err)
	}
	if uri := testrun.Receive(t, "a notification", got); uri != path {
		t.Errorf("notification sent to %s, want %s", uri, path)
	}
	resp, err := http.Get(base + "/_sandbox/notifications?order_id=" + order["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"url":"`+listener.URL+path+`"`) {
		t.Errorf("admin view of the notification: %s", b)
	}
}
