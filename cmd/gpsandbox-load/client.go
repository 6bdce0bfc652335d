package main

import (
	"bufio"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loadClient sends the workload's requests the way a GP SDK would: it re-requests its
// access token after a 401 and sends the request once more.
type loadClient struct {
	client    *http.Client
	base      string
	o         options
	statusURL string // set with -notify

	mu    sync.RWMutex
	token string

	lastSale atomic.Pointer[sale] // the latest sale, for refunds
	// generation counts the edges of -reset-every's resets (one as a reset is sent,
	// one when it has been answered): a sale made in another generation than its
	// refund's may have been wiped, and its refund's 404 is the sandbox being right.
	generation atomic.Uint64
}

// sale is a sale the mix made, and the generation it was made in.
type sale struct {
	id         string
	generation uint64
}

// op is one kind of request of the mix.
type op struct {
	name     string
	method   string // POST when empty
	path     string
	body     string
	key      bool  // send a fresh X-GP-Idempotency
	scenario bool  // send X-Sandbox-Scenario
	token    bool  // /accesstoken: no bearer
	sale     *sale // what a refund refunds
}

// A card-present sale of the mix: GP's approved Visa test track, swiped.
const saleBody = `{"account_name":"transaction_processing","channel":"CP","type":"SALE","capture_mode":"AUTO",` +
	`"amount":"1000","currency":"USD","country":"US","reference":"load","payment_method":{"entry_mode":"SWIPE",` +
	`"card":{"track":"%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?","funding":"CREDIT"}}}`

// pick draws the next request of the mix: 10% tokens, 10% placed orders, 10%
// FOR_REVIEW orders, 10% card-present sales (with keys), 5% authorizations, 5% reads
// of a transaction, 5% one-cent refunds of the latest sale, the scenario share, and
// adjustments (half with keys) for the rest.
func (c *loadClient) pick(rng *rand.Rand) op {
	adjust := "/transactions/" + c.o.txn + "/adjustment"
	switch c.o.mix {
	case "adjust":
		return op{name: "adjust", path: adjust, body: `{"gratuity_amount":"150"}`}
	case "adjust-key":
		return op{name: "adjust-key", path: adjust, body: `{"gratuity_amount":"150"}`, key: true}
	}
	orders := "/merchants/" + c.o.merchant + "/orders"
	order := `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}]`
	if c.statusURL != "" {
		order += `,"notifications":{"status_url":"` + c.statusURL + `"}`
	}
	order += "}"
	p := rng.Float64()
	switch {
	case p < 0.10:
		return op{name: "accesstoken", path: "/accesstoken", token: true}
	case p < 0.20:
		return op{name: "order", path: orders, body: order, key: true}
	case p < 0.30:
		return op{name: "order-review", path: orders, body: `{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":2}}]}`}
	case p < 0.40:
		return op{name: "sale", path: "/transactions", body: saleBody, key: true}
	case p < 0.45:
		return op{name: "authorize", path: "/transactions", body: strings.Replace(saleBody, `"AUTO"`, `"LATER"`, 1)}
	case p < 0.50:
		return op{name: "get", method: http.MethodGet, path: "/transactions/" + c.o.txn}
	case p < 0.55:
		if sale := c.lastSale.Load(); sale != nil {
			return op{name: "refund", path: "/transactions/" + sale.id + "/refund", body: `{"amount":"1"}`, sale: sale}
		}
		return op{name: "sale", path: "/transactions", body: saleBody, key: true}
	case p < 0.55+c.o.scenarioShare:
		return op{name: "scenario", path: adjust, body: `{"gratuity_amount":"100"}`, scenario: true}
	case p < 0.75:
		return op{name: "adjust-key", path: adjust, body: `{"gratuity_amount":"150"}`, key: true}
	default:
		return op{name: "adjust", path: adjust, body: `{"gratuity_amount":"150"}`}
	}
}

// answer is what came back for one request.
type answer struct {
	status   int
	code     string // error_code, or the transport error
	scripted bool   // a scenario rule shaped it (X-Sandbox-Rule)
	reset    bool   // a reset wiped what it acted on: a 404 the sandbox owed
	saleID   string // the id a sale answered
	reauth   bool   // a 401 made the client renew its token and resend
}

func (c *loadClient) send(o op, n uint64) answer {
	key := ""
	if o.key {
		key = fmt.Sprintf("load-%d-%d", time.Now().UnixNano(), n)
	}
	a := c.once(o, n, key)
	if a.status == http.StatusUnauthorized && !o.token && !a.scripted {
		// What SDKs do [GP]: a new token, the same request again, same key.
		if err := c.refreshToken(c.currentToken()); err != nil {
			return answer{code: "token: " + err.Error()}
		}
		a = c.once(o, n, key)
		a.reauth = true
	}
	return a
}

func (c *loadClient) once(o op, n uint64, key string) answer {
	generation := c.generation.Load()
	a := c.roundTrip(o, n, key)
	switch {
	case o.name == "sale" && a.saleID != "" && generation%2 == 0 && c.generation.Load() == generation:
		c.lastSale.Store(&sale{id: a.saleID, generation: generation})
	case o.sale != nil && a.status == http.StatusNotFound && c.generation.Load() != o.sale.generation:
		a.reset = true
	}
	return a
}

func (c *loadClient) roundTrip(o op, n uint64, key string) answer {
	body := o.body
	if o.token {
		body = c.tokenBody(fmt.Sprint("load-", n))
	}
	method := o.method
	if method == "" {
		method = http.MethodPost
	}
	req, _ := http.NewRequest(method, c.base+o.path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if !o.token {
		req.Header.Set("Authorization", "Bearer "+c.currentToken())
		req.Header.Set("X-GP-Version", "2021-03-22")
	}
	if key != "" {
		req.Header.Set("X-GP-Idempotency", key)
	}
	if o.scenario {
		req.Header.Set("X-Sandbox-Scenario", c.o.scenario)
		req.Header.Set("X-Sandbox-Session", fmt.Sprint("load-", n%16))
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return answer{code: "transport: " + err.Error()}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, scripted: resp.Header.Get("X-Sandbox-Rule") != ""}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Code string `json:"error_code"`
		}
		json.Unmarshal(raw, &e)
		a.code = e.Code
	} else if o.name == "sale" {
		// The latest sale is what the mix's refunds refund, a cent at a time.
		var t struct{ ID string }
		if json.Unmarshal(raw, &t) == nil {
			a.saleID = t.ID
		}
	}
	return a
}

