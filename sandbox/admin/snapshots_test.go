package admin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
)

// A restored sandbox answers the same requests with the same bytes as when the
// snapshot was saved, however the state moved on in between.
func TestSnapshotRestoresByteIdenticalAnswers(t *testing.T) {
	t.Parallel()
	env := mustSandboxAt(t, filepath.Join(t.TempDir(), "sb.db"))
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.TrackCard()))
	id := sale["id"].(string)
	batch := sale["batch_id"].(string)
	env.MustPost(tok, "/transactions/"+id+"/adjustment", `{"gratuity_amount":"150"}`)
	reads := []string{
		"/transactions/" + id,
		"/batches/" + batch,
		"/transactions?page_size=20&order_by=TIME_CREATED",
		"/transactions/" + apitest.CapturedOne,
	}
	before := map[string][]byte{}
	for _, p := range reads {
		r := env.Do("GET", p, apitest.APIHeader(tok), "")
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", p, r.Status, r.Body)
		}
		before[p] = stateOf(r.Body)
	}
	saved := env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"before-more"}`)
	if saved["name"] != "before-more" || saved["size"].(float64) <= 0 || saved["session"] != nil {
		t.Fatalf("saved: %v", saved)
	}

	// The state moves on: a tip, part reversed, a refund, a new sale, the batch closed,
	// a new token.
	env.MustPost(tok, "/transactions/"+id+"/adjustment", `{"gratuity_amount":"300"}`)
	env.MustPost(tok, "/transactions/"+id+"/reversal", `{"amount":"200"}`)
	env.MustPost(tok, "/transactions/"+id+"/refund", `{"amount":"500"}`)
	env.MustCharge(tok, apitest.SaleBody("700", "AUTO", apitest.ManualCard))
	env.MustPost(tok, "/transactions/"+apitest.CapturedOne+"/adjustment", `{"amount":"1200","gratuity_amount":"1"}`)
	env.MustPost(tok, "/batches/"+batch, `{}`)
	later := env.PartnerToken()
	if r := env.Do("GET", "/transactions/"+id, apitest.APIHeader(later), ""); r.Status != 200 {
		t.Fatalf("the later token: %d", r.Status)
	}
	for _, p := range reads {
		if r := env.Do("GET", p, apitest.APIHeader(tok), ""); bytes.Equal(stateOf(r.Body), before[p]) {
			t.Fatalf("GET %s: unchanged by the calls after the save, so the test proves nothing", p)
		}
	}

	restored := env.MustAdmin("POST", "/_sandbox/snapshots/before-more/restore", "")
	if restored["status"] != "restored" || restored["name"] != "before-more" {
		t.Fatalf("restore: %v", restored)
	}
	for _, p := range reads {
		r := env.Do("GET", p, apitest.APIHeader(tok), "")
		if r.Status != 200 || !bytes.Equal(stateOf(r.Body), before[p]) {
			t.Errorf("GET %s after the restore:\n got: %d %s\nwant: %s", p, r.Status, r.Body, before[p])
		}
	}
	// The token issued after the save went with the rest of that state.
	if r := env.Do("GET", "/transactions/"+id, apitest.APIHeader(later), ""); r.Status != 401 {
		t.Errorf("token issued after the save: %d %s", r.Status, r.Body)
	}
	// Writes go on from the restored state: the batch is open again.
	env.MustPost(tok, "/transactions/"+id+"/adjustment", `{"gratuity_amount":"200"}`)
}

// Snapshots are files beside the database: they outlive the process, --snapshot
// (app.Config.Snapshot) restores one at start, and the restored database keeps its
// lock and its watch.
func TestSnapshotSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "sb.db")
	open := func(snapshot string) *sandboxEnv {
		return mustSandboxAt(t, db, func(c *app.Config) { c.Snapshot = snapshot })
	}
	env := open("")
	tok := env.PartnerToken()
	id := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))["id"].(string)
	want := stateOf(env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").Body)
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"one-sale"}`)
	if _, err := os.Stat(filepath.Join(dir, "sb.db.snapshots", "one-sale.db")); err != nil {
		t.Fatalf("snapshot file: %v", err)
	}
	env.MustAdmin("POST", "/_sandbox/reset", "")
	if err := env.App.Close(); err != nil {
		t.Fatal(err)
	}

	env = open("one-sale")
	if got := stateOf(env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").Body); !bytes.Equal(got, want) {
		t.Errorf("after a restart with the snapshot:\n got: %s\nwant: %s", got, want)
	}
	list := env.MustAdmin("GET", "/_sandbox/snapshots", "")["snapshots"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["name"] != "one-sale" {
		t.Errorf("list after restart: %v", list)
	}

	// The lock still holds the file, and the watch still sees it replaced.
	var locked *store.LockedError
	if _, err := store.Open(db); !errors.As(err, &locked) {
		t.Errorf("second open after a restore: %v, want a LockedError", err)
	}
	if err := os.Rename(db, db+".moved"); err != nil {
		t.Fatal(err)
	}
	var r apitest.Reply
	testrun.WaitFor(t, "a write refused after the file moved", func() bool { // the watch looks every 100 ms
		r = env.Do("POST", "/transactions/"+id+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"1"}`)
		return r.Status != 200
	})
	if e := r.GPError(t); e.Status != 500 || !strings.Contains(e.Description, "was deleted or replaced") {
		t.Errorf("write after the file moved: %+v", e)
	}
}

func TestSnapshotUnknownAtStartStopsIt(t *testing.T) {
	t.Parallel()
	_, err := app.Open(app.Config{DB: filepath.Join(t.TempDir(), "sb.db"), Snapshot: "nope"})
	if err == nil || !strings.Contains(err.Error(), "--snapshot nope") || !strings.Contains(err.Error(), "Snapshot nope not found") {
		t.Fatalf("open with an unknown snapshot: %v", err)
	}
}

// The admin calls and each of their errors, on an in-memory database, which keeps
// its snapshots for the run.
func TestSnapshotAdminCalls(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	if got := env.MustAdmin("GET", "/_sandbox/snapshots", ""); len(got["snapshots"].([]any)) != 0 {
		t.Fatalf("list before any: %v", got)
	}
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"b"}`)
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"a_1"}`)

	badName := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "name contains unexpected data: a snapshot name is 1 to 64 letters, digits, '_' or '-', not starting with '-' and holding no card number")
	notFound := apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Snapshot nope not found at this location.")
	for _, tt := range []struct {
		method, path, header, body string
		want                       apitest.GPError
	}{
		{"POST", "/_sandbox/snapshots", "", `{"name":"../x"}`, badName},
		{"POST", "/_sandbox/snapshots", "", `{"name":"a.b"}`, badName},
		{"POST", "/_sandbox/snapshots", "", `{"name":"-x"}`, badName},
		{"POST", "/_sandbox/snapshots", "", `{"name":"4263970000005262"}`, badName}, // kept in clear as a file name
		{"POST", "/_sandbox/snapshots", "", `{"name":"` + strings.Repeat("x", 65) + `"}`, badName},
		{"POST", "/_sandbox/snapshots", "", `{"name":7}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "name contains unexpected data")},
		{"POST", "/_sandbox/snapshots", "", `{}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields name")},
		{"POST", "/_sandbox/snapshots", "", `{"name":"c","color":"red"}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: color")},
		{"POST", "/_sandbox/snapshots", "s1", `{"name":"c","session":"s2"}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "session contains unexpected data")},
		{"POST", "/_sandbox/snapshots", "", `{"name":"b"}`, apitest.Err(409, "DUPLICATE_ACTION", "40039", `Snapshot b exists: send "overwrite":true to replace it`)},
		{"POST", "/_sandbox/snapshots/nope/restore", "", "", notFound},
		{"POST", "/_sandbox/snapshots/a.b/restore", "", "", badName},
		{"DELETE", "/_sandbox/snapshots/nope", "", "", notFound},
		{"DELETE", "/_sandbox/snapshots/a%2Eb", "", "", badName},
	} {
		h := apitest.JSONHeader()
		if tt.header != "" {
			h["X-Sandbox-Session"] = tt.header
		}
		if got := env.Do(tt.method, tt.path, h, tt.body).GPError(t); got != tt.want {
			t.Errorf("%s %s %s:\n got %+v\nwant %+v", tt.method, tt.path, tt.body, got, tt.want)
		}
	}

	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"b","overwrite":true}`)
	list := env.MustAdmin("GET", "/_sandbox/snapshots", "")["snapshots"].([]any)
	var names []string
	for _, s := range list {
		m := s.(map[string]any)
		names = append(names, m["name"].(string))
		if m["size"].(float64) <= 0 || m["time_created"] == "" {
			t.Errorf("listed: %v", m)
		}
	}
	if strings.Join(names, ",") != "a_1,b" {
		t.Errorf("listed %v, want a_1,b in name order", names)
	}
	if got := env.MustAdmin("DELETE", "/_sandbox/snapshots/b", ""); got["status"] != "deleted" || got["name"] != "b" {
		t.Errorf("delete: %v", got)
	}
	if r := env.Do("POST", "/_sandbox/snapshots/b/restore", nil, ""); r.Status != 404 {
		t.Errorf("restore after delete: %d %s", r.Status, r.Body)
	}
	if list := env.MustAdmin("GET", "/_sandbox/snapshots", "")["snapshots"].([]any); len(list) != 1 {
		t.Errorf("list after delete: %v", list)
	}
}

