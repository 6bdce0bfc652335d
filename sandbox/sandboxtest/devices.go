package sandboxtest

import (
	"slices"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// DeliverOrder moves a placed device order on to DELIVERED, one admin step at a time
// (PROCESSING, SHIPPED, DELIVERED, each notified to its status_url), and returns the
// terminals it delivered. An order already DELIVERED is left as it is; an unknown or
// CANCELLED one fails the test.
func (s *Server) DeliverOrder(id string) []sandbox.Device {
	if s.t != nil {
		s.t.Helper()
	}
	steps := []string{sandbox.OrderProcessing, sandbox.OrderShipped, sandbox.OrderDelivered}
	for i := slices.Index(steps, s.Order(id).Status) + 1; i < len(steps); i++ {
		if _, err := s.Service.ChangeOrderStatus(id, steps[i]); err != nil {
			s.fatalf("sandboxtest: order %s to %s: %v", id, steps[i], err)
		}
	}
	var delivered []sandbox.Device
	for _, d := range s.Devices() {
		if d.OrderID == id {
			delivered = append(delivered, d)
		}
	}
	return delivered
}

// Devices returns every card-present terminal, the fixtures' and those delivered by
// orders, as GET /_sandbox/devices lists them. A spare has no AccountID.
func (s *Server) Devices() []sandbox.Device {
	if s.t != nil {
		s.t.Helper()
	}
	devices, err := s.Service.Devices()
	if err != nil {
		s.fatalf("sandboxtest: devices: %v", err)
	}
	return devices
}

// PresentCard presents a card on the terminal a device request waits on (a terminal
// in INITIATED mode), as a customer would: a terminal test card by name
// ("visa_contactless", ...), a card number keyed in, or "" for the terminal's default
// card. It returns the completed device request; a request that waits for no card
// fails the test.
func (s *Server) PresentCard(deviceRequestID, card string) sandbox.DeviceRequest {
	if s.t != nil {
		s.t.Helper()
	}
	d, err := s.Service.CompleteDeviceRequest(deviceRequestID, sandbox.Presentation{Card: card})
	if err != nil {
		s.fatalf("sandboxtest: present %q for %s: %v", card, deviceRequestID, err)
	}
	return d
}
