package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"
)

// DefaultDuplicateWindow is how long, in sandbox time, a payment that repeats an
// earlier approved one is flagged as its duplicate, when not configured [SB].
const DefaultDuplicateWindow = 10 * time.Minute

// paymentMarkKeep is how long, in wall-clock time, the store keeps the mark of a
// payment: a day, as an idempotency key, and at least any window (at most 24h).
const paymentMarkKeep = 24 * time.Hour

// PaymentMark is the last approved payment made under a duplicate key (see
// duplicateKey): what a payment that repeats it is flagged against.
type PaymentMark struct {
	Key           string    `json:"key"`
	TransactionID string    `json:"transaction_id"`
	Time          time.Time `json:"time"`
}

// SetDuplicateWindow sets how long a payment that repeats an earlier approved one
// is flagged as its duplicate: DefaultDuplicateWindow when d is zero, no check at all
// when d is negative.
func (s *Service) SetDuplicateWindow(d time.Duration) { s.duplicateWindow.Store(int64(d)) }

func (s *Service) duplicateWindowOf() time.Duration {
	d := time.Duration(s.duplicateWindow.Load())
	if d == 0 {
		return DefaultDuplicateWindow
	}
	return d
}

// duplicateKey names what makes a payment a second charge of an earlier one: the
// merchant; the card by brand, first six, last four and expiry (or the stored payment
// method's id); the amount, currency and reference (two without a reference are
// alike). It is a SHA-256, so that the store's key holds no card data; "" when the
// card is not known well enough to compare.
func duplicateKey(t *Transaction, card cardData, tokenID string) string {
	cardID := "token:" + tokenID
	if tokenID == "" {
		if t.Card.First6 == "" || t.Card.Last4 == "" {
			return ""
		}
		cardID = "card:" + cardIdentity(t.Card, card)
	}
	b := make([]byte, 0, 160) // on the stack for the usual lengths
	for _, part := range [...]string{t.MerchantID, cardID, t.Amount, t.Currency, t.Reference} {
		b = append(append(b, part...), 0)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// cardIdentity is a card as the sandbox tells cards apart without its number: brand,
// first six, last four and expiry, the expiry written one way however it was sent
// ("5" and "05", "2030" and "30" are one expiry).
func cardIdentity(stored StoredCard, card cardData) string {
	return stored.Brand + ":" + stored.First6 + ":" + stored.Last4 + ":" + twoDigits(card.expiryMM) + "/" + twoDigits(card.expiryYY)
}

// checkDuplicate flags an approved sale or authorization t, paid with card (or the
// stored payment method tokenID), that repeats the last approved one under the same
// duplicate key within the window: t.DuplicateOf names the earlier one, or with
// refuse the payment is refused (a scenario's choice; the real API charges twice). An
// approved payment becomes the key's mark. One lookup and one write of a single key:
// the payment path's cost stays flat however many transactions the store holds.
func (s *Service) checkDuplicate(tx Tx, t *Transaction, card cardData, tokenID string, refuse bool, now time.Time) error {
	window := s.duplicateWindowOf()
	approved := t.Type == TypeSale && (t.Status == StatusCaptured || t.Status == StatusPreauthorized)
	if window < 0 || !approved {
		return nil
	}
	key := duplicateKey(t, card, tokenID)
	if key == "" {
		return nil
	}
	m, err := tx.PaymentMark(key)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return err
	case !now.Before(m.Time) && now.Sub(m.Time) <= window:
		if refuse {
			return DuplicateTransaction(m.TransactionID)
		}
		t.DuplicateOf = m.TransactionID
	}
	return tx.PutPaymentMark(PaymentMark{Key: key, TransactionID: t.ID, Time: now}, paymentMarkKeep)
}
