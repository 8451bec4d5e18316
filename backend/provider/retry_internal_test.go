package provider

import (
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"2", 2 * time.Second, true},
		{" 1.5 ", 1500 * time.Millisecond, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"1e300", 24 * time.Hour, true},
		{"Sat, 01 Mar 2025 12:00:10 GMT", 10 * time.Second, true},
		{"Sat, 01 Mar 2025 11:00:00 GMT", 0, true},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestDelayDoublesAndIsCapped(t *testing.T) {
	c := &Client{backoff: defaultBackoff}
	prevMin := time.Duration(0)
	for attempt := range 40 {
		d := c.delay(attempt)
		base := min(defaultBackoff<<min(attempt, 16), maxBackoff)
		if d < base || d > base+base/4 {
			t.Errorf("delay(%d) = %v; want within [%v, %v]", attempt, d, base, base+base/4)
		}
		if base < prevMin {
			t.Errorf("delay(%d) base %v shrank", attempt, base)
		}
		prevMin = base
	}
}
