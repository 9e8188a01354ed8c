package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolcall/toolcall/run"
)

// show is a subcommand of its own rather than run --replay FILE --view:
// replaying runs the tools again, and reading a recording should run
// nothing; it also reads a pipe, so any stage's output can be read.
func newShowCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := showOptions{isTerminal: isTerminal}
	return &cobra.Command{
		Use:   "show [<file>...]",
		Short: "Show a transcript as run shows it at a terminal",
		Long: `Show reads a transcript (a file from run --record, or any stage's JSONL
on standard input) and writes it for a person: each call as
name(argument: value, ...), each observation as its status, exit code and
duration with its first lines, reasoning dimmed, the system prompt as one
line, and the final answer last. It runs nothing. Colour is used when
standard output is a terminal and NO_COLOR is unset.

This is what run writes when its standard output is a terminal; the
rendering is for reading and may change from one version to the next, so
scripts read the JSONL.`,
		Example: `  toolcall show testdata/transcripts/demo.jsonl
  toolcall run --model-cmd ./my-model "What is 17 * 25?" | toolcall show`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(args, stdin, stdout, stderr)
		},
	}
}

// showOptions are show's; it has no flags, only the terminal to ask about.
type showOptions struct {
	isTerminal func(io.Reader) bool
}

// run shows the transcripts of the files args, or of stdin when none.
func (o *showOptions) run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	ins, closeAll, err := openInputs(stdin, args)
	if err != nil {
		return err
	}
	defer closeAll()
	v := run.NewView(stdout, useColor(stdout))
	for _, in := range ins {
		if in.name == "" && o.isTerminal(in.r) {
			fmt.Fprintln(stderr, "toolcall: reading a transcript from stdin (paste it, then Ctrl-D)")
		}
		if _, err := io.Copy(v, in.r); err != nil {
			return err
		}
	}
	return v.Close()
}

// useColor reports whether w may be written in colour: a terminal, and
// NO_COLOR unset or empty (no-color.org).
func useColor(w io.Writer) bool {
	return isTerminalWriter(w) && os.Getenv("NO_COLOR") == ""
}
