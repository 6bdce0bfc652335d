package sandboxtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/sandboxtest"
)

func TestNewServerClosesWithTheTest(t *testing.T) {
	var url string
	t.Run("inner", func(t *testing.T) {
		srv := sandboxtest.NewServer(t, sandboxtest.WithTime(time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)))
		url = srv.URL
		resp, err := srv.Client().Get(srv.URL + "/_sandbox/health")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("health: %v %v", resp, err)
		}
		resp.Body.Close()
		if got := srv.Clock.Now(); !got.Equal(time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)) {
			t.Errorf("clock %v", got)
		}
	})
	if _, err := http.Get(url + "/_sandbox/health"); err == nil {
		t.Errorf("server still answers after its test ended")
	}
}

func TestTokensOfOtherApps(t *testing.T) {
	srv := sandboxtest.NewServer(t, sandboxtest.WithSeed(1))
	tok := srv.Token(sandboxtest.RestrictedAppID, sandboxtest.RestrictedAppKey)
	req, _ := http.NewRequest("POST", srv.URL+"/transactions/"+sandboxtest.CapturedSale+"/adjustment", strings.NewReader(`{"amount":"1"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-GP-Version", sandboxtest.Version)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("restricted app adjusted: %d", resp.StatusCode)
	}
	if n := len(srv.Adjustments(sandboxtest.CapturedSale)); n != 0 {
		t.Errorf("%d adjustments recorded for a refused request", n)
	}
}

// TestSeparateModule proves the package works for a partner: a module of its own,
// importing sandboxtest through a replace directive pointing at this repository, runs
// a test against it with go test.
func TestSeparateModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/partner\n\ngo 1.26\n\n"+
		"require github.com/gp-sandbox/gp-sandbox v0.0.0\n\n"+
		"replace github.com/gp-sandbox/gp-sandbox => "+repo+"\n")
	write("partner_test.go", readmeExample(t))

	cmd := exec.Command(gobin, "test", "-mod=mod", "-count=1", "./...")
	cmd.Dir = dir
	// -mod=mod lets go write the new module's go.sum from the module cache (or the
	// GOPROXY of the environment); GOWORK=off keeps any enclosing workspace out.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in a separate module: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ok  \texample.com/partner") {
		t.Errorf("unexpected output:\n%s", out)
	}
}

// readmeExample is the Go example of this package's README.md, which must compile and
// pass as written there.
func readmeExample(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```go\n")
	code, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("README.md has no Go example")
	}
	return code
}

// The in-process sandbox delivers signed status notifications to the test's listener.
func TestNotificationsReachTheTestsListener(t *testing.T) {
	got := make(chan *http.Request, 4)
	bodies := make(chan []byte, 4)
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
	}))
	defer listener.Close()
	srv := sandboxtest.NewServer(t)
	req, _ := http.NewRequest("POST", srv.URL+"/merchants/"+sandboxtest.MerchantOne+"/orders",
		strings.NewReader(`{"notifications":{"status_url":"`+listener.URL+`"}}`))
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	req.Header.Set("X-GP-Version", sandboxtest.Version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("order: %v %v", resp, err)
	}
	resp.Body.Close()
	r := testrun.Receive(t, "a notification", got)
	body := <-bodies
	if want := sandbox.Sign(body, sandboxtest.DefaultAppKey); r.Header.Get("X-GP-Signature") != want {
		t.Errorf("signature %q, want %q", r.Header.Get("X-GP-Signature"), want)
	}
	if !strings.Contains(string(body), `"status":"INITIATED"`) {
		t.Errorf("notification body %s", body)
	}
}

// The test's own scenario files replace the built-ins; SetScenarios switches the
// global set while the server runs; Order reads back a placed order.
func TestScenariosAndOrders(t *testing.T) {
	files := fstest.MapFS{"outage.yaml": {Data: []byte(`version: 1
name: outage
rules:
  - when: {operation: order}
    then: {status: 502, error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: "50046"}}
`)}}
	srv := sandboxtest.NewServer(t, sandboxtest.WithScenarios(files))
	token := srv.Token()
	order := func() (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/merchants/"+sandboxtest.MerchantOne+"/orders", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", sandboxtest.Version)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var o struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&o)
		return resp.StatusCode, o.ID
	}
	status, id := order()
	if status != 200 {
		t.Fatalf("order without scenarios: %d", status)
	}
	if o := srv.Order(id); o.Status != "INITIATED" || o.MerchantID != sandboxtest.MerchantOne {
		t.Errorf("stored order %+v", o)
	}
	srv.SetScenarios("outage")
	if status, _ := order(); status != 502 {
		t.Errorf("with outage active: %d", status)
	}
	srv.SetScenarios()
	if status, _ := order(); status != 200 {
		t.Errorf("after clearing the set: %d", status)
	}
	var list struct{ Scenarios []struct{ Name string } }
	srv.Admin("GET", "/_sandbox/scenarios", nil, &list)
	if len(list.Scenarios) != 1 || list.Scenarios[0].Name != "outage" {
		t.Errorf("loaded scenarios %+v: want only the test's file", list.Scenarios)
	}
}

