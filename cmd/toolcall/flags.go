package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
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
