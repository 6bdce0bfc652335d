package app

import (
	"log/slog"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/notify"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// notificationScenarios lets scenario rules with `operation: notification` drop,
// duplicate or delay status notifications. The app and merchant of the order or device
// request (as the entry keeps it) are what a rule can match on; their fixture bindings
// apply, else the global scenarios. Sequence steps are counted per app (per order of
// the app with `scope: order`).
//
// With no rule for notifications loaded nothing can match, so the bindings are not
// read.
func notificationScenarios(engine *scenario.Engine, svc *sandbox.Service, logger *slog.Logger) notify.Decider {
	return func(n sandbox.Notification) notify.Decision {
		if !engine.DecidesNotifications() {
			return notify.Decision{}
		}
		appID, merchantID := n.Subject()
		sub, err := svc.Subjects(appID, merchantID, "")
		if err != nil {
			logger.Error("notification scenario: bindings", "order_id", n.OrderID, "error", err)
			return notify.Decision{}
		}
		d, err := engine.DecideNotification(scenario.Request{
			MerchantID: merchantID, AppID: appID, OrderID: n.OrderID, Scope: "app:" + appID, Bound: sub.Scenarios,
		})
		if err != nil || !d.Matched() {
			return notify.Decision{}
		}
		logger.Info("notification scenario", "order_id", n.OrderID, "seq", n.Seq, "rule", d.Ref(), "outcome", d.Outcome.String())
		switch out := d.Outcome; {
		case out.Fault == scenario.FaultDrop:
			return notify.Decision{Action: notify.Drop}
		case out.Fault == scenario.FaultDuplicate:
			return notify.Decision{Action: notify.Duplicate}
		case out.Delay > 0:
			return notify.Decision{Action: notify.Delay, Delay: out.Delay}
		}
		return notify.Decision{}
	}
}