// placeOrder orders quantity A920 terminals for merchant One and returns the order id.
func placeOrder(t *testing.T, srv *sandboxtest.Server, quantity string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/merchants/"+sandboxtest.MerchantOne+"/orders",
		strings.NewReader(`{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":`+quantity+`}}]}`))
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	req.Header.Set("X-GP-Version", sandboxtest.Version)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var o struct{ ID string }
	if json.NewDecoder(resp.Body).Decode(&o); resp.StatusCode != 200 {
		t.Fatalf("order: %d", resp.StatusCode)
	}
	return o.ID
}

// DeliverOrder makes an order's terminals once, however often it is called; Devices
// lists them beside the fixtures' own.
func TestDeliverOrderAndDevices(t *testing.T) {
	srv := sandboxtest.NewServer(t)
	before := len(srv.Devices())
	id := placeOrder(t, srv, "3")
	delivered := srv.DeliverOrder(id)
	if len(delivered) != 3 || srv.Order(id).Status != sandbox.OrderDelivered {
		t.Fatalf("delivered %d terminals, order %s", len(delivered), srv.Order(id).Status)
	}
	for _, d := range delivered {
		if d.MerchantID != sandboxtest.MerchantOne || d.AccountID != "" || d.Status != sandbox.DeviceActive {
			t.Errorf("delivered terminal %+v: want an ACTIVE spare of merchant One", d)
		}
	}
	if again := srv.DeliverOrder(id); len(again) != 3 || again[0].ID != delivered[0].ID {
		t.Errorf("delivered again: %+v", again)
	}
	if got := len(srv.Devices()); got != before+3 {
		t.Errorf("%d terminals, want %d", got, before+3)
	}
}

// With WithOrderStep an order moves by itself as the clock is moved.
func TestWithOrderStep(t *testing.T) {
	srv := sandboxtest.NewServer(t, sandboxtest.WithOrderStep(time.Hour))
	id := placeOrder(t, srv, "1")
	srv.Admin("POST", "/_sandbox/clock", map[string]string{"advance": "2h"}, nil)
	if got := srv.Order(id).Status; got != sandbox.OrderShipped {
		t.Errorf("after two steps: %s", got)
	}
	srv.Admin("POST", "/_sandbox/clock", map[string]string{"advance": "1h"}, nil)
	if got := srv.DeliverOrder(id); len(got) != 1 || len(srv.Order(id).History) != 4 {
		t.Errorf("delivered by the clock: %+v, history %+v", got, srv.Order(id).History)
	}
}

// Snapshot and Restore: a test saves a state, spends it, and gets it back.
func TestSnapshotAndRestore(t *testing.T) {
	srv := sandboxtest.NewServer(t, sandboxtest.WithSeed(1))
	sale := srv.Charge("1000")
	srv.Snapshot("one-sale")
	srv.Charge("2000")
	if got := len(srv.Batch(sale.BatchID).Members); got != 2 {
		t.Fatalf("batch members before the restore: %d", got)
	}
	srv.Restore("one-sale")
	if got := srv.Batch(sale.BatchID).Members; len(got) != 1 || got[0] != sale.ID {
		t.Errorf("batch members after the restore: %v, want the snapshot's %s", got, sale.ID)
	}
	srv.Snapshot("one-sale") // saving again under the name replaces it
}

// Charge and Authorize take their payment as a client would: the scenarios in force
// decide it, and the journal records it.
func TestChargeGoesThroughTheAPI(t *testing.T) {
	srv := sandboxtest.NewServer(t, sandboxtest.WithGlobalScenarios("declined-sale"))
	for name, txn := range map[string]sandbox.Transaction{"charge": srv.Charge("500"), "authorize": srv.Authorize("700")} {
		if txn.Status != sandbox.StatusDeclined {
			t.Errorf("%s under declined-sale: %s, want DECLINED", name, txn.Status)
		}
	}
	if got := srv.Requests("operation=transaction"); len(got) != 2 {
		t.Errorf("journaled sales: %d, want 2", len(got))
	}
}
