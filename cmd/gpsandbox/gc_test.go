package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 400},
		{10 << 20, 400},
		{16 << 20, 400},
		{32 << 20, 200},
		{64 << 20, 100},
		{80 << 20, 80},
		{100 << 20, 64},
		{128 << 20, 50},
		{1 << 30, 50},
	} {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}
