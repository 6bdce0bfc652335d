package sandbox

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Batch statuses.
const (
	BatchStatusOpen   = "OPEN"
	BatchStatusClosed = "CLOSED"
)

// Batch is the settlement batch of one merchant account: captured transactions join
// the open one; closing it settles them, and the next capture opens a new one.
type Batch struct {
	ID string `json:"id"`
	Holder
	AppID        string        `json:"app_id"`
	Status       string        `json:"status"`
	Currency     string        `json:"currency"`
	Country      string        `json:"country"`
	Channel      string        `json:"channel,omitempty"` // CNP for a card-not-present batch; "" card present
	TimeCreated  time.Time     `json:"time_created"`
	TimeClosed   time.Time     `json:"time_closed,omitzero"`
	ClosedBy     string        `json:"closed_by,omitempty"` // "request" or "batch_close_time"
	DeviceID     string        `json:"device_id,omitempty"` // the terminal whose end of day closed it
	Count        int           `json:"transaction_count"`
	Amount       string        `json:"amount"`
	Action       Action        `json:"action"`
	OpenActionID string        `json:"open_action_id,omitempty"`
	BatchTotals                // the summary of a closed batch, kept for later reads
	Brands       []BrandTotals `json:"brands,omitempty"`
	Members      []string      `json:"-"` // filled by BatchState for the admin API
}

// Totals is a count of transactions and their amount in minor units.
type Totals struct {
	Count  int    `json:"count"`
	Amount string `json:"amount"`
}

// BatchTotals is what a batch close sums up: its sales (their gratuity included)
// and refunds, and the tips among the sales. Funding follows them: sales credit the
// merchant, refunds debit it [SB].
type BatchTotals struct {
	Sales          Totals `json:"sales"`
	Refunds        Totals `json:"refunds"`
	GratuityAmount string `json:"gratuity_amount"`
}

// BrandTotals is a batch's totals for one card brand.
type BrandTotals struct {
	Brand string `json:"brand"`
	BatchTotals
}

// Net is what the totals settle: sales less refunds.
func (t BatchTotals) Net() string { return sub(t.Sales.Amount, t.Refunds.Amount) }

// Transactions is how many transactions the totals hold.
func (t BatchTotals) Transactions() int { return t.Sales.Count + t.Refunds.Count }

// zeroTotals are the totals of no transaction, every amount "0".
func zeroTotals() BatchTotals {
	return BatchTotals{Sales: Totals{Amount: "0"}, Refunds: Totals{Amount: "0"}, GratuityAmount: "0"}
}

// add counts a captured transaction in the totals.
func (t *BatchTotals) add(tr Transaction) {
	if tr.Type == TypeRefund {
		addCount(&t.Refunds, tr.SettledAmount())
		return
	}
	t.GratuityAmount = add(tr.GratuityAmount, t.GratuityAmount)
	addCount(&t.Sales, tr.SettledAmount())
}

