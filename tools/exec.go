package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools/redact"
)

// Defaults of ExecOptions.
const (
	DefaultTimeout  = 20 * time.Second
	DefaultParallel = 4
)

// Consent is a person's answer when asked whether a call may run.
type Consent int

const (
	ConsentNo  Consent = iota // refuse this call
	ConsentYes                // run this call
	ConsentAll                // run this call and every later call of the same tool
)

// ExecOptions configures Exec.
type ExecOptions struct {
	Policy Policy
	Coerce bool // as for Validate

	// Timeout is the limit of a tool whose sidecar sets none
	// (DefaultTimeout when 0); Grace the wait between SIGTERM and SIGKILL.
	Timeout, Grace time.Duration
	// MaxOutput is how much of a tool's stdout an observation keeps, head
	// and tail (DefaultMaxOutput when 0).
	MaxOutput int
	// Scratch, when set, is the directory where the whole output of a
	// truncated result is saved, for a later call to pass as "ref:<id>".
	Scratch string
	// MaxScratch caps what is saved there of one call's output
	// (DefaultMaxScratch when 0); the saved file says where it was cut.
	MaxScratch int64
	// MaxRefBytes bounds what the refs of one call pass, all together,
	// as JSON strings (DefaultMaxRefBytes when 0).
	MaxRefBytes int64
	// Workdir is the tools' working directory ("" = the current one).
	Workdir string
	// Environ is the environment the tools' scrubbed one is taken from
	// (os.Environ() when nil); Env names more variables to pass through.
	Environ []string
	Env     []string
	// Redact adds patterns to the secrets removed from observations.
	Redact []*regexp.Regexp
	// Secrets are values removed from observations whatever their
	// source, like the API key run sends.
	Secrets []string
	// Stderr, when set, receives the tools' stderr as it is written, a
	// whole line at a time and redacted as observations are.
	Stderr io.Writer
	// Parallel is how many calls may run at once (DefaultParallel when
	// 0); observations are written in input order all the same.
	Parallel int
	// DryRun runs nothing: each call that passes is answered with what
	// would have been run.
	DryRun bool
	// Confirm, when set, asks a person whether a call the policy leaves
	// to consent may run; when nil, such calls are refused. It is called
	// from one goroutine at a time, in input order.
	Confirm func(t *Tool, c *Call) Consent
	// Warn hears about input lines that are not events, as for Validate.
	Warn func(line int, err error)
	// MaxLine is the longest input line read, as for Validate.
	MaxLine int
	// Started, when set, hears of each tool as it starts, for progress.
	Started func(t *Tool, c *Call)
	// MaxCalls, when more than 0, is how many calls run over the
	// executor's life, all tools together (budget.go); a tool's own
	// MaxCalls bounds its calls too.
	MaxCalls int
	// Hooks are the commands run before and after each call (hooks.go).
	Hooks Hooks
	// Retries is how often a safe tool whose sidecar sets no "retries"
	// is run again after a timeout or a failed exit (retry.go);
	// RetryBackoff is the first wait (DefaultRetryBackoff when 0).
	Retries      int
	RetryBackoff time.Duration
}

// ExecStats counts what Exec saw and did.
type ExecStats struct {
	Events  int // input lines that were events, calls included
	Calls   int // tool_call events
	Failed  int // calls answered with an error observation
	TooLong int // lines longer than MaxLine, answered with a parse_error
	Skipped int // lines that are not events, reported through Warn and dropped
	// When ctx was done: Unread counts the calls Exec had read ahead from
	// its input but not handled; the input after line LastLine was not
	// read at all, unless ReadAll says it had been read to its end.
	Unread   int
	LastLine int
	ReadAll  bool
}

