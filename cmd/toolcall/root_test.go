package main

import (
	"io"
	"strings"
	"testing"
)

// TestRootCommandNames: each command is listed under its own name, so
// that a command line naming it builds that command and no other.
func TestRootCommandNames(t *testing.T) {
	for _, c := range rootCommands(strings.NewReader(""), io.Discard, io.Discard) {
		if got := c.build().Name(); got != c.name {
			t.Errorf("rootCommands lists %q for the command %q", c.name, got)
		}
		root := newRootCmdArgs([]string{c.name, "--help"}, strings.NewReader(""), io.Discard, io.Discard)
		if cmd, _, err := root.Find([]string{c.name}); err != nil || cmd.Name() != c.name {
			t.Errorf("toolcall %s: the tree has no %s (%v)", c.name, c.name, err)
		}
	}
}
