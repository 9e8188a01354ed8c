package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
)

const execLong = `Exec runs the tool calls it reads and writes what each tool said. It reads
events (the output of toolcall parse or validate) from each <file>, or
standard input, and writes every line that is not a tool_call through
unchanged and in order.

Each call is first checked as validate checks it; a call that fails is
written and answered as validate writes and answers it ("validated":
false, then a tool_observation saying why) and never runs; one that
validate refused already is passed through with its answer. A call that
passes is written again, as validate writes it, followed by the
tool_observation of its run:

    content      what the tool printed, as the model will read it: text,
                 JSON, or the text of an MCP CallToolResult, whose
                 images and resources become short placeholders (kept
                 whole under "parts")
    status       ok; partial (the output was cut); error; blocked (the
                 policy refused it, or --dry-run)
    is_error, error {kind, message, details}
                 kind timeout, execution (non-zero exit, killed by a
                 signal, an MCP result with isError), validation,
                 permission, unknown_tool, or interrupted
    exit_code, signal, duration_ms, truncated, ref

How a tool runs: its executable alone, never through a shell, with the
arguments as one line of JSON on standard input; in --workdir; with an
environment scrubbed down to PATH, HOME, LANG, LC_*, TZ and TMPDIR, the
variables named by --env and by the sidecar's "env", and TOOLCALL_TOOL,
TOOLCALL_CALL_ID and TOOLCALL_TOOLS_DIRS (the directories of the tools in
use, for tools that write files to keep out of). A tool whose executable
changed since the tools were loaded is refused (kind permission).

A tool of an MCP server (a sidecar holding "mcp_server", or --mcp) is
called over MCP instead, after the same checks: its CallToolResult is read
as a tool's MCP-shaped output is, within the same limits, and --timeout
cancels the call.

Limits: a tool runs at most its sidecar's "timeout", else --timeout; then
its whole process group gets SIGTERM, and SIGKILL after --kill-grace. Past
--max-output bytes the observation keeps the head and the tail of the
output and says how much was cut; with --scratch DIR the whole output is
saved there and the observation carries "ref": "ref:<id>", which a later
call may pass as a string argument to get the whole text; at most
--max-scratch-bytes of one output are saved, and a saved file that was cut
ends by saying so. A ref is resolved before the call is checked, so the
schema judges the text it stands for, and it names only an output toolcall
saved in that directory (in this run or an earlier one): any other file
there, or a link, is an unknown ref. The last 4 KiB of
stderr are shown when a tool fails; --stderr copies all of it to
toolcall's standard error as it comes, a line at a time, redacted as
observations are.

Secrets never reach an observation: values of environment variables whose
names look secret (KEY, TOKEN, SECRET, PASSWORD, ...), well-known
credential patterns (OpenAI, Anthropic, GitHub, Slack, AWS, Google, bearer
tokens, private keys) and the patterns of --redact become [REDACTED]. A
value is found raw and JSON-escaped (\u0026, \u00e9, \/, ... in any mix,
once or twice over), in everything an observation says, validation errors
included, and in what --stderr copies. Other encodings (base64,
URL-encoding) are not recognised.

Consent: a tool marked "safe": false, or registered with no_schema_mode
human-approval, runs only with --allow-unsafe (or --approve NAME), or with
--confirm when a person at the terminal answers y (yes), n (no) or a (yes
to every call of that tool). Without a terminal, --confirm refuses.
--dry-run runs nothing and shows, for each call, the executable,
environment and standard input it would have used.

Budgets: --max-calls N runs at most N calls of the whole stream, and a
sidecar's "max_calls": N at most N calls of its tool. A call past either
is refused with kind permission (details {"budget": "run"} or {"budget":
"tool"}, and "max_calls") before any hook runs or anyone is asked. Only calls
that run count: one refused for its arguments, or by a person, does not.

` + hooksHelp + `

Up to --parallel calls run at once; their observations are written in the
order of the calls. On SIGINT or SIGTERM every running tool is killed and
answered with kind interrupted, and exec exits 130 or 143.

A failed call is data: exec exits 0 unless --fail is given and a call
failed.`

