package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
)

// A terminal keeps a test card's name, never a card number: a fixture device naming
// a card number is refused, naming the device, and nothing is loaded.
func TestFixtureDeviceWithCardNumberRefused(t *testing.T) {
	st, err := store.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := sandbox.NewService(st, sandbox.NewFrozenClock(time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)), sandbox.NewSeededIDs(1))
	f := sandbox.Fixtures{Devices: []sandbox.Device{{ID: "DEV_1", MerchantID: "MER_1", AccountID: "TRA_1", Card: "4263970000005262"}}}
	_, err = svc.LoadFixtures(f, true)
	gp, ok := sandbox.AsError(err)
	if !ok || gp.Detail != "40213" || !strings.Contains(gp.Description, "devices: DEV_1: card: want a terminal test card") {
		t.Fatalf("loading a device with a card number: %v", err)
	}
	if devices, err := svc.Devices(); err != nil || len(devices) != 0 {
		t.Errorf("devices after the refusal: %v %v", devices, err)
	}
	f.Devices[0].Card = "visa_swipe"
	if _, err := svc.LoadFixtures(f, true); err != nil {
		t.Errorf("a test card's name: %v", err)
	}
}
