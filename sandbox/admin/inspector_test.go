package admin_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// TestInspectorPage: the page and its assets hold no data and are served without the
// admin token; everything they show comes from admin calls, which need it.
func TestInspectorPage(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t, withAdminToken)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		path     string
		status   int
		header   string // name=value the answer must carry
		contains string
	}{
		{"/_sandbox/ui", 301, "Location=/_sandbox/ui/", ""},
		{"/_sandbox/ui/", 200, "Content-Type=text/html; charset=utf-8", "<title>gp-sandbox inspector</title>"},
		{"/_sandbox/ui/app.js", 200, "X-Content-Type-Options=nosniff", "/_sandbox/requests/stream"},
		{"/_sandbox/ui/missing.js", 404, "", ""},
	}
	for _, tt := range tests {
		resp, err := client.Get(env.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name, value, _ := strings.Cut(tt.header, "=")
		if resp.StatusCode != tt.status || (name != "" && resp.Header.Get(name) != value) || !strings.Contains(string(body), tt.contains) {
			t.Errorf("GET %s: %d %v %.100s", tt.path, resp.StatusCode, resp.Header, body)
		}
	}
	if got := env.Do("GET", "/_sandbox/transactions", nil, "").GPError(t); got != invalidAdminToken {
		t.Errorf("data without the admin token: %+v", got)
	}
}

func TestJournalShowsAnswerTimingAndIdempotency(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	path := "/transactions/" + apitest.CapturedOne + "/adjustment"
	env.Do("POST", path, apitest.APIHeader(tok, "X-GP-Idempotency", "k-1"), `{"gratuity_amount":"300"}`)
	env.Do("POST", path, apitest.APIHeader(tok, "X-GP-Idempotency", "k-1"), `{"gratuity_amount":"300"}`)
	env.Do("POST", path, apitest.APIHeader(tok, "X-GP-Idempotency", "k-2"), `{"gratuity_amount":"x"}`)
	env.Do("POST", path, apitest.APIHeader(tok), `{"gratuity_amount":"400"}`)

	entries := env.MustJournal("")
	if len(entries) != 5 {
		t.Fatalf("%d entries, want 5", len(entries))
	}
	tests := []struct {
		name        string
		entry       admin.JournalEntry
		status      int
		resource    string
		idempotency string
	}{
		{"without a key", entries[0], 200, apitest.CapturedOne, ""},
		{"refused, key left free", entries[1], 400, "", "free"},
		{"the key again", entries[2], 409, "", "duplicate"},
		{"first use of the key", entries[3], 200, apitest.CapturedOne, "consumed"},
		{"access token", entries[4], 200, "", ""},
	}
	for i, tt := range tests {
		e := tt.entry
		if e.Seq != uint64(5-i) || e.Status != tt.status || e.ResourceID != tt.resource || e.Idempotency != tt.idempotency {
			t.Errorf("%s: seq %d status %d resource %q idempotency %q", tt.name, e.Seq, e.Status, e.ResourceID, e.Idempotency)
		}
		if e.DurationMS <= 0 || e.Response == nil || e.Response.Headers["X-Request-Id"] != e.RequestID ||
			e.Response.Headers["Content-Type"] != "application/json" {
			t.Errorf("%s: timing or answer missing: %+v", tt.name, e)
		}
	}
	var adjusted map[string]any
	if err := json.Unmarshal(entries[0].Response.Body, &adjusted); err != nil || adjusted["id"] != apitest.CapturedOne {
		t.Errorf("adjustment answer as journaled: %v %s", err, entries[0].Response.Body)
	}
	// The access token is a credential: redacted in the answer, and not a "resource".
	if bytes.Contains(entries[4].Response.Body, []byte(tok)) || !bytes.Contains(entries[4].Response.Body, []byte(`"token":"[REDACTED]"`)) {
		t.Errorf("access token answer as journaled: %s", entries[4].Response.Body)
	}
}