// A session snapshot holds that session's scenario sequence counters: restoring it
// replays the session's sequence from where it was, and leaves everything else as it
// is.
func TestSnapshotOfASession(t *testing.T) {
	t.Parallel()
	env := mustSandboxAt(t, filepath.Join(t.TempDir(), "sb.db"))
	tok := env.PartnerToken()
	adjust := func(session string) int {
		t.Helper()
		h := apitest.APIHeader(tok, "X-Sandbox-Scenario", "flaky-then-ok", "X-Sandbox-Session", session)
		return env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", h, `{"gratuity_amount":"1"}`).Status
	}
	if s := adjust("suite-a"); s != 502 {
		t.Fatalf("first call of the session: %d", s)
	}
	adjust("suite-b")
	r := env.Do("POST", "/_sandbox/snapshots", map[string]string{"Content-Type": "application/json", "X-Sandbox-Session": "suite-a"}, `{"name":"a-after-one"}`)
	if r.Status != 200 || r.JSON(t)["session"] != "suite-a" {
		t.Fatalf("save: %d %s", r.Status, r.Body)
	}
	if s := adjust("suite-a"); s != 502 {
		t.Fatalf("second call: %d", s)
	}
	if s := adjust("suite-a"); s != 200 {
		t.Fatalf("third call: %d", s)
	}
	adjust("suite-b")
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))["id"].(string)

	list := env.MustAdmin("GET", "/_sandbox/snapshots", "")["snapshots"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["session"] != "suite-a" {
		t.Fatalf("list: %v", list)
	}
	env.MustAdmin("POST", "/_sandbox/snapshots/a-after-one/restore", "")
	if s := adjust("suite-a"); s != 502 {
		t.Errorf("suite-a after the restore: %d, want its second step (502) again", s)
	}
	if s := adjust("suite-a"); s != 200 {
		t.Errorf("suite-a then: %d, want its third step", s)
	}
	if s := adjust("suite-b"); s != 200 {
		t.Errorf("suite-b, not in the snapshot: %d, want its third step", s)
	}
	if r := env.Do("GET", "/transactions/"+sale, apitest.APIHeader(tok), ""); r.Status != 200 {
		t.Errorf("a sale made after the session's save: %d, want it kept", r.Status)
	}
}