// Exec reads events from r and writes them to w, running each tool_call
// (docs/exec.md). Every call is first checked as Validate
// checks it; a call that fails is answered as Validate answers it and
// never runs.
// A call is written as Validate writes it, followed by the
// tool_observation of its run (or of its refusal); a call that an earlier
// validate refused is passed on with the observation after it. Other events are copied unchanged, and the
// output keeps the order of the input whatever the parallelism.
//
// A tool runs as its executable alone (no shell) with the arguments as one
// line of JSON on stdin, a scrubbed environment, a time limit that kills
// its whole process group, and its output cut to head and tail beyond
// MaxOutput. Secrets are redacted from everything an observation shows.
//
// When ctx is cancelled, running tools are killed and answered with kind
// interrupted, no new call starts, and Exec returns ctx's error once every
// started call has its observation written. When w fails, Exec reads
// and starts nothing more, and returns w's error once the calls under way
// are done. Either way, a Read of r that is blocked when Exec returns is
// left to end by itself: Exec never closes r.
func Exec(ctx context.Context, r io.Reader, w io.Writer, set ToolSet, opts ExecOptions) (ExecStats, error) {
	x := newExecutor(set, opts)
	opts = x.opts

	// Lines are read in a goroutine of their own, so that a cancelled
	// ctx is noticed while the input is quiet. It is stopped when Exec
	// returns, though the caller's ctx may never be done: Exec returns
	// before the end of its input when its writer fails.
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	ra := readAhead(readCtx, r, opts.MaxLine)
	lines, readErr := ra.lines, ra.err

	// Slots hold the output of each input line in order; the writer
	// waits for each in turn. The channel's size bounds what is pending.
	slots := make(chan *slot, 4*opts.Parallel)
	writeErr := make(chan error, 1)
	go func() { writeErr <- x.write(w, slots) }()

	var err error
read:
	for {
		select {
		case <-ctx.Done():
			err = ctx.Err()
			break read
		case werr := <-writeErr:
			// The writer stopped: nothing more can be written.
			x.wg.Wait()
			return x.stats(), werr
		case l, ok := <-lines:
			if !ok {
				err = <-readErr
				if err != nil && !errors.Is(err, ctx.Err()) {
					err = fmt.Errorf("reading events: %w", err)
				}
				break read
			}
			s := x.line(ctx, l)
			if s == nil {
				continue
			}
			select {
			case slots <- s:
			case werr := <-writeErr:
				// The writer stopped: nothing more can be written.
				x.wg.Wait()
				return x.stats(), werr
			}
		}
	}
	close(slots)
	x.wg.Wait()
	if werr := <-writeErr; werr != nil && err == nil {
		err = werr
	}
	if err == nil {
		err = ctx.Err()
	}
	st := x.stats()
	if ctx.Err() != nil {
		ra.leftUnread(&st)
	}
	return st, err
}

