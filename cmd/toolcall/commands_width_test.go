package main

import (
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// TestCommandListsFit: every line of a command list (toolcall --help,
// toolcall mcp --help, ...) fits in 80 columns, as the help does, so a
// subcommand's Short must stay short.
func TestCommandListsFit(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.HasAvailableSubCommands() {
			usage := cmd.UsageString()
			_, list, ok := strings.Cut(usage, "Available Commands:\n")
			if !ok {
				t.Errorf("%s --help lists no commands:\n%s", cmd.CommandPath(), usage)
			}
			list, _, _ = strings.Cut(list, "\n\n")
			for line := range strings.SplitSeq(list, "\n") {
				if n := utf8.RuneCountInString(line); n > 80 {
					t.Errorf("%s --help: a line of %d columns, shorten its Short: %q", cmd.CommandPath(), n, line)
				}
			}
		}
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(root)
}
