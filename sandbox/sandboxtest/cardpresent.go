package sandboxtest

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// ApprovedTrack is GP's card-present Visa test track: swiped, it is approved.
const ApprovedTrack = "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"

// Charge takes a card-present sale of amount (minor units, "1000" is 10.00 USD) for
// the default app with GP's approved Visa track, as POST /transactions would: the
// sale is CAPTURED and in its merchant account's open batch. A refusal fails the test.
func (s *Server) Charge(amount string) sandbox.Transaction {
	if s.t != nil {
		s.t.Helper()
	}
	return s.cardPresent(amount, sandbox.CaptureAuto)
}

// Authorize takes a card-present authorization of amount for the default app: the
// transaction is PREAUTHORIZED, ready to capture, increment, reverse or adjust.
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
	caller, err := s.Service.Authenticate(s.Token())
	if err != nil {
		s.fatalf("sandboxtest: authenticate: %v", err)
	}
	t, err := s.Service.CreateTransaction(caller, sandbox.TransactionRequest{
		Channel: sandbox.ChannelCP, Type: sandbox.TypeSale, CaptureMode: captureMode,
		Amount: amount, Currency: "USD", Country: "US", Reference: "sandboxtest",
		Card: sandbox.CardInput{EntryMode: "SWIPE", Track: ApprovedTrack, Funding: "CREDIT"},
	})
	if err != nil {
		s.fatalf("sandboxtest: %s of %s: %v", captureMode, amount, err)
	}
	return t
}