// A snapshot is a copy of the database, which holds no card data in clear and every
// other member as sent. (The sweep of sandbox/api reads a snapshot too.)
func TestSnapshotFileHoldsNoClearCardNumber(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := mustSandboxAt(t, filepath.Join(dir, "sb.db"))
	tok := env.PartnerToken()
	env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.TrackCard()))
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"cards"}`)
	data, err := os.ReadFile(filepath.Join(dir, "sb.db.snapshots", "cards.db"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"TRN_`)) {
		t.Fatalf("the snapshot holds no transaction: %.200s", data)
	}
	for _, clear := range []string{"4263970000005262", "4012002000060016", "VI TEST CREDIT^2512"} {
		if bytes.Contains(data, []byte(clear)) {
			t.Errorf("the snapshot file holds %s in clear", clear)
		}
	}
	// A reference is no card data: kept as written, even one that passes the check
	// (the fixtures' brand reference 383224601004927 does).
	if !bytes.Contains(data, []byte(`"brand_reference":"383224601004927"`)) {
		t.Errorf("the snapshot file does not hold the fixture's brand reference as written")
	}
	var saved struct{ Size int64 }
	body := env.MustAdmin("GET", "/_sandbox/snapshots", "")["snapshots"].([]any)[0]
	b, _ := json.Marshal(body)
	_ = json.Unmarshal(b, &saved)
	if saved.Size != int64(len(data)) {
		t.Errorf("listed size %d, file %d bytes", saved.Size, len(data))
	}
}