func (c *loadClient) currentToken() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.token
}

// refreshToken issues a new token unless another worker already replaced stale.
func (c *loadClient) refreshToken(stale string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != stale {
		return nil
	}
	req, _ := http.NewRequest(http.MethodPost, c.base+"/accesstoken", strings.NewReader(c.tokenBody("load")))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var t struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&t); err != nil || t.Token == "" {
		return fmt.Errorf("status %d, no token", resp.StatusCode)
	}
	c.token = t.Token
	return nil
}

func (c *loadClient) tokenBody(nonce string) string {
	sum := sha512.Sum512([]byte(nonce + c.o.appKey))
	return `{"app_id":"` + c.o.appID + `","nonce":"` + nonce + `","secret":"` + hex.EncodeToString(sum[:]) + `","grant_type":"client_credentials"}`
}

// reset wipes the sandbox's state (tokens included: the workers re-authenticate).
func (c *loadClient) reset(rep *report) {
	c.generation.Add(1)
	defer func() {
		c.lastSale.Store(nil)
		c.generation.Add(1)
	}()
	req, _ := http.NewRequest(http.MethodPost, c.base+"/_sandbox/reset", nil)
	c.admin(req)
	resp, err := c.client.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		rep.resetFailures.Add(1)
		return
	}
	rep.resets.Add(1)
}

func (c *loadClient) admin(req *http.Request) {
	if c.o.adminToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.adminToken)
	}
}

// sample reads the server's RSS (from /proc, with -pid) and goroutine count (from
// /_sandbox/debug/pprof, when the sandbox runs with --pprof).
func (c *loadClient) sample() sample {
	s := sample{at: time.Now(), rss: rss(c.o.pid), goroutines: "?"}
	req, _ := http.NewRequest(http.MethodGet, c.base+"/_sandbox/debug/pprof/goroutine?debug=1", nil)
	c.admin(req)
	if resp, err := c.client.Do(req); err == nil {
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		resp.Body.Close()
		if total, ok := strings.CutPrefix(strings.TrimSpace(line), "goroutine profile: total "); ok {
			s.goroutines = total
		}
	}
	return s
}

type sample struct {
	at              time.Time
	rss, goroutines string
}

func (s sample) String() string {
	return fmt.Sprintf("%s  server RSS %s, goroutines %s", s.at.UTC().Format("15:04:05"), s.rss, s.goroutines)
}

// rss reads VmRSS of pid from /proc; "?" when unknown.
func rss(pid int) string {
	if pid == 0 {
		return "?"
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