// newExecutor fills in the defaults of opts and makes the executor that
// Exec and Caller share.
func newExecutor(set ToolSet, opts ExecOptions) *executor {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.Parallel <= 0 {
		opts.Parallel = DefaultParallel
	}
	if opts.MaxScratch <= 0 {
		opts.MaxScratch = DefaultMaxScratch
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	redactor := redact.New(opts.Environ, opts.Redact, append(serverSecrets(set), opts.Secrets...)...)
	return &executor{
		opts:     opts,
		v:        validator{set: set, opts: ValidateOptions{Policy: opts.Policy, Coerce: opts.Coerce, Scratch: opts.Scratch, MaxRefBytes: opts.MaxRefBytes, Warn: opts.Warn}, warned: map[*Tool]bool{}, redactor: redactor},
		redactor: redactor,
		running:  make(chan struct{}, opts.Parallel),
		approved: map[*Tool]bool{},
		budget:   budget{max: opts.MaxCalls},
	}
}

// slot is the output of one input line, ready once done is closed.
type slot struct {
	out  []byte
	done chan struct{}
	// For a call: what became of it, as values, for Executor.Run.
	// passed is the call as validated (nil: it was refused, and obs
	// replaces it); checked is its tool_call event; obs answers it.
	passed  *verdict
	checked CallEvent
	obs     Observation
}

type executor struct {
	// values: the outcomes go to Executor.Run as values, and no line of
	// them is written (out stays empty).
	values   bool
	opts     ExecOptions
	v        validator // used from one goroutine at a time: the reader's, or Run's caller
	redactor *redact.Redactor
	running  chan struct{} // a token per call in flight
	wg       sync.WaitGroup
	approved map[*Tool]bool // tools a person approved for the rest of the run
	dirs     toolsDirsOnce  // the value of toolsDirsEnv
	budget   budget         // the calls run against the budgets, from v's goroutine

	mu     sync.Mutex
	failed int // calls whose run failed (validation failures are in v.stats)

	stderrMu sync.Mutex // held to write a line of a tool's stderr (Stderr)
}

func (x *executor) stats() ExecStats {
	x.mu.Lock()
	defer x.mu.Unlock()
	return ExecStats{Events: x.v.stats.Events, Calls: x.v.stats.Calls, Failed: x.v.stats.Failed + x.failed, TooLong: x.v.stats.TooLong, Skipped: x.v.stats.Skipped}
}

// line turns one input line into its slot: at once for anything but a
// call that runs, which gets a goroutine. nil: the line was skipped.
func (x *executor) line(ctx context.Context, l numberedLine) *slot {
	if l.tooLong {
		x.v.stats.TooLong++
		return ready(append(l.b, '\n'))
	}
	typ, err := EventType(l.b)
	if err != nil {
		x.v.stats.Skipped++
		x.v.warn(l.n, fmt.Errorf("%w; line skipped", err))
		return nil
	}
	x.v.stats.Events++
	if typ != TypeToolCall {
		return ready(append(l.b, '\n'))
	}
	x.v.stats.Calls++
	e, hasName := DecodeCallEvent(l.b)
	if e.Refused() {
		// validate refused it, and its observation comes next.
		return ready(append(l.b, '\n'))
	}
	return x.call(ctx, e.Call, hasName, l.n, e.Normalized)
}

// call checks one call, refuses it past a budget (budget.go), runs the
// before-hooks and asks for consent when the policy leaves it to a person
// (hooks.go), and answers it: at once when it is refused or a dry run,
// else from a goroutine that runs the tool and then the after-hooks. n is
// the call's line, for warnings. Exec and Run share it, so a call is
// decided the same way whether it came as a line or as a value.
func (x *executor) call(ctx context.Context, c Call, hasName bool, n int, earlier []Normalization) *slot {
	askLater := x.opts.Confirm != nil
	vd := x.v.verdict(c, hasName, n, askLater)
	vd.keepNormalized(earlier)
	x.overBudget(&vd)
	if vd.refusal == nil {
		x.beforeCall(ctx, &vd, func(c Call) verdict { return x.v.verdict(c, true, n, askLater) })
	}
	if vd.refusal != nil {
		x.v.stats.Failed++
		s := ready(nil)
		s.checked, s.obs = validatedEvent(&vd, x.redactor), *vd.refusal
		s.out = x.lines(&s.checked, &s.obs)
		return s
	}
	x.budget.charge(vd.tool)
	return x.pass(ctx, vd)
}

// pass answers a call that passed its checks: at once for a dry run, else
// from a goroutine that runs the tool. vd comes by value, so that only a
// call that passes puts its verdict on the heap.
func (x *executor) pass(ctx context.Context, vd verdict) *slot {
	checked := validatedEvent(&vd, x.redactor)
	if x.opts.DryRun {
		s := ready(nil)
		s.passed, s.checked, s.obs = &vd, checked, redactObservation(x.redactor, x.dryRun(&vd))
		s.out = x.lines(&s.checked, &s.obs)
		return s
	}

	s := &slot{done: make(chan struct{}), passed: &vd, checked: checked}
	select {
	case x.running <- struct{}{}:
	case <-ctx.Done():
		// Not started: say so rather than run it.
		s.obs = redactObservation(x.redactor, interrupted(&vd.call, "the call was not started: toolcall was interrupted"))
		s.out = x.lines(&s.checked, &s.obs)
		close(s.done)
		return s
	}
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		defer func() { <-x.running }()
		// Everything the observation says, not only the tool's output:
		// an error may quote the arguments.
		o := redactObservation(x.redactor, x.run(ctx, &vd))
		o = x.afterCall(ctx, &vd, o)
		if o.IsError {
			x.mu.Lock()
			x.failed++
			x.mu.Unlock()
		}
		s.obs = o
		s.out = x.lines(&s.checked, &s.obs)
		close(s.done)
	}()
	return s
}