func TestJournalMasksCardNumbersInAnswers(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	// The 404 names the id of the path: a card number put there comes back in the answer.
	r := env.Do("POST", "/transactions/4263970000005262/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"1"}`)
	if r.Status != 404 || !bytes.Contains(r.Body, []byte("4263970000005262")) {
		t.Fatalf("the answer does not echo the id: %d %s", r.Status, r.Body)
	}
	e := env.MustJournal("?limit=1")[0]
	if bytes.Contains(e.Response.Body, []byte("4263970000005262")) || !bytes.Contains(e.Response.Body, []byte("426397******5262")) {
		t.Errorf("answer as journaled: %s", e.Response.Body)
	}
	// Ids that are not card numbers stay readable.
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"1"}`)
	if e := env.MustJournal("?limit=1")[0]; !bytes.Contains(e.Response.Body, []byte(apitest.CapturedOne)) {
		t.Errorf("answer as journaled: %s", e.Response.Body)
	}
}

// TestJournalPagesBack: before=<seq> pages back through the journal, with the other
// filters.
func TestJournalPagesBack(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	for range 3 {
		env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"1"}`)
		env.Do("POST", "/transactions/"+apitest.CapturedTwo+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"1"}`)
	}
	tests := []struct {
		query string
		seqs  []uint64 // newest first
	}{
		{"?before=5", []uint64{4, 3, 2, 1}},
		{"?before=5&limit=2", []uint64{4, 3}},
		{"?before=2&limit=2", []uint64{1}},
		{"?before=1", []uint64{}},
		{"?before=6&transaction_id=" + apitest.CapturedOne, []uint64{4, 2}},
	}
	for _, tt := range tests {
		got := []uint64{}
		for _, e := range env.MustJournal(tt.query) {
			got = append(got, e.Seq)
		}
		if fmtSeqs(got) != fmtSeqs(tt.seqs) {
			t.Errorf("%s: entries %v, want %v", tt.query, got, tt.seqs)
		}
	}
	for _, bad := range []string{"?before=0", "?before=x", "?before=-1"} {
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "before contains unexpected data")
		if got := env.Do("GET", "/_sandbox/requests"+bad, nil, "").GPError(t); got != want {
			t.Errorf("%s: %+v", bad, got)
		}
	}
}

func fmtSeqs(s []uint64) string {
	b, _ := json.Marshal(s)
	return strings.ReplaceAll(string(b), ",", " ")
}

// stream is an open GET /_sandbox/requests/stream.
type stream struct {
	t      *testing.T
	resp   *http.Response
	lines  *bufio.Scanner
	cancel context.CancelFunc
}

func (env *sandboxEnv) mustOpenStream(query string, header map[string]string) *stream {
	env.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", env.URL+"/_sandbox/requests/stream"+query, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		env.T.Fatal(err)
	}
	s := &stream{t: env.T.(*testing.T), resp: resp, lines: bufio.NewScanner(resp.Body), cancel: cancel}
	s.lines.Buffer(make([]byte, 1<<20), 1<<20)
	env.T.Cleanup(func() { cancel(); resp.Body.Close() })
	return s
}

// next reads the next event's raw data line and its decoded entry.
func (s *stream) next() (string, admin.JournalEntry) {
	s.t.Helper()
	done := make(chan struct{})
	timer := time.AfterFunc(time.Until(testrun.Deadline(s.t)), func() { s.cancel() })
	defer timer.Stop()
	defer close(done)
	var id, data string
	for s.lines.Scan() {
		line := s.lines.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			id = line[len("id: "):]
		case strings.HasPrefix(line, "data: "):
			data = line[len("data: "):]
		case line == "" && data != "":
			var e admin.JournalEntry
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				s.t.Fatalf("event data is not an entry: %v: %s", err, data)
			}
			if id != seqText(e.Seq) {
				s.t.Errorf("event id %q, entry seq %d", id, e.Seq)
			}
			return data, e
		}
	}
	s.t.Fatalf("the stream ended or stalled: %v", s.lines.Err())
	return "", admin.JournalEntry{}
}

func seqText(n uint64) string { b, _ := json.Marshal(n); return string(b) }

func TestRequestStreamSendsNewEntriesLive(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t, withAdminToken)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "") // before the stream: not sent
	s := env.mustOpenStream("?operation=adjustment", adminHeader())
	if ct := s.resp.Header.Get("Content-Type"); s.resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("stream: %d %s", s.resp.StatusCode, ct)
	}
	env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "") // filtered out
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok),
		`{"gratuity_amount":"5","note":"<script>alert(1)</script>"}`)
	raw, e := s.next()
	if e.Seq != 3 || e.Operation != "adjustment" || e.Status != 400 {
		t.Errorf("first event: %+v", e)
	}
	// Data is JSON with markup escaped: nothing in it can open a tag.
	if strings.ContainsAny(raw, "<>") || bodyMember(t, e.Body, "note") != "<script>alert(1)</script>" {
		t.Errorf("event data: %s", raw)
	}
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"6"}`)
	if _, e := s.next(); e.Seq != 4 || e.Status != 200 {
		t.Errorf("second event: %+v", e)
	}

	// after= (or Last-Event-ID) replays what the journal still holds after that entry.
	for _, h := range []map[string]string{nil, {"Last-Event-ID": "1"}} {
		query := "?after=1"
		if h != nil {
			query = ""
		}
		header := adminHeader()
		for k, v := range h {
			header[k] = v
		}
		again := env.mustOpenStream(query, header)
		var seqs []uint64
		for range 3 {
			_, e := again.next()
			seqs = append(seqs, e.Seq)
		}
		if fmtSeqs(seqs) != "[2 3 4]" {
			t.Errorf("stream %s %v: entries %v, want 2 3 4", query, h, seqs)
		}
	}
}

