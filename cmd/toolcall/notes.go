package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"
)

// -q and -v are flags of every command, persistent on the root. Stderr
// holds three kinds of line: errors and warnings, which are always
// written; notes (what was left out and how to include it, progress, an
// "ok" line per recording checked), which -q drops; and what -v adds.
// A hint that a command reads a terminal is no note: it is written even
// under -q, as a person sits there waiting.
func addVerbosity(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.BoolP("quiet", "q", false, "no notes on stderr (tools left out, progress, ok lines); warnings and errors still")
	pf.BoolP("verbose", "v", false, "say more on stderr: run's progress even when stderr is not a terminal and how a --check matched; mcp serve's calls and reloads")
}

// isQuiet reports whether -q was given (or TOOLCALL_QUIET set).
func isQuiet(cmd *cobra.Command) bool {
	q, _ := cmd.Flags().GetBool("quiet")
	return q
}

// isVerbose reports whether -v was given (or TOOLCALL_VERBOSE set).
func isVerbose(cmd *cobra.Command) bool {
	v, _ := cmd.Flags().GetBool("verbose")
	return v
}

// checkVerbosity refuses -q with -v: each undoes the other.
func checkVerbosity(cmd *cobra.Command) error {
	if isQuiet(cmd) && isVerbose(cmd) {
		return usage(errors.New("-q (--quiet) and -v (--verbose) ask for less and more on stderr: give one"))
	}
	return nil
}

// notesTo is where the notes of a command go: stderr, or nowhere
// under -q.
func notesTo(cmd *cobra.Command, stderr io.Writer) io.Writer {
	if isQuiet(cmd) {
		return io.Discard
	}
	return stderr
}
