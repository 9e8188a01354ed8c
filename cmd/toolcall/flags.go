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

// flagPlaceholder is the word that stands for f's value in help and man
// pages, in capitals: the `word` quoted in its usage, else one for its
// type; "" for a flag that takes no value. usage is f's usage without the
// quotes.
func flagPlaceholder(f *pflag.Flag) (placeholder, usage string) {
	name, usage := pflag.UnquoteUsage(f)
	if f.NoOptDefVal != "" || name == "" {
		return "", usage
	}
	switch name {
	case "int", "uint", "int64", "uint64":
		name = "N"
	case "float", "float64":
		name = "NUMBER"
	case "strings", "stringArray", "stringSlice":
		name = "VALUES"
	}
	return strings.ToUpper(name), usage
}

// flagDefault is f's default as help shows it after "default", or "" when
// it has none worth showing (empty, zero, false).
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]", "<nil>":
		return ""
	}
	if f.Value.Type() == "string" {
		return strconv.Quote(f.DefValue)
	}
	return f.DefValue
}
