package ui_test

// The inspector in a real browser: the sandbox binary is built and started, a few API
// calls are made, and headless Chromium (driven over the DevTools protocol by
// chromedp) opens the inspector and checks what a person would see.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

var docsScreenshots = flag.Bool("docs-screenshots", false, "also write the screenshots to docs/ (the ones the README shows)")

const (
	adminToken  = "inspector-admin-token"
	partnerApp  = "SandboxPartnerAppId0000000000001"
	partnerKey  = "SandboxAppKey001"
	merchantOne = "MER_00000000000000000000000000000001"
	capturedOne = "TRN_CapturedSale000000000000000001"
	deviceOne   = "DEV_00000000000000000000000000000001"
)

// sandboxUnderTest is the built binary, running.
type sandboxUnderTest struct {
	t    *testing.T
	base string
}

func mustStartSandbox(t *testing.T, args ...string) *sandboxUnderTest {
	t.Helper()
	_, base := testrun.Serve(t, testrun.Build(t), append([]string{"--db", ":memory:", "--admin-token", adminToken,
		"--clock", "2021-03-22T10:00:00.000Z", "--seed", "14"}, args...)...)
	return &sandboxUnderTest{t: t, base: base}
}

// call sends one request and returns the status and the decoded JSON answer.
func (s *sandboxUnderTest) call(method, path string, header map[string]string, body string) (int, map[string]any) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &m); err != nil {
		s.t.Fatalf("%s %s: not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, m
}

func (s *sandboxUnderTest) mustToken() string {
	s.t.Helper()
	status, m := s.call("POST", "/accesstoken", nil, `{"app_id":"`+partnerApp+`","nonce":"n1","secret":"`+
		sandbox.Secret("n1", partnerKey)+`","grant_type":"client_credentials"}`)
	if status != 200 {
		s.t.Fatalf("token: %d %v", status, m)
	}
	return m["token"].(string)
}

func apiHeader(tok string, extra ...string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + tok, "X-GP-Version": "2021-03-22"}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// mustDeliveredNotification waits until the order's first notification is delivered.
func (s *sandboxUnderTest) mustDeliveredNotification(orderID string) {
	s.t.Helper()
	testrun.WaitFor(s.t, "the delivery of "+orderID+"'s notification", func() bool {
		_, m := s.call("GET", "/_sandbox/notifications?order_id="+orderID, map[string]string{"Authorization": "Bearer " + adminToken}, "")
		list, _ := m["notifications"].([]any)
		return len(list) > 0 && list[0].(map[string]any)["state"] == "DELIVERED"
	})
}

func TestInspectorInABrowser(t *testing.T) {
	chromium := testrun.Chromium(t)
	sb := mustStartSandbox(t)
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	defer listener.Close()

	tok := sb.mustToken()
	status, adj := sb.call("POST", "/transactions/"+capturedOne+"/adjustment",
		apiHeader(tok, "X-Sandbox-Scenario", "declined-adjustment", "X-Sandbox-Session", "qa-1", "X-GP-Idempotency", "tip-1"),
		`{"gratuity_amount":"500"}`)
	if status != 200 || adj["status"] != "DECLINED" {
		t.Fatalf("scripted adjustment: %d %v", status, adj)
	}
	status, order := sb.call("POST", "/merchants/"+merchantOne+"/orders", apiHeader(tok),
		`{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}],"notifications":{"status_url":"`+listener.URL+`/hook"}}`)
	if status != 200 {
		t.Fatalf("order: %d %v", status, order)
	}
	orderID := order["id"].(string)
	sb.mustDeliveredNotification(orderID)
	status, sale := sb.call("POST", "/transactions", apiHeader(tok), `{"account_name":"transaction_processing","channel":"CP",`+
		`"country":"US","type":"SALE","capture_mode":"AUTO","amount":"1234","currency":"USD","reference":"till-1",`+
		`"payment_method":{"entry_mode":"MANUAL","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"123"}}}`)
	if status != 200 {
		t.Fatalf("sale: %d %v", status, sale)
	}
	// Sales in currencies with no and with three minor digits.
	minorSales := map[string]string{}
	for _, currency := range []string{"JPY", "BHD"} {
		status, m := sb.call("POST", "/transactions", apiHeader(tok), `{"channel":"CP","type":"SALE","amount":"1234","currency":"`+currency+`",`+
			`"payment_method":{"entry_mode":"MANUAL","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"123"}}}`)
		if status != 200 {
			t.Fatalf("%s sale: %d %v", currency, status, m)
		}
		minorSales[currency] = m["id"].(string)
	}
	// A body that would run if the page ever parsed data as HTML.
	sb.call("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok),
		`{"gratuity_amount":"1","note":"<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">"}`)

	b := mustBrowser(t, chromium)
	shots := screenshotDir(t)

	// Requests: the scripted adjustment with its rule; the token left the address bar.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/?token=" + adminToken + "#/requests"))
	b.mustSeeText(`#requests`, "declined-adjustment#0")
	if href := b.mustEval(`location.href`); strings.Contains(href, "token") {
		t.Errorf("the admin token stays in the address bar: %s", href)
	}
	row := b.mustEval(`[...document.querySelectorAll('#requests tbody tr')].find(r => r.textContent.includes('declined-adjustment#0')).textContent`)
	for _, want := range []string{"POST /transactions/TRN_CapturedS…00001/adjustment", "200"} {
		if !strings.Contains(row, want) {
			t.Errorf("the adjustment row %q does not show %q", row, want)
		}
	}
	// The shortened path is whole in the cell's title (a tooltip).
	full := b.mustEval(`[...document.querySelectorAll('#requests td.path')].map(td => td.title).join('\n')`)
	if !strings.Contains(full, "POST /transactions/"+capturedOne+"/adjustment") {
		t.Errorf("no row has the whole path in its title: %s", full)
	}
	b.mustEval(`([...document.querySelectorAll('#requests tbody tr')].find(r => r.textContent.includes('declined-adjustment#0')).querySelector('a').click(), 'ok')`)
	b.mustSeeText(`#request-detail`, "Answered by scenario rule declined-adjustment#0")
	detail := b.mustEval(`document.querySelector('#request-detail').textContent`)
	for _, want := range []string{"consumed", "tip-1", "[REDACTED]", `"status": "DECLINED"`, "qa-1"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the request detail does not show %q: %s", want, detail)
		}
	}
	b.mustShoot(shots, "requests", true)

	// The hostile body is shown as text and never ran.
	b.mustEval(`([...document.querySelectorAll('#requests tbody tr')].find(r => r.textContent.includes('400')).querySelector('a').click(), 'ok')`)
	b.mustSeeText(`#request-detail`, "<script>window.pwned=1</script>")
	if got := b.mustEval(`String(window.pwned) + document.querySelectorAll('#request-detail script, #request-detail img').length`); got != "undefined0" {
		t.Errorf("a request body was run as HTML: %s", got)
	}

	// Live: a new request appears without a reload.
	newest := b.mustEval(`document.querySelector('#requests tbody tr').dataset.seq`)
	if newest == "" {
		t.Fatal("the newest row has no sequence number")
	}
	b.mustEval(`(window.sameDocument = 'yes', 'ok')`)
	sb.call("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok, "X-Sandbox-Session", "live-check"), `{"gratuity_amount":"650"}`)
	var next int
	fmt.Sscan(newest, &next)
	b.mustSeeText(fmt.Sprintf(`#requests tbody tr[data-seq="%d"]`, next+1), "/transactions/TRN_CapturedS…00001/adjustment")
	if b.mustEval(`String(window.sameDocument)`) != "yes" {
		t.Error("the page reloaded to show the new request")
	}
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/requests?session=live-check"))
	b.mustSeeText(`#requests tbody`, "/transactions/TRN_CapturedS…00001/adjustment")

	// Filtering from the form: only the scripted request is left.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/requests"))
	b.mustSeeText(`#requests`, "declined-adjustment#0")
	b.mustEval(`(document.querySelector('#filter-scenario').value = 'declined-adjustment', document.querySelector('form.filters').requestSubmit(), 'ok')`)
	b.mustSeeText(`#count`, "1 request shown")
	if got := b.mustEval(`location.hash`); got != "#/requests?scenario=declined-adjustment" {
		t.Errorf("the filter is not in the address: %s", got)
	}

	// Resources: the transaction's new gratuity and its history.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/transactions/" + capturedOne))
	b.mustSeeText(`#resource-detail`, "Adjustments (")
	tx := b.mustEval(`document.querySelector('#resource-detail').textContent`)
	for _, want := range []string{"Amount10.00 USD", "Gratuity6.50 USD", "gratuity_amount: 500 → 650", "gratuity_amount: (none) → 500"} {
		if !strings.Contains(tx, want) {
			t.Errorf("the transaction view does not show %q: %s", want, tx)
		}
	}
	// Amounts are shown in major units; the minor units the API sends are in the title.
	titles := b.mustEval(`[...document.querySelectorAll('#resource-detail .money, #transactions .money')].map(e => e.textContent + ' = ' + e.title).join('\n')`)
	for _, want := range []string{"10.00 USD = 1000 ", "6.50 USD = 650 "} {
		if !strings.Contains(titles, want) {
			t.Errorf("no amount shows %q (text = title): %s", want, titles)
		}
	}
	for currency, want := range map[string]string{"JPY": "Amount1234 JPY", "BHD": "Amount1.234 BHD"} {
		b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/transactions/" + minorSales[currency]))
		b.mustSeeText(`#resource-detail`, want)
	}
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/transactions/" + capturedOne))
	b.mustSeeText(`#resource-detail`, "Gratuity6.50 USD") // this sale's own detail, not the last one's
	b.mustShoot(shots, "resources", true)

	// The skip link, from the keyboard: focus moves to the content, the view stays.
	if got := b.mustEval(`(document.querySelector('a.skip').focus(), document.activeElement.textContent)`); got != "Skip to content" {
		t.Fatalf("the skip link cannot take focus: %q has it", got)
	}
	b.mustRun(chromedp.KeyEvent(kb.Enter))
	if got := b.mustEval(`[location.hash, document.activeElement.id, document.querySelector('.top nav a[aria-current]').textContent].join(' ')`); got != "#/transactions/"+capturedOne+" main Resources" {
		t.Errorf("after Skip to content: hash, focus and view are %q, want the transaction, main, Resources", got)
	}
	b.mustSeeText(`#resource-detail`, "Adjustments (")

	// The sale's batch, from the sale.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/transactions/" + sale["id"].(string)))
	b.mustSeeText(`#resource-detail`, sale["batch_id"].(string))
	b.mustEval(`([...document.querySelectorAll('#resource-detail a')].find(a => a.textContent.startsWith('BAT_')).click(), 'ok')`)
	b.mustSeeText(`#resource-detail`, "made when the batch closes")
	b.mustSeeText(`#resource-detail`, sale["id"].(string))
	b.mustSeeText(`#batches`, sale["batch_id"].(string))

	// Notifications: the delivered attempt, its signature.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/notifications/" + orderID + "/1"))
	b.mustSeeText(`#notification-detail`, "HTTP 200")
	ntf := b.mustEval(`document.querySelector('#notification-detail').textContent`)
	for _, want := range []string{"DELIVERED", "delivered", "X-GP-Signature", listener.URL + "/hook"} {
		if !strings.Contains(ntf, want) {
			t.Errorf("the notification view does not show %q: %s", want, ntf)
		}
	}
	b.mustShoot(shots, "notifications", true)

	// Scenarios and clock: the loaded scenarios, the session, and the clock moved.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/scenarios"))
	b.mustSeeText(`#scenarios`, "declined-adjustment.yaml")
	b.mustSeeText(`main`, "qa-1")
	b.mustEval(`([...document.querySelectorAll('button')].find(b => b.textContent === '+1h').click(), 'ok')`)
	b.mustSeeText(`#clock-now`, "2021-03-22 11:00:")
	b.mustShoot(shots, "scenarios", true)

	// Coverage: the checklist against the journal, each covered item linking to its
	// requests.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/coverage"))
	b.mustSeeText(`#coverage-summary`, "checklist items covered")
	for item, want := range map[string]string{"sale.manual": "covered", "tip.adjustment": "covered", "notification.delivered": "covered", "reversal": "not covered"} {
		got := b.mustEval(fmt.Sprintf(`document.querySelector('#coverage tr[data-item=%q] .badge').textContent`, item))
		if got != want {
			t.Errorf("coverage of %s: %q, want %q", item, got, want)
		}
	}
	b.mustEval(`(document.querySelector('#coverage tr[data-item="sale.manual"] a').click(), 'ok')`)
	b.mustSeeText(`#request-detail`, "till-1")
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/coverage"))
	b.mustSeeText(`#coverage`, "Keyed (manual) sale")
	if problems := b.mustEval(fmt.Sprintf(tableFitJS, "#coverage")); problems != "" {
		t.Errorf("#/coverage:\n%s", problems)
	}
	b.mustShoot(shots, "coverage", true)

	// Common desktop widths: every cell is wide enough for its longest word (a path
	// breaks after a /, never letter by letter), nothing spills out of its cell, and a
	// table wider than its panel scrolls there rather than running off the page.
	for _, width := range []int64{1024, 1400} {
		b.mustRun(chromedp.EmulateViewport(width, 900))
		for _, view := range []string{"requests", "transactions/" + capturedOne, "orders", "batches"} {
			b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/" + view))
			table := "#" + strings.Split(view, "/")[0]
			b.mustSeeText(table+` tbody`, "_")
			if view == "batches" {
				b.mustSeeText(`#resource-detail`, "Select a batch to see")
				if got := b.mustEval(`document.querySelector('#lookup').placeholder`); got != "BAT_…" {
					t.Errorf("the batches' lookup suggests %q", got)
				}
			}
			if problems := b.mustEval(fmt.Sprintf(tableFitJS, table)); problems != "" {
				t.Errorf("at %dpx, #/%s:\n%s", width, view, problems)
			}
			b.mustShoot(shots, fmt.Sprintf("%s-%d", table[1:], width), false)
		}
	}

	// A narrow window: the views stack and nothing runs off the side.
	b.mustRun(chromedp.EmulateViewport(420, 800))
	for _, view := range []string{"requests?scenario=declined-adjustment", "transactions/" + capturedOne, "notifications/" + orderID + "/1", "scenarios", "terminal", "coverage"} {
		b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/" + view))
		b.mustSeeText(`main`, "")
		if strings.HasPrefix(view, "requests") {
			b.mustSeeText(`#requests`, "declined-adjustment#0")
			b.mustEval(`(document.querySelector('#requests tbody tr a').click(), 'ok')`)
			b.mustSeeText(`#request-detail`, "Answered by scenario rule")
		}
		if over := b.mustEval(`String(document.documentElement.scrollWidth - window.innerWidth)`); over != "0" {
			t.Errorf("#/%s is %spx wider than a 420px window", view, over)
		}
	}
	b.mustShoot(shots, "narrow", false)
}

// micSale is a Meet in the Cloud sale of 10.00 that names no tip, so the terminal
// asks the customer for one.
const micSale = `{"account_name":"transaction_processing","channel":"CP","country":"US","currency":"USD","reference":"till-7",` +
	`"request":{"message":"MSG","data":{"command":"Sale","requestId":"7","EcrId":"13","data":{"transaction":{"baseAmount":"10.00"}}}}}`

// The Terminal view: a sale sent through POST /devices waits on the terminal's screen;
// a person chooses a tip and presents a card by clicking, and sees it approved; the
// transaction is the API's, with the tip and the masked card. Then a sale the
// customer cancels.
func TestTerminalInABrowser(t *testing.T) {
	chromium := testrun.Chromium(t)
	sb := mustStartSandbox(t, "--terminal-delay", "0") // nothing completes a sale but the clicks
	admin := map[string]string{"Authorization": "Bearer " + adminToken}
	if status, m := sb.call("POST", "/_sandbox/devices/"+deviceOne, admin, `{"mode":"INITIATED"}`); status != 200 {
		t.Fatalf("INITIATED mode: %d %v", status, m)
	}
	tok := sb.mustToken()
	status, sale := sb.call("POST", "/devices", apiHeader(tok), micSale)
	if status != 200 || sale["status"] != "INITIATED" {
		t.Fatalf("sale: %d %v", status, sale)
	}
	saleID := sale["id"].(string)

	b := mustBrowser(t, chromium)
	shots := screenshotDir(t)
	panel := `#terminal-` + deviceOne
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/?token=" + adminToken + "#/terminal"))
	for _, want := range []string{"Sale", "10.00 USD", "Add a tip?", "Insert, tap or swipe"} {
		b.mustSeeText(panel+` .screen`, want)
	}
	// The test cards by name, brand and masked number; never a whole card number.
	b.mustSeeText(panel, "visa_contactless VISA 401200******0016 · tap")
	if page := b.mustEval(`document.body.textContent`); strings.Contains(page, "4012002000060016") {
		t.Error("the page shows a whole card number")
	}

	b.mustEval(`([...document.querySelectorAll('` + panel + ` button')].find(b => b.textContent.startsWith('20%')).click(), 'ok')`)
	b.mustSeeText(panel+` .screen`, "Tip 2.00 · Total 12.00 USD")
	b.mustShoot(shots, "terminal", true)
	b.mustEval(`(document.querySelector('` + panel + ` button[data-card="visa_contactless"]').click(), 'ok')`)
	b.mustSeeText(panel+` .screen`, "Sale: APPROVED 12.00 USD")
	b.mustSeeText(panel+` .screen`, "VISA 401200******0016 · Contactless")

	_, done := sb.call("GET", "/_sandbox/device-requests/"+saleID, admin, "")
	host, _ := dig(done, "response", "data", "host").(map[string]any)
	if done["status"] != "COMPLETE" || host == nil || host["tipAmount"] != "2.00" || host["totalAmount"] != "12.00" {
		t.Fatalf("the device request after the clicks: %v", done)
	}
	trn := host["referenceNumber"].(string)
	b.mustSeeText(panel+` .screen`, trn)
	status, txn := sb.call("GET", "/transactions/"+trn, apiHeader(tok), "")
	if status != 200 || txn["status"] != "CAPTURED" || txn["amount"] != "1000" || dig(txn, "payment_method", "entry_mode") != "CONTACTLESS_CHIP" ||
		dig(txn, "payment_method", "card", "masked_number_last4") != "XXXXXXXXXXXX0016" {
		t.Errorf("GET /transactions/%s: %d %v", trn, status, txn)
	}
	if _, stored := sb.call("GET", "/_sandbox/transactions/"+trn, admin, ""); stored["gratuity_amount"] != "200" {
		t.Errorf("the transaction's tip: %v", stored["gratuity_amount"])
	}

	// A tip typed in, then the customer cancels: no sale.
	status, sale = sb.call("POST", "/devices", apiHeader(tok), micSale)
	if status != 200 || sale["status"] != "INITIATED" {
		t.Fatalf("second sale: %d %v", status, sale)
	}
	b.mustSeeText(panel+` .screen`, "Insert, tap or swipe") // the view refreshes by itself
	b.mustEval(`(document.querySelector('#tip-` + deviceOne + `').value = '1.5', document.querySelector('#tip-` + deviceOne + `').form.requestSubmit(), 'ok')`)
	b.mustSeeText(panel+` .screen`, "Tip 1.50 · Total 11.50 USD")
	b.mustEval(`(document.querySelector('#cancel-` + deviceOne + `').click(), 'ok')`)
	b.mustSeeText(panel+` .screen`, "Sale: TRANSACTION CANCELLED BY CUSTOMER")
	if _, d := sb.call("GET", "/_sandbox/device-requests/"+sale["id"].(string), admin, ""); d["status"] != "DECLINED" {
		t.Errorf("the cancelled sale: %v", d)
	}

	// Two commands back to back: the second waits its turn, listed under the screen;
	// a signature needs the customer but no card.
	signature := strings.Replace(micSale, `"command":"Sale","requestId":"7","EcrId":"13","data":{"transaction":{"baseAmount":"10.00"}}`,
		`"command":"GetSignature","requestId":"8","EcrId":"13","data":{"params":{"prompt1":"Please sign"}}`, 1)
	for _, body := range []string{micSale, signature} {
		if status, d := sb.call("POST", "/devices", apiHeader(tok), body); status != 200 || d["status"] != "INITIATED" {
			t.Fatalf("queued: %d %v", status, d)
		}
	}
	b.mustSeeText(panel, "1 queued behind it: GetSignature")
	b.mustEval(`(document.querySelector('` + panel + ` button[data-card="visa_chip"]').click(), 'ok')`)
	b.mustSeeText(panel+` .screen`, "Waiting for the customer")
	b.mustEval(`(document.querySelector('#complete-` + deviceOne + `').click(), 'ok')`)
	b.mustSeeText(panel+` .screen`, "GetSignature: APPROVED")

	// Each click is in the journal.
	for op, want := range map[string]float64{"terminal_tip": 2, "terminal_present": 3, "terminal_cancel": 1} {
		if _, c := sb.call("GET", "/_sandbox/requests/count?operation="+op, admin, ""); c["count"] != want {
			t.Errorf("%s journaled %v times, want %v", op, c["count"], want)
		}
	}
}

// dig walks a decoded JSON object by its keys.
func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	return v
}