// batchIDPattern is what GP takes for a batch id: letters, digits and underscores
// (GP's are BAT_ and digits). One that names no batch is 404 40118 (the Java SDK's
// CloseBatch_WithInvalidBatchReference sends 32 hex digits); anything else, a dashed
// GUID say, 400 40213 (PHP testBatchClose_WithInvalidBatchReference) [GP].
var batchIDPattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,50}$`)

// ValidBatchID reports whether id has the shape of a batch id.
func ValidBatchID(id string) bool { return batchIDPattern.MatchString(id) }

// batchCloseTimePattern is the accepted batch_close_time: HH:MM, 24-hour, UTC [SB].
var batchCloseTimePattern = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// ValidBatchCloseTime reports whether s is an accepted batch_close_time.
func ValidBatchCloseTime(s string) bool { return batchCloseTimePattern.MatchString(s) }

// A merchant account's captured payments share an open batch per merchant
// configuration, as GP keeps them: a channel, a country and a currency (GP's 40041
// names the three: "country - US, channel - CP, currency - PLN") [GP]. Two meta
// records name an open batch: its configuration's (configBatchMeta), which a payment
// joins and a terminal's end of day closes, and the account's on the channel
// (openBatchMeta), the batch it opened last, whose country and currency a close naming
// none takes. A file written before batches were kept per configuration has the
// account's record only, naming a batch of the one currency it took in.

// openBatchMeta names the meta record holding the batch a merchant account opened
// last on a channel: card-not-present payments have a batch of their own, which GP
// gives them an id for but has no configuration to close (CloseBatch) [GP].
func openBatchMeta(merchantID, accountID, channel string) string {
	if channel == ChannelCNP {
		return "open_batch:" + merchantID + ":" + accountID + ":" + ChannelCNP
	}
	return "open_batch:" + merchantID + ":" + accountID
}

// configBatchMeta names the meta record holding the open batch of a merchant
// account's configuration: its channel, country and currency.
func configBatchMeta(merchantID, accountID, channel, country, currency string) string {
	return openBatchMeta(merchantID, accountID, channel) + ":" + country + ":" + currency
}

// configOpenBatch returns the id of the open batch of a merchant account's
// configuration, "" when it has none. A configuration no record names yet may have
// its batch in a file written before, named by the account's record alone:
// keepOlderOpenBatch names it first.
func configOpenBatch(tx Tx, merchantID, accountID, channel, country, currency string) (string, error) {
	key := configBatchMeta(merchantID, accountID, channel, country, currency)
	id, err := tx.Meta(key)
	if errors.Is(err, ErrNotFound) {
		if err = keepOlderOpenBatch(tx, merchantID, accountID, channel); err == nil {
			id, err = tx.Meta(key)
		}
	}
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	return id, err
}

const batchSeqMeta = "batch_seq"

// joinBatch puts a captured transaction into its merchant configuration's open batch,
// opening one when there is none (or when the merchant's daily close time has closed
// the last one).
func (s *Service) joinBatch(tx Tx, t *Transaction, now time.Time) error {
	b, err := s.openBatch(tx, t, now)
	if err != nil {
		return err
	}
	t.BatchID, t.BatchClosed = b.ID, false
	return tx.PutBatchMember(b.ID, t.ID)
}

// openBatch returns the open batch of the transaction's merchant configuration,
// opening a new one if needed.
func (s *Service) openBatch(tx Tx, t *Transaction, now time.Time) (Batch, error) {
	id, err := configOpenBatch(tx, t.MerchantID, t.AccountID, t.Channel, t.Country, t.Currency)
	if err != nil {
		return Batch{}, err
	}
	if id != "" {
		b, err := tx.Batch(id)
		if err != nil {
			return Batch{}, err
		}
		if closed, err := s.closeIfDue(tx, &b, now); err != nil || !closed {
			return b, err
		}
	}
	id, seq, err := newBatchID(tx)
	if err != nil {
		return Batch{}, err
	}
	b := Batch{
		ID: id, Holder: t.Holder, AppID: t.AppID, Status: BatchStatusOpen,
		Currency: t.Currency, Country: t.Country, TimeCreated: now, Amount: "0", OpenActionID: t.Action.ID,
	}
	if t.Channel == ChannelCNP {
		b.Channel = ChannelCNP
	}
	if err := tx.PutMeta(batchSeqMeta, strconv.Itoa(seq)); err != nil {
		return Batch{}, err
	}
	for _, key := range []string{openBatchMeta(t.MerchantID, t.AccountID, t.Channel),
		configBatchMeta(t.MerchantID, t.AccountID, t.Channel, t.Country, t.Currency)} {
		if err := tx.PutMeta(key, b.ID); err != nil {
			return Batch{}, err
		}
	}
	return b, tx.PutBatch(b)
}

// keepOlderOpenBatch names, by its configuration's record, the open batch that an
// account's record names when no configuration record does (a file written before).
// configOpenBatch calls it the first time it meets a configuration no record names,
// which in such a file comes before any batch is opened under a configuration's
// record: so the older batch stays the open batch of its country and currency.
func keepOlderOpenBatch(tx Tx, merchantID, accountID, channel string) error {
	id, err := tx.Meta(openBatchMeta(merchantID, accountID, channel))
	if errors.Is(err, ErrNotFound) || err == nil && id == "" {
		return nil
	} else if err != nil {
		return err
	}
	b, err := tx.Batch(id)
	if errors.Is(err, ErrNotFound) || err == nil && b.Status != BatchStatusOpen {
		return nil
	} else if err != nil {
		return err
	}
	key := configBatchMeta(merchantID, accountID, channel, b.Country, b.Currency)
	if _, err := tx.Meta(key); !errors.Is(err, ErrNotFound) {
		return err // named already, or the read failed
	}
	return tx.PutMeta(key, id)
}

// newBatchID numbers the next batch BAT_<1000000+seq>, passing over every id already
// taken: a seeded or fixture transaction may name a batch the sandbox has not opened
// (it is that batch's member), and a batch opened under its id would take it in,
// whatever its merchant.
func newBatchID(tx Tx) (id string, seq int, err error) {
	if v, err := tx.Meta(batchSeqMeta); err == nil {
		seq, _ = strconv.Atoi(v)
	} else if !errors.Is(err, ErrNotFound) {
		return "", 0, err
	}
	for {
		seq++
		id = fmt.Sprintf("BAT_%d", 1000000+seq)
		taken, err := batchIDTaken(tx, id)
		if err != nil || !taken {
			return id, seq, err
		}
	}
}

// batchIDTaken reports whether a batch record or a member names id.
func batchIDTaken(tx Tx, id string) (bool, error) {
	if _, err := tx.Batch(id); err == nil {
		return true, nil
	} else if !errors.Is(err, ErrNotFound) {
		return false, err
	}
	members, err := tx.BatchMembers(id)
	return len(members) > 0, err
}

// dueCloseTime is the most recent daily close of the merchant at or before now, and
// whether a batch opened at opened should have been closed by it.
func dueCloseTime(closeTime string, opened, now time.Time) (time.Time, bool) {
	if !ValidBatchCloseTime(closeTime) {
		return time.Time{}, false
	}
	hh, _ := strconv.Atoi(closeTime[:2])
	mm, _ := strconv.Atoi(closeTime[3:])
	now = now.UTC()
	at := time.Date(now.Year(), now.Month(), now.Day(), hh, mm, 0, 0, time.UTC)
	if at.After(now) {
		at = at.AddDate(0, 0, -1)
	}
	return at, opened.Before(at)
}

// closeIfDue closes an open batch whose merchant's daily close time has passed since
// it opened, as of that close time. The sandbox closes batches when it next looks at
// them rather than on a timer: the answer is the same, and it follows the sandbox
// clock however it is moved.
func (s *Service) closeIfDue(tx Tx, b *Batch, now time.Time) (bool, error) {
	if b.Status != BatchStatusOpen {
		return b.Status == BatchStatusClosed, nil
	}
	m, err := tx.Merchant(b.MerchantID)
	if errors.Is(err, ErrNotFound) {
		return false, nil // a merchant the fixtures dropped has no close time
	} else if err != nil {
		return false, err
	}
	at, due := dueCloseTime(m.BatchCloseTime, b.TimeCreated, now)
	if !due {
		return false, nil
	}
	b.Action = Action{
		ID: "ACT_" + s.ids.Alphanumeric(30), Type: "CLOSE", TimeCreated: FormatTime(at),
		ResultCode: "SUCCESS", AppID: b.AppID,
	}
	return true, s.settle(tx, b, at, "batch_close_time")
}

// settle closes a batch: its captured transactions are counted and totalled, in all
// and by brand, each is marked as in a closed batch, and its merchant configuration
// has no open batch until the next capture.
func (s *Service) settle(tx Tx, b *Batch, at time.Time, by string) error {
	members, err := tally(tx, b)
	if err != nil {
		return err
	}
	for _, t := range members {
		t.BatchClosed = true
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
	}
	b.Status, b.TimeClosed, b.ClosedBy = BatchStatusClosed, at, by
	if err := s.fundBatch(tx, b, members, at); err != nil {
		return err
	}
	if err := forgetOpenBatch(tx, *b); err != nil {
		return err
	}
	return tx.PutBatch(*b)
}

// forgetOpenBatch clears the meta records that name b as open: its configuration's,
// and its account's when b is the batch the account opened last.
func forgetOpenBatch(tx Tx, b Batch) error {
	for _, key := range []string{openBatchMeta(b.MerchantID, b.AccountID, b.Channel),
		configBatchMeta(b.MerchantID, b.AccountID, b.Channel, b.Country, b.Currency)} {
		id, err := tx.Meta(key)
		if errors.Is(err, ErrNotFound) || err == nil && id != b.ID {
			continue
		} else if err != nil {
			return err
		}
		if err := tx.PutMeta(key, ""); err != nil {
			return err
		}
	}
	return nil
}

// tally sums up a batch's captured transactions, in all and by brand, into its
// totals, and returns every transaction that joined it.
func tally(tx Tx, b *Batch) ([]Transaction, error) {
	ids, err := tx.BatchMembers(b.ID)
	if err != nil {
		return nil, err
	}
	totals, members := zeroTotals(), make([]Transaction, 0, len(ids))
	var brands []BrandTotals
	for _, id := range ids {
		t, err := tx.Transaction(id)
		if errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		if t.Status == StatusCaptured && t.BatchID == b.ID {
			totals.add(t)
			brands = addByBrand(brands, t)
		}
		members = append(members, t)
	}
	slices.SortFunc(brands, func(a, b BrandTotals) int { return strings.Compare(a.Brand, b.Brand) })
	b.BatchTotals, b.Brands = totals, brands
	b.Count, b.Amount = totals.Transactions(), totals.Net()
	return members, nil
}

// addByBrand counts t in its brand's totals.
func addByBrand(brands []BrandTotals, t Transaction) []BrandTotals {
	brand := t.Card.Brand
	if brand == "" {
		brand = t.PaymentMethod.Card.Brand
	}
	for i := range brands {
		if brands[i].Brand == brand {
			brands[i].add(t)
			return brands
		}
	}
	bt := BrandTotals{Brand: brand, BatchTotals: zeroTotals()}
	bt.add(t)
	return append(brands, bt)
}

// CloseBatchRequest is POST /batches/{batch_id}, or POST /batches when BatchID is
// empty: then the account (by id or name, else the app's first transaction-processing
// account) names the batch, its open one, and channel, currency and country, when
// given, must be that batch's.
type CloseBatchRequest struct {
	BatchID     string
	MerchantID  string // set on the partner path
	AccountID   string
	AccountName string
	Channel     string
	Currency    string
	Country     string
	Idempotency Idempotency
}

// CloseBatch closes an open batch on request and answers its summary.
func (s *Service) CloseBatch(c Caller, req CloseBatchRequest) (Batch, error) {
	v, _, err := execute(s, c, req.Idempotency, "batch", func(tx Tx, now time.Time) (string, Batch, error) {
		b, err := s.batchToClose(tx, c, req)
		if err != nil {
			return "", Batch{}, err
		}
		closed, err := s.closeIfDue(tx, &b, now)
		if err != nil {
			return "", Batch{}, err
		}
		if closed {
			return "", Batch{}, BatchAlreadyClosed()
		}
		if err := settleable(tx, &b); err != nil {
			return "", Batch{}, err
		}
		b.Action = s.newAction(c, "CLOSE", now)
		if err := s.settle(tx, &b, now, "request"); err != nil {
			return "", Batch{}, err
		}
		return b.ID, b, nil
	})
	return v, err
}

// settleable refuses the close of a batch with nothing to settle, and leaves it open:
// one holding declined sales only is GP's 500010 (the PHP SDK's
// testBatchClose_WithCardNumberDetails_DeclinedTransaction, of 2026: its Java and .NET
// twins, older, expect 40017 and 50004, which a scenario can script), any other 40017.
func settleable(tx Tx, b *Batch) error {
	members, err := tally(tx, b)
	if err != nil || b.Count > 0 {
		return err
	}
	if slices.ContainsFunc(members, func(t Transaction) bool { return t.Status == StatusDeclined }) {
		return BatchAlreadyClosed()
	}
	return EmptyBatch()
}

// batchToClose finds the batch a close names: by id, or the open batch of the
// merchant configuration it names.
func (s *Service) batchToClose(tx Tx, c Caller, req CloseBatchRequest) (Batch, error) {
	if req.BatchID != "" {
		b, err := s.visibleBatch(tx, c, req.MerchantID, req.BatchID)
		if err == nil && b.Channel == ChannelCNP {
			// GP's sandbox gives a card-not-present sale a batch id, and closing it is
			// its 40041 (PHP testBatchClose_CardNotPresentChannel) [GP].
			return Batch{}, NoCNPBatchConfiguration(b.Country, b.Currency)
		}
		return b, err
	}
	m, acct, err := s.transactionAccount(tx, c, TransactionRequest{
		MerchantID: req.MerchantID, AccountID: req.AccountID, AccountName: req.AccountName,
	})
	if err != nil {
		return Batch{}, err
	}
	// What the request does not name is that of the batch the account opened last,
	// else US and USD.
	last, err := tx.Meta(openBatchMeta(m.ID, acct.ID, ChannelCP))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Batch{}, err
	}
	var b Batch
	if last != "" {
		if b, err = tx.Batch(last); err != nil {
			return Batch{}, err
		}
	}
	country, channel, currency := orDefault(req.Country, b.Country, "US"), orDefault(req.Channel, ChannelCP), orDefault(req.Currency, b.Currency, "USD")
	id := ""
	if channel == ChannelCP {
		if id, err = configOpenBatch(tx, m.ID, acct.ID, channel, country, currency); err != nil {
			return Batch{}, err
		}
	}
	switch {
	case id == "" && last == "" && req.Currency == "" && req.Channel == "" && req.Country == "":
		return Batch{}, BatchIDMissing() // nothing open and nothing to name a configuration by [SB]
	case id == "":
		return Batch{}, NoBatchConfiguration(country, channel, currency)
	case id == last:
		return b, nil
	}
	return tx.Batch(id)
}

// visibleBatch reads a batch the caller may see: one of a merchant its app acts for,
// and the partner path's merchant when the path names one. Any other is unknown.
func (s *Service) visibleBatch(tx Tx, c Caller, merchantID, id string) (Batch, error) {
	return visible(c, merchantID, id, tx.Batch, NotFoundBatch)
}

// GetBatch reads a batch: the summary of a closed one as its close answered it, or an
// open one as it stands (closed first if its merchant's close time has passed).
func (s *Service) GetBatch(c Caller, merchantID, id string) (Batch, error) {
	var b Batch
	err := s.update(c.Rehearsal, func(tx Tx) error {
		var err error
		if b, err = s.visibleBatch(tx, c, merchantID, id); err != nil {
			return err
		}
		if _, err := s.closeIfDue(tx, &b, s.clock.Now()); err != nil {
			return err
		}
		return tallyOpen(tx, &b)
	})
	return b, err
}

// BatchState returns a batch and its members for the admin API, closed first if its
// merchant's close time has passed; an open one with its totals as they stand, as
// GetBatch answers it.
func (s *Service) BatchState(id string) (Batch, error) {
	var b Batch
	err := s.store.Update(func(tx Tx) error {
		var err error
		if b, err = tx.Batch(id); err != nil {
			return notFoundAs(err, NotFoundBatch(id))
		}
		if _, err = s.closeIfDue(tx, &b, s.clock.Now()); err != nil {
			return err
		}
		if err = tallyOpen(tx, &b); err != nil {
			return err
		}
		b.Members, err = listedMembers(tx, id)
		return err
	})
	return b, err
}

// tallyOpen sums up an open batch's totals as they stand, not written: a batch record
// gets its totals when it closes.
func tallyOpen(tx Tx, b *Batch) error {
	if b.Status != BatchStatusOpen {
		return nil
	}
	_, err := tally(tx, b)
	return err
}

// listedMembers returns the ids of a batch's transactions for the admin API: an
// empty list, never nil, for a batch without any.
func listedMembers(tx Tx, id string) ([]string, error) {
	members, err := tx.BatchMembers(id)
	if members == nil {
		members = []string{}
	}
	return members, err
}

// closedFixtureBatches names the batches the fixtures close: those of which one
// transaction says batch_closed. Each of their transactions is stored in a closed
// batch, whatever its own line says, as a close by the API marks every member: views
// and lists show the stored flag (operations read the batch itself).
func closedFixtureBatches(f Fixtures) map[string]bool {
	closed := map[string]bool{}
	for _, t := range f.Transactions {
		if t.BatchClosed && t.BatchID != "" {
			closed[t.BatchID] = true
		}
	}
	return closed
}

// putFixtureBatches makes a batch record of every batch_id the fixtures' transactions
// name, open or closed as they say (a closed one with its totals), so that a test can
// close a seeded batch (or read it) like one the API opened. A seeded batch opens no new one: the API's captures go
// to their merchant account's own open batch.
func putFixtureBatches(tx Tx, f Fixtures) error {
	batches := map[string]*Batch{}
	var order []string
	for _, t := range f.Transactions {
		if t.BatchID == "" {
			continue
		}
		b, ok := batches[t.BatchID]
		if !ok {
			b = &Batch{
				ID: t.BatchID, Holder: Holder{MerchantID: t.MerchantID}, Status: BatchStatusOpen, Currency: t.Currency,
				Country: t.Country, TimeCreated: t.TimeCreated, Amount: "0",
			}
			if m, err := tx.Merchant(t.MerchantID); err == nil {
				b.MerchantName = m.Name
			}
			batches[t.BatchID], order = b, append(order, t.BatchID)
		}
		if t.TimeCreated.Before(b.TimeCreated) {
			b.TimeCreated = t.TimeCreated
		}
		if t.BatchClosed {
			b.Status, b.TimeClosed, b.ClosedBy = BatchStatusClosed, t.TimeCreated, "fixtures"
		}
		if err := tx.PutBatchMember(t.BatchID, t.ID); err != nil {
			return err
		}
	}
	for _, id := range order {
		// A closed batch keeps the totals of its close, as one the API closed does.
		if b := batches[id]; b.Status == BatchStatusClosed {
			if _, err := tally(tx, b); err != nil {
				return err
			}
		}
		if err := tx.PutBatch(*batches[id]); err != nil {
			return err
		}
	}
	return nil
}
