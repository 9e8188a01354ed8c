// Command toolcall gives text-only language models tool use from the shell.
//
// This package is the only one that knows about cobra, flags, environment
// variables, terminals and exit codes. Each subcommand lives in a file of
// its own: it turns flags into options, calls the library, and writes JSONL.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/toolcall/toolcall/internal/launch"
)

// Exit codes, documented in the root command's help, the man pages and
// README.md. 130 (Ctrl-C) and 141 (stdout closed early) come from the
// default signal actions: no handler is installed for SIGINT or SIGPIPE.
const (
	exitOK      = 0 // the stage did its job
	exitFailure = 1 // the program failed, or --fail saw an error event
	exitUsage   = 2 // the invocation is wrong
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version string

// errReported means the details of a failure are already on stderr; it
// exits 1 without another message.
var errReported = errors.New("errors reported")

// usageError is a wrong invocation: a bad flag, argument, environment
// variable or input file. It exits 2.
type usageError struct {
	err error
	// help adds a pointer to the command's --help to the message; it is
	// set for errors about flags and arguments, not for unreadable files.
	help bool
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// signalExit is a run stopped by a signal after it cleaned up: it exits
// 128 + the signal's number, as a shell would report.
type signalExit struct{ code int }

func (e *signalExit) Error() string { return fmt.Sprintf("stopped by a signal (exit %d)", e.code) }

// usage wraps err as a usage error that points at --help.
func usage(err error) error { return &usageError{err: err, help: true} }

// No signal handlers here: Ctrl-C kills at once (the shell shows 130) and
// a closed stdout kills with SIGPIPE (141), as a pipeline stage should.
// exec alone catches SIGINT and SIGTERM, to stop its tools first.
func main() {
	ownProcess = true
	os.Exit(execute(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// execute runs the command line args with the given streams and returns the
// exit code. It is the one place where errors become exit codes.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	errs := &messageStream{Writer: stderr}
	root := newRootCmdArgs(args, stdin, stdout, errs)
	if args == nil {
		args = []string{} // cobra would read os.Args instead
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil {
		errs.gather(cmd) // no-op once root's PersistentPreRunE gathered
	}
	var uerr *usageError
	var serr *signalExit
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &serr):
		return serr.code
	case errors.Is(err, errReported):
		return exitFailure
	case errors.As(err, &uerr):
		if uerr.help && cmd != nil {
			fmt.Fprintf(stderr, "toolcall: %s (see '%s --help')\n", forStderr(err.Error(), errs), cmd.CommandPath())
		} else {
			// A load error may list several files, one per line.
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(stderr, "toolcall: %s\n", forStderr(line, errs))
			}
		}
		return exitUsage
	default:
		// Errors carry outside text (a model server's reply, a tool's
		// message) and may quote flags: see forStderr.
		fmt.Fprintf(stderr, "toolcall: %s\n", forStderr(err.Error(), errs))
		return exitFailure
	}
}

// versionString is the version of this binary: the one set with -ldflags,
// else the module version go install recorded, else "devel".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// ownProcess is set by main: toolcall is a process of its own, not a test
// binary running a command in-process, whose other children (started by
// os/exec, not the launcher) must not be taken for orphans.
var ownProcess bool

// adoptOrphans makes exec and run, on Linux, adopt a tool's descendants
// that leave its process group (setsid, a double fork), so that they are
// killed when the calls end instead of running on under init.
func adoptOrphans() {
	if ownProcess {
		launch.AdoptOrphans()
	}
}