const execExample = `  # parse a reply, run its calls, show what the tools said
  toolcall parse reply.txt | toolcall exec --tools ./tools

  # see what would run, without running anything
  toolcall parse reply.txt | toolcall exec --tools ./tools --dry-run

  # ask at the terminal before a tool with side effects runs
  toolcall parse reply.txt | toolcall exec --tools ./tools --confirm

  # let a program of yours allow, block or rewrite each call first
  toolcall parse reply.txt | toolcall exec --tools ./tools --before-call ./policy

  # keep big outputs whole, for later calls to pass by reference
  toolcall exec --tools ./tools --scratch .toolcall events.jsonl`

// execHint is said on stderr when exec would read a terminal.
const execHint = "toolcall: reading events from stdin (the output of toolcall parse; Ctrl-D ends); see 'toolcall exec --help'"

type execOptions struct {
	tools     toolsFlags
	coerce    bool
	fail      bool
	timeout   time.Duration
	grace     time.Duration
	maxOutput byteSize
	maxLine   byteSize
	scratch   string
	maxSaved  byteSize
	maxRefs   byteSize
	workdir   string
	env       []string
	redact    []string
	stderr    bool
	parallel  int
	dryRun    bool
	confirm   bool
	maxCalls  int
	hooks     hookFlags // hooks.go

	isTerminal func(io.Reader) bool
}

func newExecCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	opts := execOptions{isTerminal: isTerminal, maxOutput: tools.DefaultMaxOutput, maxSaved: tools.DefaultMaxScratch, maxLine: tools.DefaultMaxLine}
	cmd := &cobra.Command{
		Use:     "exec [<file>...]",
		Short:   "Run tool calls safely, within limits; write what the tools said",
		Long:    execLong,
		Example: execExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.run(cmd.Context(), args, stdin, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	opts.tools.addDirs(fs)
	opts.tools.addPolicy(fs)
	opts.addCallFlags(fs)
	opts.addRunFlags(fs)
	fs.BoolVar(&opts.fail, "fail", false, "exit 1 if any call failed, or an input line was skipped (not an event, or too long)")
	fs.Var(&opts.maxLine, "max-line", "skip input lines longer than this, answering each with a parse_error, e.g. 64MiB")
	opts.tools.registerCompletions(cmd, true)
	must(cmd.MarkFlagDirname("scratch"))
	must(cmd.MarkFlagDirname("workdir"))
	return cmd
}

// prepare checks the flags, loads the tools and makes the options of
// tools.Exec; run uses it too.
func (o *execOptions) prepare(stderr io.Writer) (tools.ExecOptions, *catalog.Catalog, error) {
	var none tools.ExecOptions
	if o.parallel < 1 {
		return none, nil, usage(fmt.Errorf("--parallel %d: want 1 or more", o.parallel))
	}
	// Each bound is named alone, so the message says which one to change.
	if o.timeout <= 0 {
		return none, nil, usage(errors.New("--timeout 0: want more than 0, such as 20s"))
	}
	if o.grace < 0 {
		return none, nil, usage(errors.New("--kill-grace: want 0 or more"))
	}
	if o.maxCalls < 0 {
		return none, nil, usage(fmt.Errorf("--max-calls %d: want 0 (no bound) or more", o.maxCalls))
	}
	var redact []*regexp.Regexp
	for _, expr := range o.redact {
		re, err := regexp.Compile(expr)
		if err != nil {
			return none, nil, usage(fmt.Errorf("--redact %q: %w", expr, err))
		}
		redact = append(redact, re)
	}
	// The scratch directory is toolcall's own, so it is made when missing,
	// as new --dir and run --out make theirs: private (0700), since it
	// holds whole tool outputs. A --workdir that is not there is a typo.
	if o.scratch != "" {
		if _, err := os.Stat(o.scratch); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(o.scratch, 0o700); err != nil {
				return none, nil, usage(fmt.Errorf("--scratch %s: cannot create it: %w", o.scratch, errors.Unwrap(err)))
			}
		}
	}
	for _, dir := range []struct{ flag, path, fix string }{{"--scratch", o.scratch, ""}, {"--workdir", o.workdir, " (create it first)"}} {
		if dir.path == "" {
			continue
		}
		if fi, err := os.Stat(dir.path); err != nil || !fi.IsDir() {
			return none, nil, usage(fmt.Errorf("%s %s: not a directory%s", dir.flag, dir.path, dir.fix))
		}
	}
	hooks, err := o.hooks.options()
	if err != nil {
		return none, nil, err
	}
	policy, err := o.tools.policy()
	if err != nil {
		return none, nil, err
	}
	c, err := o.tools.load(stderr)
	if err != nil {
		return none, nil, err
	}
	var confirm func(*tools.Tool, *tools.Call) tools.Consent
	if o.confirm {
		if confirm = ttyConfirm(); confirm == nil {
			fmt.Fprintln(stderr, "toolcall: warning: --confirm: no terminal to ask at, so calls that need consent are refused")
		}
	}
	var toolStderr io.Writer
	if o.stderr {
		toolStderr = stderr
	}
	return tools.ExecOptions{
		Policy:      policy,
		Coerce:      o.coerce,
		Timeout:     o.timeout,
		Grace:       o.grace,
		MaxOutput:   int(o.maxOutput),
		MaxLine:     int(o.maxLine),
		Scratch:     o.scratch,
		MaxScratch:  int64(o.maxSaved),
		MaxRefBytes: int64(o.maxRefs),
		Workdir:     o.workdir,
		Env:         o.env,
		Redact:      redact,
		Stderr:      toolStderr,
		Parallel:    o.parallel,
		DryRun:      o.dryRun,
		Confirm:     confirm,
		MaxCalls:    o.maxCalls,
		Hooks:       hooks,
		Retries:     o.hooks.retries,
	}, c, nil
}

