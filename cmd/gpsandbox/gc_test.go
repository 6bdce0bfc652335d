package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 400},
		{10 << 20, 400},
		{64 << 20, 400},
		{80 << 20, 320},
		{128 << 20, 200},
		{256 << 20, 100},
		{400 << 20, 64},
		{512 << 20, 50},
		{1 << 30, 50},
	} {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}