// A snapshot file damaged since it was saved, cut short, or not one the sandbox wrote
// is refused whole, naming the snapshot and the byte, with advice for a snapshot (not
// the database file's): the restore changes nothing, neither the answers nor the
// database file. --snapshot refuses it at start with the same words.
func TestSnapshotDamagedIsRefusedWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "sb.db")
	env := mustSandboxAt(t, db)
	tok := env.PartnerToken()
	id := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))["id"].(string)
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"good"}`)
	good := mustRead(t, filepath.Join(dir, "sb.db.snapshots", "good.db"))
	// The state moves on, so that a restore would show.
	env.MustPost(tok, "/transactions/"+id+"/adjustment", `{"gratuity_amount":"150"}`)
	want := stateOf(env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").Body)

	garbled := bytes.Clone(good)
	at := bytes.LastIndex(good[:max(bytes.Index(good, []byte("\r\ntxn:")), 0)], []byte("*3\r\n"))
	if at < 0 {
		t.Fatalf("no transaction record in the snapshot: %.300q", good)
	}
	copy(garbled[at:], strings.Repeat("#", 16))
	last := bytes.LastIndex(good, []byte("\r\n*")) + 2 // the last command
	advice := " and was not restored: delete it or save it again"
	for _, tt := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"garbled", garbled, "Snapshot garbled is damaged at byte " + strconv.Itoa(at) + advice},
		{"cut", good[:last+7], "Snapshot cut is damaged at byte " + strconv.Itoa(last) + advice},
		{"empty", nil, "Snapshot empty is damaged at byte 0" + advice},
		{"zeros", make([]byte, 4096), "Snapshot zeros is not a gp-sandbox snapshot" + advice},
	} {
		mustWrite(t, filepath.Join(dir, "sb.db.snapshots", tt.name+".db"), tt.content)
		before := mustRead(t, db)
		got := env.Do("POST", "/_sandbox/snapshots/"+tt.name+"/restore", nil, "").GPError(t)
		if w := (apitest.Err(500, "SYSTEM_ERROR", "50000", tt.want)); got != w {
			t.Errorf("restore %s:\n got %+v\nwant %+v", tt.name, got, w)
		}
		if after := stateOf(env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").Body); !bytes.Equal(after, want) {
			t.Errorf("restore %s changed the state:\n got %s\nwant %s", tt.name, after, want)
		}
		if after := mustRead(t, db); !bytes.Equal(after, before) {
			t.Errorf("restore %s wrote to the database file", tt.name)
		}
	}
	if _, err := env.Service.RestoreSnapshot("good"); err != nil {
		t.Fatalf("the good snapshot beside them: %v", err)
	}
}

// --snapshot naming a damaged snapshot stops the start with the snapshot's words.
func TestSnapshotDamagedAtStartStopsIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "sb.db.snapshots", "bad.db"), make([]byte, 100))
	_, err := app.Open(app.Config{DB: filepath.Join(dir, "sb.db"), Snapshot: "bad"})
	want := "--snapshot bad: SYSTEM_ERROR 50000: Snapshot bad is not a gp-sandbox snapshot and was not restored: delete it or save it again"
	if err == nil || err.Error() != want {
		t.Fatalf("open with a damaged snapshot: %v\nwant %s", err, want)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustWrite(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// readActionID is the id of a read's own action (GET answers a new TRANSACTION_SINGLE,
// TRANSACTION_LIST or BATCH_SINGLE action each time, as GP does): the request's, not
// the state's, so no snapshot brings it back.
var readActionID = regexp.MustCompile(`"action":\{"id":"ACT_[0-9A-Za-z]+","type":"([A-Z_]+_(?:SINGLE|LIST))"`)

// stateOf is an answer with its read action's id left out: what a snapshot restores.
func stateOf(body []byte) []byte {
	return readActionID.ReplaceAll(body, []byte(`"action":{"id":"ACT_read","type":"$1"`))
}
