package store

import (
	"cmp"
	"slices"
	"time"
)

// TrimScenarioSteps drops sequence counters until at most keep are left, those that
// would expire first before the others: every step gives its counter the whole
// lifetime again, so the first to expire is the one whose scope stepped longest ago.
// It reads every counter: the engine calls it once per many new ones.
func (x tx) TrimScenarioSteps(keep int) error {
	type counter struct {
		key  string
		left time.Duration // what is left of its lifetime
	}
	var counters []counter
	err := ascendPrefix(x.t, "step:", func(key, _ string) bool {
		left, err := x.t.TTL(key)
		if err != nil {
			left = 0 // expired, and not yet evicted by buntdb
		}
		counters = append(counters, counter{key, left})
		return true
	})
	if err != nil || len(counters) <= keep {
		return err
	}
	slices.SortStableFunc(counters, func(a, b counter) int { return cmp.Compare(a.left, b.left) })
	for _, c := range counters[:len(counters)-max(keep, 0)] {
		if err := del(x.t, c.key); err != nil {
			return err
		}
	}
	return nil
}
