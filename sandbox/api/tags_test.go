package api

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// decodeAs decodes body by the tags of R.
func decodeAs[R any](body web.Object) (R, error) {
	var req R
	err := web.TableOf(reflect.TypeFor[R]()).Decode(body, &req)
	return req, err
}

// Tags are literals: where the domain keeps a list or a bound of its own, the tag
// says the same.
func TestTokenRequestTagsFollowTheDomain(t *testing.T) {
	token := func(member string, v any) error {
		_, err := decodeAs[accessTokenRequest](web.Object{
			"app_id": "a", "nonce": "n", "secret": "s", "grant_type": "client_credentials", member: v,
		})
		return err
	}
	for _, iv := range sandbox.TokenIntervals() {
		if err := token("interval_to_expire", iv); err != nil {
			t.Errorf("interval %s: %v", iv, err)
		}
	}
	for seconds, ok := range map[int]bool{
		sandbox.MinTokenSeconds - 1: false, sandbox.MinTokenSeconds: true,
		sandbox.MaxTokenSeconds: true, sandbox.MaxTokenSeconds + 1: false,
	} {
		if err := token("seconds_to_expire", jsonNumber(seconds)); (err == nil) != ok {
			t.Errorf("seconds_to_expire %d: %v", seconds, err)
		}
	}
}

func jsonNumber(n int) any { return json.Number(strconv.Itoa(n)) }

// A body that repeats a member is decoded as it was checked: the last repetition
// only, never a merge with an earlier one nobody checked.
func TestRepeatedMemberDecodedAsChecked(t *testing.T) {
	body, err := web.DecodeObject([]byte(`{"amount":1000,"payment_method":{"card":{"tag":"not hex"}},"amount":"10","payment_method":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeAs[adjustmentRequest](body)
	if err != nil || got.Amount != "10" || got.PaymentMethod.Card.Tag != "" {
		t.Errorf("decoded %+v, %v; want amount 10 and no tag", got, err)
	}
}