func TestRequestStreamRefusals(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t, withAdminToken)
	tests := []struct {
		name   string
		query  string
		header map[string]string
		want   apitest.GPError
	}{
		{"no admin token", "", nil, invalidAdminToken},
		{"bad after", "?after=x", adminHeader(), apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "after contains unexpected data")},
		{"bad filter", "?status=7", adminHeader(), apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "status contains unexpected data")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := env.Do("GET", "/_sandbox/requests/stream"+tt.query, tt.header, "").GPError(t); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCloseStreamsEndsOpenStreams(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	srv := admin.NewServer(admin.Config{Service: env.Service})
	router := api.NewRouter()
	srv.Register(router)
	ts := httptest.NewServer(web.NewHandler(router, web.Config{Journal: srv.Journal()}))
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/_sandbox/requests/stream")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		ended <- err
	}()
	srv.CloseStreams()
	if err := testrun.Receive(t, "the stream to end after CloseStreams", ended); err != nil {
		t.Errorf("the stream broke instead of ending: %v", err)
	}
}

func TestListTransactionsAndOrdersByPage(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	var orders []string
	for range 3 {
		orders = append(orders, env.MustPlaceOrder(tok, `{}`))
	}
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"77"}`)

	ids := func(kind string) []string {
		var all []string
		after := ""
		for pages := 0; ; pages++ {
			r := env.Do("GET", "/_sandbox/"+kind+"?limit=2&after="+after, nil, "")
			var page struct {
				Transactions, Orders []struct {
					ID          string
					Gratuity    string `json:"gratuity_amount"`
					Adjustments []sandbox.Adjustment
				}
				Next string
			}
			if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil || pages > 10 {
				t.Fatalf("%s page %d: %d %s", kind, pages, r.Status, r.Body)
			}
			for _, x := range append(page.Transactions, page.Orders...) {
				all = append(all, x.ID)
				if x.ID == apitest.CapturedOne && (x.Gratuity != "77" || len(x.Adjustments) != 1) {
					t.Errorf("adjusted transaction as listed: %s", r.Body)
				}
			}
			if page.Next == "" {
				return all
			}
			after = page.Next
		}
	}
	txns := ids("transactions")
	if len(txns) != 6 || !isSorted(txns) || !slices.Contains(txns, apitest.CapturedOne) {
		t.Errorf("transactions: %v", txns)
	}
	if got := ids("orders"); len(got) != 3 || !isSorted(got) || !slices.Contains(got, orders[0]) || !slices.Contains(got, orders[2]) {
		t.Errorf("orders: %v, placed %v", got, orders)
	}
	for _, bad := range []string{"?limit=0", "?limit=501", "?limit=x"} {
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "limit contains unexpected data")
		if got := env.Do("GET", "/_sandbox/orders"+bad, nil, "").GPError(t); got != want {
			t.Errorf("%s: %+v", bad, got)
		}
	}
}

func isSorted(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			return false
		}
	}
	return true
}

func TestScenarioState(t *testing.T) {
	t.Parallel()
	env := mustSandboxWith(t, apitest.Options{Fixtures: func(fx *sandbox.Fixtures) {
		for i := range fx.Apps {
			if fx.Apps[i].ID == apitest.PartnerApp {
				fx.Apps[i].Scenarios = []string{"declined-adjustment"}
			}
		}
		for i := range fx.Transactions {
			if fx.Transactions[i].ID == apitest.CapturedTwo {
				fx.Transactions[i].Scenarios = []string{"batch-closed"}
			}
		}
	}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	for range 3 {
		env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-Sandbox-Session", "qa", "X-Sandbox-Scenario", "flaky-then-ok"), `{"gratuity_amount":"1"}`)
	}
	r := env.Do("GET", "/_sandbox/scenario-state", nil, "")
	var st struct {
		Bindings []sandbox.Binding
		Steps    []sandbox.ScenarioStep
		Sessions []struct {
			Session   string
			Scenarios []string
			Requests  int
		}
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &st) != nil {
		t.Fatalf("scenario state: %d %s", r.Status, r.Body)
	}
	wantBindings := []sandbox.Binding{
		{Kind: "app", ID: apitest.PartnerApp, Scenarios: []string{"declined-adjustment"}},
		{Kind: "transaction", ID: apitest.CapturedTwo, Scenarios: []string{"batch-closed"}},
	}
	if mustJSON(t, st.Bindings) != mustJSON(t, wantBindings) {
		t.Errorf("bindings %s, want %s", mustJSON(t, st.Bindings), mustJSON(t, wantBindings))
	}
	wantSteps := []sandbox.ScenarioStep{{Scenario: "flaky-then-ok", Rule: 0, Scope: "session:qa", Count: 3}}
	if mustJSON(t, st.Steps) != mustJSON(t, wantSteps) {
		t.Errorf("steps %s, want %s", mustJSON(t, st.Steps), mustJSON(t, wantSteps))
	}
	if len(st.Sessions) != 1 || st.Sessions[0].Session != "qa" || st.Sessions[0].Requests != 3 ||
		mustJSON(t, st.Sessions[0].Scenarios) != `["flaky-then-ok"]` {
		t.Errorf("sessions: %s", r.Body)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestJournalNeverServesMarkup: whatever a client sent, the admin answers carry it as
// JSON text with < and > escaped, so no browser can take it for markup.
func TestJournalNeverServesMarkup(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-Sandbox-Session", "<img src=x onerror=alert(1)>"),
		`{"gratuity_amount":"<script>alert(1)</script>"}`)
	env.Do("POST", "/nowhere/<script>", apitest.JSONHeader(), `not json <b>`)
	for _, path := range []string{"/_sandbox/requests", "/_sandbox/scenario-state"} {
		r := env.Do("GET", path, nil, "")
		if r.Status != 200 || bytes.ContainsAny(r.Body, "<>") || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s %s", path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
	if entries := env.MustJournal(""); bodyMember(t, entries[1].Body, "gratuity_amount") != "<script>alert(1)</script>" {
		t.Errorf("the body is not kept as sent: %s", entries[1].Body)
	}
}

// bodyMember decodes a journaled JSON object body and returns one string member.
func bodyMember(t *testing.T, body json.RawMessage, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	s, _ := m[name].(string)
	return s
}

func TestListBatches(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	first := sale["batch_id"].(string)
	env.MustPost(tok, "/batches/"+first, "")
	next := env.MustCharge(tok, apitest.SaleBody("700", "AUTO", apitest.ManualCard))

	r := env.Do("GET", "/_sandbox/batches?limit=500", nil, "")
	var page struct {
		Batches []struct {
			ID, Status, Amount string
			Transactions       []string
		}
		Next string
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil {
		t.Fatalf("batches: %d %s", r.Status, r.Body)
	}
	states := map[string]string{}
	for _, b := range page.Batches {
		states[b.ID] = b.Status + " " + b.Amount + " " + strings.Join(b.Transactions, ",")
	}
	want := map[string]string{
		first:                     "CLOSED 1000 " + sale["id"].(string),
		next["batch_id"].(string): "OPEN 700 " + next["id"].(string), // as it stands, as GET /batches answers it
	}
	for id, w := range want {
		if states[id] != w {
			t.Errorf("batch %s: %q, want %q (all: %s)", id, states[id], w, r.Body)
		}
	}
	if page.Next != "" {
		t.Errorf("one page holds them all, next is %q", page.Next)
	}
}

// TestJournalCutsLongAnswers: an answer past 16 KiB is kept cut, as a JSON string,
// marked truncated.
func TestJournalCutsLongAnswers(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	long := strings.Repeat("r", 20<<10)
	scenario := `{"version":1,"name":"long-answer","rules":[{"when":{"operation":"adjustment"},"then":{"body":{"reference":"` + long + `"}}}]}`
	env.MustInstallScenario(scenario)
	r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-Sandbox-Scenario", "long-answer"), `{"gratuity_amount":"1"}`)
	if r.Status != 200 || len(r.Body) < 20<<10 {
		t.Fatalf("scripted answer: %d, %d bytes", r.Status, len(r.Body))
	}
	e := env.MustJournal("?limit=1")[0]
	var cut string
	if err := json.Unmarshal(e.Response.Body, &cut); err != nil || len(cut) != 16<<10 || !e.Response.BodyTruncated {
		t.Errorf("answer as journaled: %v, %d bytes, truncated %v", err, len(cut), e.Response.BodyTruncated)
	}
}

// At most 32 live streams are open at once: the next is refused 429 naming the limit
// until one closes. Every stream sends each entry alike.
func TestRequestStreamsAreBounded(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	var open []*stream
	for range 32 {
		open = append(open, env.mustOpenStream("", nil))
	}
	want := apitest.Err(429, "INVALID_ACTION", "40290", "Too many live journal streams: at most 32 may be open at once")
	if got := env.Do("GET", "/_sandbox/requests/stream", nil, "").GPError(t); got != want {
		t.Fatalf("the 33rd stream: %+v, want %+v", got, want)
	}
	open[0].cancel()
	deadline := testrun.Deadline(t)
	var again *stream
	for again == nil {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", env.URL+"/_sandbox/requests/stream", nil)
		resp, err := http.DefaultClient.Do(req)
		switch {
		case err != nil:
			cancel()
			t.Fatal(err)
		case resp.StatusCode == 200:
			again = &stream{t: t, resp: resp, lines: bufio.NewScanner(resp.Body), cancel: cancel}
			t.Cleanup(func() { cancel(); resp.Body.Close() })
		case time.Now().After(deadline):
			t.Fatalf("a stream closed, and the next is still refused: %d", resp.StatusCode)
		default:
			resp.Body.Close()
			cancel()
			time.Sleep(10 * time.Millisecond)
		}
	}
	env.Do("GET", "/nowhere", nil, "")
	first, _ := again.next()
	for _, s := range open[1:4] {
		if data, _ := s.next(); data != first {
			t.Errorf("streams differ: %s and %s", data, first)
		}
	}
}
