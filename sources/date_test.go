package sources

import (
	"strings"
	"testing"
	"time"
)

func TestPlausibleDate(t *testing.T) {
	now := time.Now()
	f := func(name string, at time.Time, says string) {
		t.Helper()
		err := PlausibleDate(at)
		switch {
		case says == "" && err != nil:
			t.Errorf("%s (%v): refused: %v", name, at, err)
		case says != "" && (err == nil || !strings.Contains(err.Error(), says)):
			t.Errorf("%s (%v): %v, want an error saying %q", name, at, err, says)
		}
	}
	f("now", now, "")
	f("a year ago", now.AddDate(-1, 0, 0), "")
	f("1900-01-01", time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), "")
	f("a time zone ahead, today", now.In(time.FixedZone("UTC+14", 14*3600)), "")
	f("within the skew", now.Add(MaxDateSkew-time.Minute), "")
	f("past the skew", now.Add(MaxDateSkew+time.Minute), "in the future")
	f("9999-01-01", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), "in the future")
	f("year 10000 in UTC", time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("-05", -5*3600)), "in the future")
	f("0001-01-01 (the zero time)", time.Time{}, "before 1900")
	f("1899-12-31", time.Date(1899, 12, 31, 23, 59, 59, 0, time.UTC), "before 1900")
	// 1900-01-01T00:30+01:00 is still 1899 in UTC.
	f("1900 in Paris, 1899 in UTC", time.Date(1900, 1, 1, 0, 30, 0, 0, time.FixedZone("+01", 3600)), "before 1900")
}
