package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// What a refunded, reversed or reauthorized transaction still allows, and the refund
// limit over live refunds (sandbox/lifecycle.go, transactionRules and refundCap).
func TestMoneyGoesBackOnce(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := func() string { return env.MustTransactionIn(tok, "CAPTURED") } // 1000
	answer := func(path, body string) string {
		t.Helper()
		r := env.Do("POST", path, apitest.APIHeader(tok), body)
		if r.Status == 200 {
			m := r.JSON(t)
			return "200 " + m["status"].(string) + " " + m["amount"].(string)
		}
		e := r.GPError(t)
		return strings.Join([]string{itoa(e.Status), e.Code, e.Detail, e.Description}, " ")
	}
	const (
		overCap   = "400 INVALID_REQUEST_DATA 40087 You may only refund up to 115% of the original amount "
		refunded  = "400 INVALID_ACTION 40290 Cannot PROCESS Reversal over a transaction that has been refunded."
		reauthErr = "400 INVALID_REQUEST_DATA 40044 36, Invalid original transaction for reauthorization-"
		reauthCap = "400 INVALID_REQUEST_DATA 50020 Can't reauthorize for more than 115% of the original amount "
	)
	type step struct{ path, body, want string }
	tn := func(id, op string) string { return "/transactions/" + id + "/" + op }

	t.Run("a refunded sale cannot be reversed until its refunds are", func(t *testing.T) {
		s := sale()
		r := env.MustPost(tok, tn(s, "refund"), `{"amount":"600"}`)["id"].(string)
		for _, st := range []step{
			{tn(s, "reversal"), `{}`, refunded},
			{tn(r, "reversal"), `{}`, "200 REVERSED 600"},
			{tn(s, "reversal"), `{}`, "200 REVERSED 1000"},
		} {
			if got := answer(st.path, st.body); got != st.want {
				t.Errorf("%s: got %q, want %q", st.path, got, st.want)
			}
		}
	})
	t.Run("a reversed transaction is reauthorized once, within 115%", func(t *testing.T) {
		s := sale()
		env.MustPost(tok, tn(s, "reversal"), `{}`)
		for _, st := range []step{
			{tn(s, "reauthorization"), `{"amount":"500000"}`, reauthCap},
			{tn(s, "reauthorization"), `{"amount":"1151"}`, reauthCap},
			{tn(s, "reauthorization"), `{"amount":"1150"}`, "200 CAPTURED 1150"},
			{tn(s, "reauthorization"), `{}`, reauthErr},
			{tn(s, "reauthorization"), `{"amount":"1"}`, reauthErr},
		} {
			if got := answer(st.path, st.body); !strings.HasPrefix(got, st.want) {
				t.Errorf("%s %s: got %q, want %q", st.path, st.body, got, st.want)
			}
		}
	})
	t.Run("a refund's adjusted amount counts toward the limit", func(t *testing.T) {
		s := sale()
		r := env.MustPost(tok, tn(s, "refund"), `{"amount":"500"}`)["id"].(string)
		for _, st := range []step{
			{tn(r, "adjustment"), `{"amount":"100000000"}`, overCap},
			{tn(r, "adjustment"), `{"amount":"1151"}`, overCap},
			{tn(r, "adjustment"), `{"amount":"1150"}`, "200 CAPTURED 1150"},
			{tn(s, "refund"), `{"amount":"1"}`, overCap},
			{tn(r, "adjustment"), `{"amount":"100"}`, "200 CAPTURED 100"},
			{tn(s, "refund"), `{"amount":"1050"}`, "200 CAPTURED 1050"},
		} {
			if got := answer(st.path, st.body); got != st.want {
				t.Errorf("%s %s: got %q, want %q", st.path, st.body, got, st.want)
			}
		}
	})
	t.Run("a reversed refund no longer counts", func(t *testing.T) {
		s := sale()
		r := env.MustPost(tok, tn(s, "refund"), `{}`)["id"].(string)
		for _, st := range []step{
			{tn(s, "refund"), `{"amount":"1000"}`, overCap},
			{tn(r, "reversal"), `{}`, "200 REVERSED 1000"},
			{tn(s, "refund"), `{"amount":"1150"}`, "200 CAPTURED 1150"},
		} {
			if got := answer(st.path, st.body); got != st.want {
				t.Errorf("%s %s: got %q, want %q", st.path, st.body, got, st.want)
			}
		}
	})
	t.Run("a refunded sale's amount stays above its refunds", func(t *testing.T) {
		s := sale()
		env.MustPost(tok, tn(s, "refund"), `{"amount":"1000"}`)
		for _, st := range []step{
			{tn(s, "adjustment"), `{"amount":"869"}`, overCap}, // 1000 > 115% of 869
			{tn(s, "adjustment"), `{"amount":"870"}`, "200 CAPTURED 870"},
		} {
			if got := answer(st.path, st.body); got != st.want {
				t.Errorf("%s %s: got %q, want %q", st.path, st.body, got, st.want)
			}
		}
	})
}