// lines are the events Exec writes for a call, each with its newline:
// its tool_call as checked, then its observation; none when the
// outcomes go to Executor.Run as values.
func (x *executor) lines(checked *CallEvent, o *Observation) []byte {
	if x.values {
		return nil
	}
	return append(o.AppendJSON(append(checked.AppendJSON(nil), '\n')), '\n')
}

func ready(out []byte) *slot {
	s := &slot{out: out, done: make(chan struct{})}
	close(s.done)
	return s
}

// consent asks a person about a call of t the policy leaves to them. (c
// comes by value: Confirm keeps its pointer, which would put the verdict
// of every call on the heap.)
func (x *executor) consent(t *Tool, c Call) bool {
	if x.approved[t] {
		return true
	}
	switch x.opts.Confirm(t, &c) {
	case ConsentAll:
		x.approved[t] = true
		return true
	case ConsentYes:
		return true
	}
	return false
}

// write writes the slots in order, each line whole; the lines that are
// ready together go out in one write.
func (x *executor) write(w io.Writer, slots <-chan *slot) error {
	var out []byte
	flush := func() error {
		if len(out) == 0 {
			return nil
		}
		_, err := w.Write(out)
		out = out[:0]
		if err != nil {
			return fmt.Errorf("writing events: %w", err)
		}
		return nil
	}
	// The first error ends the writer: nothing more can be shown, and
	// Exec, seeing it, stops reading and starting calls.
	for s := range slots {
		select {
		case <-s.done:
		default:
			// Show what is ready before waiting for a tool.
			if err := flush(); err != nil {
				return err
			}
			<-s.done
		}
		out = append(out, s.out...)
		if len(out) >= flushSize || len(slots) == 0 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// run runs one call that passed its checks and makes its observation.
func (x *executor) run(ctx context.Context, vd *verdict) Observation {
	c, t := &vd.call, vd.tool
	o := Observation{ID: c.ID, Name: c.Name}
	exe, why := t.openChecked()
	if exe != nil {
		defer exe.Close()
	}
	if why != "" {
		msg := fmt.Sprintf("tool %q was not run: its executable %s changed since it was loaded (%s)", t.Name, t.Command, why)
		o.IsError, o.Status = true, StatusBlocked
		o.Error = &ToolError{Kind: KindPermission, Message: msg}
		o.Content = msg + ". Another program may have replaced it; do not call it again in this run."
		return o
	}

	spec := processSpec{
		Path:      t.Command,
		Exe:       exe,
		Dir:       x.opts.Workdir,
		Env:       x.environ(t, c.ID),
		Stdin:     append(vd.input, '\n'),
		Timeout:   x.timeout(t),
		Grace:     x.opts.Grace,
		MaxOutput: x.opts.MaxOutput,
	}
	if x.opts.Stderr != nil {
		lines := newStderrCopy(x.opts.Stderr, &x.stderrMu, x.redactor)
		defer lines.Close()
		spec.StderrTo = lines
	}
	var scratch *os.File
	var saved *cappedWriter
	var restart func() error // readies the scratch file for a retry
	if x.opts.Scratch != "" {
		var err error
		scratch, err = os.CreateTemp(x.opts.Scratch, ".output-*")
		if err != nil {
			return x.toolFault(o, fmt.Sprintf("cannot save the output under --scratch: %v", err))
		}
		defer os.Remove(scratch.Name()) // removed by finishScratch when kept
		defer scratch.Close()
		saved = &cappedWriter{w: scratch, left: x.opts.MaxScratch}
		spec.SaveTo = saved
		restart = func() error {
			*saved = cappedWriter{w: scratch, left: x.opts.MaxScratch}
			if err := scratch.Truncate(0); err != nil {
				return err
			}
			_, err := scratch.Seek(0, io.SeekStart)
			return err
		}
	}
	if x.opts.Started != nil {
		x.opts.Started(t, c)
	}
	res, attempts := x.attempts(ctx, t, spec, restart)
	o.DurationMS, o.Attempts = ptr(res.Duration.Milliseconds()), attempts
	if res.StartErr != nil {
		msg := fmt.Sprintf("tool %q could not be started: %v", t.Name, res.StartErr)
		return x.toolFault(o, msg)
	}
	if t.Server == nil { // a call over MCP has no exit status
		o.ExitCode = ptr(res.ExitCode)
	}
	o.Signal = res.Signal

	// Interpreted first and redacted after, so that base64 parts stay
	// whole and secrets written with JSON escapes are caught too.
	r := redactResult(x.redactor, interpretOutput(t, res.Stdout, res.Truncated))
	output := r.Content
	stderr := x.redactor.Tail(strings.ToValidUTF8(string(res.StderrTail), "\uFFFD"), stderrKeep)
	if res.Truncated {
		o.Truncated = true
		if scratch != nil {
			ref, err := "", res.SaveErr
			if err == nil {
				ref, err = finishScratch(x.opts.Scratch, scratch.Name(), c.ID, x.redactor, saved.dropped)
			}
			if err == nil {
				// Said in the content too: the model reads only that.
				o.Ref = ref
				what := "the whole output is saved"
				if saved.dropped > 0 {
					what = fmt.Sprintf("the first %d bytes of the output are saved (the rest is past --max-scratch-bytes)", x.opts.MaxScratch)
				}
				output += fmt.Sprintf("\n[%s: pass the string %q as an argument to give it to a tool]", what, ref)
				r.Content = output
			} else {
				output += fmt.Sprintf("\n[the whole output could not be saved: %v]", err)
				r.Content = output
			}
		}
	}

	switch {
	case res.Interrupted:
		return withOutput(interrupted(c, fmt.Sprintf("tool %q was stopped: toolcall was interrupted", t.Name)), o, output)
	case res.TimedOut:
		msg := fmt.Sprintf("tool %q did not finish within %v and was stopped%s", t.Name, spec.Timeout, triedNote(len(attempts)))
		o.IsError, o.Status = true, StatusError
		o.Error = &ToolError{Kind: KindTimeout, Message: msg}
		o.Content = msg + "." + shown("output so far", output) + shown("stderr", stderr)
		return o
	case res.ExitCode != 0 || res.Signal != "":
		how := fmt.Sprintf("exit status %d", res.ExitCode)
		if res.Signal != "" {
			how = "killed by " + res.Signal
		}
		msg := fmt.Sprintf("tool %q failed (%s)%s", t.Name, how, triedNote(len(attempts)))
		o.IsError, o.Status = true, StatusError
		o.Error = &ToolError{Kind: KindExecution, Message: msg, Details: stderrDetails(stderr)}
		o.Content = msg + "." + shown("stderr", stderr) + shown("output", output)
		return o
	}

	o.Content, o.Parts, o.Structured = output, r.Parts, r.Structured
	o.Status = StatusOK
	if res.Truncated {
		o.Status = StatusPartial
	}
	switch {
	case r.IsError:
		o.IsError, o.Status = true, StatusError
		o.Error = &ToolError{Kind: KindExecution, Message: fmt.Sprintf("tool %q reported an error", t.Name)}
	case r.SchemaErr != nil:
		msg := fmt.Sprintf("tool %q returned a result that does not match its output schema: %v", t.Name, r.SchemaErr)
		o.IsError, o.Status = true, StatusError
		o.Error = &ToolError{Kind: KindExecution, Message: msg}
	}
	return o
}

// timeout is the limit of one run of t.
func (x *executor) timeout(t *Tool) time.Duration {
	if t.Timeout > 0 {
		return t.Timeout
	}
	return x.opts.Timeout
}

// toolFault is an observation for a tool that could not run at all.
func (x *executor) toolFault(o Observation, msg string) Observation {
	o.IsError, o.Status = true, StatusError
	o.Error = &ToolError{Kind: KindExecution, Message: msg}
	o.Content = msg + ". This is a fault of the tool's installation, not of your call; use another tool or answer without it."
	return o
}

// dryRun answers a call with what would have been run.
func (x *executor) dryRun(vd *verdict) Observation {
	c, t := &vd.call, vd.tool
	env := x.environ(t, c.ID)
	sort.Strings(env)
	var b strings.Builder
	b.WriteString("Dry run: nothing was run.")
	if vd.consent != "" {
		b.WriteString(" (A person would be asked first: " + vd.consent + ".)")
	}
	b.WriteString(x.opts.Hooks.dryRunNote())
	dir := x.opts.Workdir
	if dir == "" {
		dir = "."
	}
	if t.Server != nil {
		fmt.Fprintf(&b, "\n%s\ntool: %s\ntimeout: %v\narguments: ", t.Server, t.ServerTool, x.timeout(t))
		b.Write(c.Arguments)
		return Observation{ID: c.ID, Name: c.Name, Content: x.redactor.String(b.String()), Status: StatusBlocked}
	}
	fmt.Fprintf(&b, "\nexecutable: %s\nworking directory: %s\ntimeout: %v\nenvironment:\n", t.Command, filepath.Clean(dir), x.timeout(t))
	for _, kv := range env {
		b.WriteString("  " + kv + "\n")
	}
	b.WriteString("stdin: ")
	b.Write(c.Arguments)
	if !bytes.Equal(vd.input, c.Arguments) {
		fmt.Fprintf(&b, "\n(each ref replaced by the saved text it names: %d bytes in all)", len(vd.input)+1)
	}
	return Observation{ID: c.ID, Name: c.Name, Content: b.String(), Status: StatusBlocked}
}

// interrupted answers a call that a signal stopped.
func interrupted(c *Call, msg string) Observation {
	return Observation{ID: c.ID, Name: c.Name, Content: msg + ".", IsError: true, Status: StatusError,
		Error: &ToolError{Kind: KindInterrupted, Message: msg}}
}

// withOutput gives an interrupted observation what the run had measured
// and said.
func withOutput(o, ran Observation, output string) Observation {
	o.ExitCode, o.Signal, o.DurationMS, o.Truncated, o.Ref = ran.ExitCode, ran.Signal, ran.DurationMS, ran.Truncated, ran.Ref
	o.Attempts = ran.Attempts
	o.Content += shown("output so far", output)
	return o
}

// shown is a labelled block for an error observation, or "" when empty.
func shown(label, text string) string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return ""
	}
	return "\n" + label + ":\n" + text
}

// stderrDetails is the details object of an execution error: the tail
// of stderr runProcess kept, redacted and valid UTF-8.
func stderrDetails(stderr string) []byte {
	if stderr == "" {
		return nil
	}
	return append(jsonw.AppendString([]byte(`{"stderr":`), stderr), '}')
}

func ptr[T any](v T) *T { return &v }
