package sandboxtest

import (
	"net/http"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// ApprovedTrack is GP's card-present Visa test track: swiped, it is approved.
const ApprovedTrack = "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"

// Charge takes a card-present sale of amount (minor units, "1000" is 10.00 USD) for
// the default app with GP's approved Visa track, through POST /transactions: the
// scenarios in force, the journal and the duplicate-charge check see it as any
// client's sale. Without a scenario saying otherwise the sale is CAPTURED and in its
// merchant account's open batch. A refusal (an error answer) fails the test.
func (s *Server) Charge(amount string) sandbox.Transaction {
	if s.t != nil {
		s.t.Helper()
	}
	return s.cardPresent(amount, sandbox.CaptureAuto)
}

// Authorize takes a card-present authorization of amount for the default app, as
// Charge takes a sale: without a scenario saying otherwise the transaction is
// PREAUTHORIZED, ready to capture, increment, reverse or adjust.
func (s *Server) Authorize(amount string) sandbox.Transaction {
	if s.t != nil {
		s.t.Helper()
	}
	return s.cardPresent(amount, sandbox.CaptureLater)
}

// Batch returns a settlement batch by id (transactions carry it as batch_id). An
// unknown id fails the test.
func (s *Server) Batch(id string) sandbox.Batch {
	if s.t != nil {
		s.t.Helper()
	}
	b, err := s.Service.BatchState(id)
	if err != nil {
		s.fatalf("sandboxtest: batch %s: %v", id, err)
	}
	return b
}

func (s *Server) cardPresent(amount, captureMode string) sandbox.Transaction {
	if s.t != nil {
		s.t.Helper()
	}
	sale := map[string]any{
		"channel": sandbox.ChannelCP, "type": sandbox.TypeSale, "capture_mode": captureMode,
		"amount": amount, "currency": "USD", "country": "US", "reference": "sandboxtest",
		"payment_method": map[string]any{"entry_mode": "SWIPE", "card": map[string]any{"track": ApprovedTrack, "funding": "CREDIT"}},
	}
	var answer struct {
		ID          string `json:"id"`
		Code        string `json:"error_code"`
		Description string `json:"detailed_error_description"`
	}
	if status := s.call("POST", "/transactions", s.Token(), sale, &answer); status != http.StatusOK {
		s.fatalf("sandboxtest: %s of %s: %d %s %s", captureMode, amount, status, answer.Code, answer.Description)
	}
	return s.Transaction(answer.ID)
}
