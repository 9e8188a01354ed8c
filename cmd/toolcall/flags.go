package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// durationValue is a flag value that is a Go duration ("20s", "1m30s") or a
// bare number of seconds ("5", "0.5"), as a sidecar's "timeout" is.
type durationValue time.Duration

// durationVar defines a duration flag that also takes a number of seconds.
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}

func (d *durationValue) String() string { return time.Duration(*d).String() }
func (d *durationValue) Type() string   { return "duration" }

func (d *durationValue) Set(s string) error {
	s = strings.TrimSpace(s)
	v, err := time.ParseDuration(s)
	if err != nil {
		secs, nerr := strconv.ParseFloat(s, 64)
		if nerr != nil || secs != secs || secs > float64(1<<63-1)/float64(time.Second) {
			return fmt.Errorf("want a duration such as 30s, 2m or 1m30s, or a number of seconds")
		}
		v = time.Duration(secs * float64(time.Second))
	}
	if v < 0 {
		return fmt.Errorf("want a duration of zero or more, such as 30s")
	}
	*d = durationValue(v)
	return nil
}