func (o *execOptions) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	xopts, c, err := o.prepare(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	// Calls are checked against an MCP server's tools as they are when
	// the call comes, should the server say they changed.
	live := catalog.NewLive(c)
	adoptOrphans()
	ins, closeAll, err := openInputs(stdin, args)
	if err != nil {
		return err
	}
	defer closeAll()

	// SIGINT and SIGTERM stop the tools first; the exit code then says
	// which signal it was.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	caught, release := catchSignals(stop)
	defer release()

	var failed, tooLong, skipped int
	err = eachInput(ins, o.isTerminal, execHint, stderr, func(in input, warn func(int, error)) error {
		xopts.Warn = warn
		st, err := tools.Exec(ctx, skipBOM(in.r), stdout, live, xopts)
		failed += st.Failed
		tooLong += st.TooLong
		skipped += st.Skipped
		if sig, ok := caught.Load().(os.Signal); ok {
			fmt.Fprintf(stderr, "toolcall: %v: stopped the running tools%s\n", sig, unreadNote(st.Unread, st.LastLine, st.ReadAll))
			return &signalExit{code: signalCode(sig)}
		}
		return err
	})
	if err != nil {
		return err
	}
	if o.fail && (failed > 0 || tooLong > 0 || skipped > 0) {
		reportFailures(stderr, failed, "failed", tooLong, skipped)
		return errReported
	}
	return nil
}

// catchSignals cancels the work on SIGINT or SIGTERM (through stop) and
// remembers which came; release stops catching.
func catchSignals(stop func()) (caught *atomic.Value, release func()) {
	caught = new(atomic.Value)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			caught.Store(sig)
			stop()
		case <-done:
		}
	}()
	return caught, func() {
		signal.Stop(sigs)
		close(done)
	}
}

// signalCode is the exit code after a signal: 128 + its number, as a
// shell reports it.
func signalCode(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return 143
	}
	return 130
}

// ttyConfirm returns the function that asks at the terminal, or nil when
// there is no terminal to ask at. It reads /dev/tty, not stdin, which
// carries the events.
func ttyConfirm() func(*tools.Tool, *tools.Call) tools.Consent {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	tty.Close()
	return func(t *tools.Tool, c *tools.Call) tools.Consent {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return tools.ConsentNo
		}
		defer tty.Close()
		return askConsent(bufio.NewReader(tty), tty, t, c)
	}
}

