package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/internal/editdist"
)

// durationValue is a flag value that is a Go duration ("20s", "1m30s") or a
// bare number of seconds ("5", "0.5"), as a sidecar's "timeout" is.
type durationValue time.Duration

// durationVar defines a duration flag that also takes a number of seconds.
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}

// String is the duration as a person writes it: 1m rather than Go's 1m0s.
func (d *durationValue) String() string {
	s := time.Duration(*d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (d *durationValue) Type() string { return "duration" }

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

// numberProblem says in words what is wrong with a number typed for a
// flag of pflag's own numeric types, whose errors otherwise show strconv
// at work ("strconv.ParseInt: parsing "abc": invalid syntax"); ok is
// false for any other error, which already says what it wants.
func numberProblem(v pflag.Value, err error) (problem string, ok bool) {
	var ne *strconv.NumError
	if !errors.As(err, &ne) {
		return "", false
	}
	switch {
	case errors.Is(ne.Err, strconv.ErrRange):
		return "is out of range", true
	case strings.HasPrefix(v.Type(), "int") || strings.HasPrefix(v.Type(), "uint"):
		return "is not a whole number", true
	case v.Type() == "bool":
		return "is not true or false (or 1 or 0)", true
	}
	return "is not a number", true
}

// flagError is the usage error for a bad flag: the flag, the value and
// what is wrong, in words; for a flag cmd does not have, the one meant
// (--tool: did you mean --tools?).
func flagError(cmd *cobra.Command, err error) error {
	var nee *pflag.NotExistError
	if errors.As(err, &nee) && nee.GetSpecifiedShortnames() == "" {
		if s := suggestFlag(cmd.Flags(), nee.GetSpecifiedName()); s != "" {
			return usage(fmt.Errorf("%w, did you mean --%s?", err, s))
		}
	}
	var ive *pflag.InvalidValueError
	if errors.As(err, &ive) {
		if problem, ok := numberProblem(ive.GetFlag().Value, ive.Unwrap()); ok {
			return usage(fmt.Errorf("--%s: %q %s", ive.GetFlag().Name, ive.GetValue(), problem))
		}
	}
	return usage(err)
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// idleFlags collects warnings about flags given on the command line that
// do nothing in the mode chosen, so that none is ignored without a word.
// A variable is not warned about: it holds a setting for every mode.
type idleFlags struct {
	fs   *pflag.FlagSet
	msgs []string
}

// note warns, in one line, about those of names the command line gave:
// "--a and --b do nothing " + why.
func (w *idleFlags) note(why string, names ...string) {
	var given []string
	for _, n := range names {
		if source(w.fs, n) == "--"+n {
			given = append(given, "--"+n)
		}
	}
	switch len(given) {
	case 0:
		return
	case 1:
		w.msgs = append(w.msgs, given[0]+" does nothing "+why)
	default:
		last := len(given) - 1
		w.msgs = append(w.msgs, strings.Join(given[:last], ", ")+" and "+given[last]+" do nothing "+why)
	}
}

// warn writes the warnings collected.
func (w *idleFlags) warn(stderr io.Writer) {
	for _, m := range w.msgs {
		warnTo(stderr)(m)
	}
}

// must panics on an error that only a bug in the command's definition can
// cause, such as completing a flag that does not exist.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// noArgs rejects arguments as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usage(fmt.Errorf("%s takes no arguments, got %q", cmd.Name(), args[0]))
	}
	return nil
}

// choice is the value of a flag that takes one of a fixed set of words.
type choice struct {
	value   string
	choices []string
}

func (c *choice) String() string { return c.value }
func (c *choice) Type() string   { return "name" }

func (c *choice) Set(s string) error {
	for _, v := range c.choices {
		if v == s {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(c.choices, ", "))
}

func (c *choice) complete(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, v := range c.choices {
		if strings.HasPrefix(v, toComplete) {
			out = append(out, v)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// byteSize is a flag value in bytes: 16384, 16KiB, 16KB, 1MiB, 1MB.
type byteSize int64

// String is the size in the largest binary unit that divides it, as the
// README writes sizes: 16KiB, 64MiB.
func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}}
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(num), strings.ToUpper(u.suffix)) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 || n > (1<<40)/mult {
		return fmt.Errorf("want a size such as 16384, 16KiB or 1MB")
	}
	*b = byteSize(n * mult)
	return nil
}

// flagPlaceholder is the word that stands for f's value in help and man
// pages, in capitals: the `word` quoted in its usage, else one for its
// type; "" for a flag that takes no value. usage is f's usage without the
// quotes.
func flagPlaceholder(f *pflag.Flag) (placeholder, usage string) {
	if p := f.Annotations[placeholderAnnotation]; len(p) == 1 {
		return p[0], f.Usage
	}
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

// placeholderAnnotation holds a flag's placeholder once settlePlaceholders
// took it out of the usage.
const placeholderAnnotation = "toolcall_placeholder"

// settlePlaceholders moves the `word` quoted in each flag's usage into an
// annotation, in capitals, so that completion descriptions, which show the
// usage as it is, have no backquotes, while help and man pages still show
// --tools DIR.
func settlePlaceholders(cmd *cobra.Command) {
	settle := func(f *pflag.Flag) {
		if _, done := f.Annotations[placeholderAnnotation]; done || !strings.Contains(f.Usage, "`") {
			return
		}
		placeholder, usage := flagPlaceholder(f)
		if f.Annotations == nil {
			f.Annotations = map[string][]string{}
		}
		f.Annotations[placeholderAnnotation] = []string{placeholder}
		f.Usage = usage
	}
	cmd.LocalFlags().VisitAll(settle)
	cmd.PersistentFlags().VisitAll(settle)
	for _, c := range cmd.Commands() {
		settlePlaceholders(c)
	}
}

// flagUsages lists the flags of fs for --help, as pflag does, but with
// the placeholders and defaults of flagPlaceholder and flagDefault.
func flagUsages(fs *pflag.FlagSet) string {
	type row struct{ left, right string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		placeholder, usage := flagPlaceholder(f)
		if placeholder != "" {
			left += " " + placeholder
		}
		if d := flagDefault(f); d != "" {
			usage += " (default " + d + ")"
		}
		width = max(width, len(left))
		rows = append(rows, row{left, usage})
	})
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s   %s\n", width, r.left, r.right)
	}
	return strings.TrimRight(b.String(), " \n")
}

// usageTemplate is cobra's, with flags listed by flagUsages and the root's
// usage line naming the command it wants.
const usageTemplate = `Usage:{{if not .HasParent}}
  {{.CommandPath}} <command> [flags]{{else}}{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{flagUsages .LocalFlags}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{flagUsages .InheritedFlags}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

func init() { cobra.AddTemplateFunc("flagUsages", flagUsages) }

// suggestFlag is the flag of fs a mistyped --name probably meant: the
// one it is a few edits away from (--tool, --tols), or else the one it
// begins (--max-it); "" when none is close.
func suggestFlag(fs *pflag.FlagSet, name string) string {
	best, bestDist := "", 3
	if len(name) < 4 {
		bestDist = 2 // a short name is close to too much
	}
	var prefixed []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editdist.Levenshtein(name, f.Name); d < bestDist || (d == bestDist && best != "" && f.Name < best) {
			best, bestDist = f.Name, d
		}
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			prefixed = append(prefixed, f.Name)
		}
	})
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	return best
}
