package sandbox

import "testing"

// A deposit names the bank account it is paid into by its last four digits: the
// primary payout method's, else the first bank account's.
func TestPayoutLast4(t *testing.T) {
	t.Parallel()
	bank := func(n string, functions ...string) PayoutMethod {
		return PayoutMethod{Functions: functions, Bank: &Bank{MaskedAccountNumber: MaskAccountNumber(n)}}
	}
	card := PayoutMethod{Functions: []string{"PRIMARY_PAYOUT"}, Card: &PayCard{MaskedNumber: "411111XXXXXX1111"}}
	for _, tc := range []struct {
		name    string
		methods []PayoutMethod
		want    string
	}{
		{"not boarded", nil, ""},
		{"paid by card only", []PayoutMethod{card}, ""},
		{"a primary card, a secondary bank", []PayoutMethod{card, bank("123456788", "SECONDARY_PAYOUT")}, "6788"},
		{"the primary bank of two", []PayoutMethod{bank("111122223333", "SECONDARY_PAYOUT"), bank("99998888", "PRIMARY_PAYOUT")}, "8888"},
	} {
		m := Merchant{}
		if tc.methods != nil {
			m.Boarding = &Boarding{PaymentMethods: tc.methods}
		}
		if got := payoutLast4(m); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