// askConsent asks the person at in and out whether the model's call c of
// t may run. Long values are cut in the middle in the question; "v" shows
// the whole call, and asks again. Anything but a yes is a no.
func askConsent(in *bufio.Reader, out io.Writer, t *tools.Tool, c *tools.Call) tools.Consent {
	why := "it has side effects"
	if t.Safe {
		why = "it needs a person's approval"
	}
	fmt.Fprintf(out, "toolcall: the model calls %s (%s):\n%s", t.Name, why, tools.ConfirmText(c.Arguments))
	for {
		fmt.Fprintf(out, "Run it? [y]es, [n]o, [a]ll calls of %s, [v]iew the whole call: ", t.Name)
		answer, err := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
			return tools.ConsentYes
		case "a", "all":
			return tools.ConsentAll
		case "v", "view":
			fmt.Fprintf(out, "toolcall: the whole call of %s, nothing cut:\n%s", t.Name, tools.ConfirmWhole(c.Arguments))
			if err == nil {
				continue
			}
		}
		return tools.ConsentNo
	}
}

// unreadNote says what an interrupted exec left of its input: the calls
// it had read ahead and never handled, and where it stopped reading.
func unreadNote(unread, lastLine int, readAll bool) string {
	var note string
	if unread > 0 {
		note = fmt.Sprintf("; %d call%s left unread", unread, plural(unread))
	}
	if !readAll {
		note += fmt.Sprintf("; the input after line %d was not read", lastLine)
	}
	return note
}

// addRunFlags defines the flags of how calls run that exec and run share,
// worded once so that they read the same in both.
func (o *execOptions) addRunFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.confirm, "confirm", false, "ask at the terminal before a call that needs consent runs (y, n, a for all calls of that tool, or v to see the whole call first)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "run nothing; show what each call would run")
	fs.IntVar(&o.maxCalls, "max-calls", 0, "run at most `n` tool calls in all (run: the whole run; exec: the whole stream); later calls are refused, kind permission (0: no bound)")
	o.addLimitFlags(fs)
}

// addCallFlags defines the flags of how exec runs each call, which mcp
// serve shares (run names its --timeout --tool-timeout).
func (o *execOptions) addCallFlags(fs *pflag.FlagSet) {
	durationVar(fs, &o.timeout, "timeout", tools.DefaultTimeout, "stop a tool after this long, unless its sidecar sets a timeout")
	envAs(fs, "timeout", "TOOLCALL_TOOL_TIMEOUT") // run's --tool-timeout
	durationVar(fs, &o.grace, "kill-grace", 2*time.Second, "after SIGTERM, wait this long before SIGKILL")
	fs.BoolVar(&o.stderr, "stderr", false, "copy the tools' stderr to toolcall's stderr as it comes")
	fs.IntVar(&o.parallel, "parallel", tools.DefaultParallel, "run at most `n` calls at once")
	fs.BoolVar(&o.coerce, "coerce", false, coerceUsage)
}

// coerceUsage is --coerce's help in every command that has it.
const coerceUsage = `convert strings that are exactly the number, boolean or null the schema asks for ("42" -> 42)`

// addLimitFlags defines the limits, environment and redaction of the
// tools, which exec, run and mcp serve share.
func (o *execOptions) addLimitFlags(fs *pflag.FlagSet) {
	fs.Var(&o.maxOutput, "max-output", "keep at most this much of a tool's output (head and tail), e.g. 16KiB or 1MB")
	fs.StringVar(&o.scratch, "scratch", "", "save the whole output of a cut result in `dir`, for a ref: argument")
	fs.Var(&o.maxSaved, "max-scratch-bytes", "save at most this much of one call's output under --scratch, e.g. 64MiB")
	o.addMaxRefBytes(fs)
	fs.StringVar(&o.workdir, "workdir", "", "run tools in `dir` (default: the current directory)")
	fs.StringSliceVar(&o.env, "env", nil, "pass these environment `names` to tools (repeatable, comma-separated)")
	fs.StringArrayVar(&o.redact, "redact", nil, "also redact text matching this `regexp` (repeatable)")
	o.hooks.add(fs)
}

// reportFailures says on stderr why --fail exits 1: how many calls failed
// (verb says how), how many input lines were too long, and how many were
// not events at all.
func reportFailures(stderr io.Writer, failed int, verb string, tooLong, skipped int) {
	if failed > 0 {
		fmt.Fprintf(stderr, "toolcall: %d call%s %s\n", failed, plural(failed), verb)
	}
	if tooLong > 0 {
		fmt.Fprintf(stderr, "toolcall: %d input line%s longer than --max-line skipped\n", tooLong, plural(tooLong))
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "toolcall: %d input line%s not an event, skipped (see the messages above for where)\n", skipped, plural(skipped))
	}
}
