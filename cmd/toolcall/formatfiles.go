package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/parse"
)

// formatFiles is --format-file: families a user wrote as format files
// (docs/formats.md), read besides the built-in ones by parse and run.
type formatFiles struct {
	files fileList
}

func (f *formatFiles) add(fs *pflag.FlagSet) {
	fs.Var(&f.files, "format-file", "also read calls in the syntax this JSON `file` describes (repeatable; docs/formats.md)")
	envAs(fs, "format-file", "TOOLCALL_FORMAT_FILES")
}

// load reads the format files. A bad one is a usage error (exit 2)
// naming the file, the field and the fix.
func (f *formatFiles) load() ([]*parse.Spec, error) {
	var specs []*parse.Spec
	for _, name := range f.files {
		s, err := parse.LoadFormatFile(name)
		if err != nil {
			return nil, &usageError{err: err}
		}
		specs = append(specs, s)
	}
	if err := parse.CheckFormats(specs); err != nil {
		return nil, &usageError{err: fmt.Errorf("--format-file: %w", err)}
	}
	return specs, nil
}

// fileList is the value of --format-file: files, given one per flag or
// several separated by colons as in TOOLCALL_FORMAT_FILES.
type fileList []string

func (l *fileList) String() string { return strings.Join(*l, string(os.PathListSeparator)) }
func (l *fileList) Type() string   { return "file" }

func (l *fileList) Set(s string) error {
	for _, name := range strings.Split(s, string(os.PathListSeparator)) {
		if name != "" {
			*l = append(*l, name)
		}
	}
	return nil
}

// checkFormat reports an id that names no format, built in or in specs,
// as the flag or variable it came from (from: "--format",
// "TOOLCALL_PARSE_FORMAT") would have had it.
func checkFormat(id, from string, specs []*parse.Spec) error {
	if id == "" {
		return nil
	}
	var ids []string
	for _, f := range parse.Formats() {
		ids = append(ids, f.ID)
	}
	for _, s := range specs {
		if s.Format == id {
			return nil
		}
		ids = append(ids, s.Format)
	}
	for _, known := range ids {
		if known == id {
			return nil
		}
	}
	msg := fmt.Sprintf("unknown format; want one of %s", strings.Join(ids, ", "))
	if strings.HasPrefix(from, envPrefix) {
		return usage(fmt.Errorf("invalid value %q for %s: %s", id, from, msg))
	}
	return usage(fmt.Errorf("invalid argument %q for %q flag: %s", id, from, msg))
}

// listFormats writes every family parse reads as an aligned table: its
// id and models, and where it comes from when it is not built in.
func listFormats(w io.Writer, specs []*parse.Spec) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, f := range parse.Formats() {
		fmt.Fprintf(tw, "%s\t%s\n", f.ID, f.Models)
	}
	for _, s := range specs {
		models := strings.Join(s.Models, ", ")
		if models == "" {
			models = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t(%s)\n", s.Format, models, s.Source)
	}
	return tw.Flush()
}

// showFormat writes the spec of the family id in the format file form.
func showFormat(w io.Writer, id string, specs []*parse.Spec) error {
	var s *parse.Spec
	for _, x := range specs {
		if x.Format == id {
			s = x
		}
	}
	if s == nil {
		for _, x := range parse.Specs() {
			if x.Format == id {
				s = x
			}
		}
	}
	if s == nil {
		return checkFormat(id, "--show-format", specs)
	}
	b, err := parse.MarshalSpec(s)
	if err != nil {
		return usage(err)
	}
	_, err = w.Write(b)
	return err
}