// tableFitJS (with the table's selector) lists, one a line, the cells of the table that
// are narrower than their longest unbreakable piece of text (a word, or a path up to and
// including a /) or whose content spills out, and the table when it runs past the
// window without a scrolling or clipping container inside the window.
const tableFitJS = `(() => {
  const table = document.querySelector(%q);
  if (!table) return 'no table';
  const ctx = document.createElement('canvas').getContext('2d');
  const problems = [];
  for (const td of table.querySelectorAll('tbody td')) {
    const cs = getComputedStyle(td);
    const room = td.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const where = 'column ' + (td.cellIndex + 1) + ' (' + td.textContent.trim().slice(0, 40) + ')';
    if (td.scrollWidth > td.clientWidth + 1) problems.push(where + ': content ' + td.scrollWidth + 'px spills out of ' + td.clientWidth + 'px');
    const texts = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let n; (n = texts.nextNode());) {
      const s = getComputedStyle(n.parentElement);
      if (s.whiteSpace === 'nowrap') continue; // measured whole by the spill check
      ctx.font = s.fontStyle + ' ' + s.fontWeight + ' ' + s.fontSize + ' ' + s.fontFamily;
      for (const piece of n.textContent.split(/\s+/).flatMap((w) => w.split(/(?<=\/)/))) {
        const w = ctx.measureText(piece).width;
        if (w > room + 1) problems.push(where + ': "' + piece + '" needs ' + Math.ceil(w) + 'px, has ' + Math.floor(room) + 'px');
      }
    }
  }
  const right = table.getBoundingClientRect().right;
  let box = table.parentElement;
  while (box && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
  const edge = box && box !== document.documentElement && box !== document.body ? box.getBoundingClientRect().right : innerWidth;
  if (right > edge + 1 && !box) problems.push('the table runs ' + Math.ceil(right - edge) + 'px past the window');
  if (edge > innerWidth + 1) problems.push('the table\'s container runs ' + Math.ceil(edge - innerWidth) + 'px past the window');
  if (document.documentElement.scrollWidth > innerWidth) problems.push('the page is ' + (document.documentElement.scrollWidth - innerWidth) + 'px wider than the window');
  return problems.join('\n');
})()`

