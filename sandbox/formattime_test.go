package sandbox

import (
	"testing"
	"time"
)

// GP's timestamps are UTC with exactly three digits of milliseconds, truncated, and Z.
func TestFormatTime(t *testing.T) {
	for _, tt := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2021, 3, 24, 2, 2, 27, 158e6, time.UTC), "2021-03-24T02:02:27.158Z"},
		{time.Date(2021, 3, 24, 2, 2, 27, 0, time.UTC), "2021-03-24T02:02:27.000Z"},
		{time.Date(2021, 3, 24, 2, 2, 27, 7e6, time.UTC), "2021-03-24T02:02:27.007Z"},
		{time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.UTC), "2026-12-31T23:59:59.999Z"},
		{time.Date(2024, 2, 29, 12, 0, 0, 1e6, time.FixedZone("minus", -9*3600-30*60)), "2024-02-29T21:30:00.001Z"},
		{time.Date(2026, 1, 1, 5, 0, 0, 0, time.FixedZone("plus", 14*3600)), "2025-12-31T15:00:00.000Z"},
		{time.Unix(0, 0), "1970-01-01T00:00:00.000Z"},
	} {
		if got := FormatTime(tt.at); got != tt.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tt.at, got, tt.want)
		}
	}
}
