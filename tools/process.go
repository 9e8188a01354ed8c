package tools

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/toolcall/toolcall/internal/launch"
)

// DefaultGrace is how long a tool's process group has between SIGTERM and
// SIGKILL when processSpec.Grace is not set.
const DefaultGrace = launch.DefaultGrace

// processSpec is one run of a tool's executable.
type processSpec struct {
	Path string // the executable (Tool.Command); run directly, never through a shell
	// Exe, when set, is Path opened and checked (Tool.openChecked): that
	// open file is what runs (launch.Spec.Exe).
	Exe *os.File
	Dir string // working directory; "" = current
	// Env is the whole environment, "NAME=value" (see Environ). nil means
	// an empty environment, never the parent's.
	Env []string
	// Stdin is written to the tool's stdin, which is then closed. A tool
	// that never reads it neither blocks nor fails the run.
	Stdin   []byte
	Timeout time.Duration // DefaultTimeout when <= 0
	Grace   time.Duration // SIGTERM -> SIGKILL delay for the whole group; DefaultGrace when <= 0
	// MaxOutput is how much of stdout is kept in memory: the first half
	// and the last half (DefaultMaxOutput when <= 0).
	MaxOutput int
	// SaveTo, when not nil, receives the whole stdout as it arrives (the
	// scratch file). A write error stops the copy, not the tool.
	SaveTo io.Writer
	// StderrTo, when not nil, receives stderr as it arrives (--stderr).
	StderrTo io.Writer
}

// processResult is what a run produced. Exactly one of StartErr,
// TimedOut, Interrupted or a plain exit (ExitCode, Signal) describes how it
// ended.
type processResult struct {
	// Stdout is the whole stdout when not Truncated; else Head, a line
	// saying how much was cut, and Tail.
	Stdout     []byte
	Truncated  bool
	TotalBytes int64  // how much stdout the tool wrote
	Head, Tail []byte // when Truncated: the kept head and tail, cut at character boundaries
	// StderrTail is the end of stderr: the 4 KiB shown and up to 16 KiB
	// before them, so that redact.Redactor.Tail sees a secret cut by the window
	// whole.
	StderrTail []byte
	// Result is how the run ended, as the launcher saw it: ExitCode,
	// Signal, TimedOut, Interrupted, Duration, StartErr.
	launch.Result
	// SaveErr is the error that stopped the copy to SaveTo, if one did;
	// the saved output is then incomplete.
	SaveErr error
}

// runProcess runs spec's executable through the launcher (a process group
// of its own, SIGTERM then SIGKILL after the grace; see launch.Run), feeds
// it Stdin, and collects its output within fixed memory. It never returns
// before the whole group is dead, and never later than about Timeout +
// Grace + a few seconds, whatever the tool does.
func runProcess(ctx context.Context, spec processSpec) processResult {
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	stdout := newOutputCapture(spec.MaxOutput, spec.SaveTo)
	stderr := newStderrCapture(spec.StderrTo)
	r := launch.Run(ctx, launch.Spec{
		Path:    spec.Path,
		Exe:     spec.Exe,
		Dir:     spec.Dir,
		Env:     spec.Env,
		Stdin:   spec.Stdin,
		Stdout:  stdout,
		Stderr:  stderr,
		Timeout: timeout,
		Grace:   spec.Grace,
	})
	res := processResult{Result: r}
	if r.StartErr != nil {
		return res
	}
	stdout.result(&res)
	res.StderrTail = stderr.bytes()
	return res
}
