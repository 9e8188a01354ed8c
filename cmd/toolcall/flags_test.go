package main

import (
	"testing"
	"time"
)

func TestDurationValue(t *testing.T) {
	good := map[string]time.Duration{
		"5":      5 * time.Second,
		"0.5":    500 * time.Millisecond,
		" 2 ":    2 * time.Second,
		"0":      0,
		"20s":    20 * time.Second,
		"1m30s":  90 * time.Second,
		"250ms":  250 * time.Millisecond,
		"1.5h":   90 * time.Minute,
		"1e1":    10 * time.Second,
		"0.0001": 100 * time.Microsecond,
	}
	for in, want := range good {
		var d time.Duration
		if err := (*durationValue)(&d).Set(in); err != nil || d != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, d, err, want)
		}
	}
	for _, in := range []string{"", "soon", "-1", "-2s", "NaN", "Inf", "1e300", "5 s"} {
		var d time.Duration
		if err := (*durationValue)(&d).Set(in); err == nil {
			t.Errorf("Set(%q) = %v, want an error", in, d)
		}
	}
}
