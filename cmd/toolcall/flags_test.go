package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

func TestFlagDefaultsReadAsREADMEWritesThem(t *testing.T) {
	for d, want := range map[time.Duration]string{
		20 * time.Second:        "20s",
		time.Minute:             "1m",
		90 * time.Second:        "1m30s",
		time.Hour:               "1h",
		time.Hour + time.Minute: "1h1m",
		1500 * time.Millisecond: "1.5s",
	} {
		if got := (*durationValue)(&d).String(); got != want {
			t.Errorf("%v shows as %q, want %q", d, got, want)
		}
	}
	for n, want := range map[byteSize]string{16 << 10: "16KiB", 64 << 20: "64MiB", 1 << 30: "1GiB", 1000: "1000", 1536: "1536"} {
		if got := n.String(); got != want {
			t.Errorf("%d bytes show as %q, want %q", int64(n), got, want)
		}
	}
}

// TestHelpPlaceholders: every flag that takes a value shows a capitalised
// word for it in --help, and no usage keeps the backquotes that mark it
// (completion descriptions show the usage as it is).
func TestHelpPlaceholders(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: usage keeps backquotes: %q", c.CommandPath(), f.Name, f.Usage)
			}
			p, _ := flagPlaceholder(f)
			if f.Value.Type() != "bool" && (p == "" || p != strings.ToUpper(p)) {
				t.Errorf("%s --%s: placeholder %q, want a word in capitals", c.CommandPath(), f.Name, p)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