// browser is one headless Chromium tab.
type browser struct {
	t   *testing.T
	ctx context.Context
}

func mustBrowser(t *testing.T, path string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.WindowSize(1280, 800),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithDeadline(ctx, testrun.Deadline(t))
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}
	b.mustRun(chromedp.EmulateViewport(1280, 800))
	return b
}

func (b *browser) mustRun(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

func (b *browser) mustEval(js string) string {
	b.t.Helper()
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Fatalf("browser: %s: %v", js, err)
	}
	return out
}

// mustSeeText waits until the element shows text, as a person waiting for the page would.
func (b *browser) mustSeeText(selector, text string) {
	b.t.Helper()
	// The poll gives up a few seconds before the browser's own deadline, so that the
	// page can still be read to say what it showed instead.
	ctx, cancel := context.WithDeadline(b.ctx, testrun.Deadline(b.t).Add(-5*time.Second))
	defer cancel()
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q); })()`, selector, text)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		got, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {textContent: '(no element)'}).textContent`, selector)))
		b.t.Fatalf("%s never showed %q: %v; it shows: %.2000s", selector, text, err, got)
	}
}

// mustShoot saves a screenshot in dir, and in docs/ with -docs-screenshots when it is
// one of the views the documentation shows.
func (b *browser) mustShoot(dir, name string, docs bool) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
	if docs && *docsScreenshots {
		if err := os.WriteFile(filepath.Join("docs", name+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

// screenshotDir is $GPSANDBOX_SCREENSHOTS when set (CI keeps it), else a temp dir.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("GPSANDBOX_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
