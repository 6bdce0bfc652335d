package app

import (
	"context"
)

// startOrderSchedule carries placed orders along their lifecycle on the sandbox clock,
// a step each Config.OrderStep after their last change (Service.CarryOrders). Zero
// leaves them to the admin API.
func (a *App) startOrderSchedule(ctx context.Context) {
	if a.cfg.OrderStep <= 0 {
		return
	}
	a.svc.SetOrderStep(a.cfg.OrderStep)
	wake := make(chan struct{}, 1)
	a.svc.OnOrderPlaced(func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	a.workers.Go(func() { a.onClock(ctx, wake, "order schedule", a.svc.CarryOrders) })
}
