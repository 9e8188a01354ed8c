package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/atomicfile"
	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// runSetup is what every mode of run starts from once the flags are
// checked: the tools and the policy, the format files, and the streams.
type runSetup struct {
	exec           tools.ExecOptions
	catalog        *catalog.Catalog
	formats        []*parse.Spec
	stdin          io.Reader
	stdout, stderr io.Writer
}

// runPrompt is the plain loop: one request, from the arguments or stdin.
func (o *runOptions) runPrompt(ctx context.Context, args []string, s runSetup) (err error) {
	// Read whole before --record, which may name the same file, is opened.
	conv, err := o.openContinue()
	if err != nil {
		return err
	}
	in, err := o.request(args, s.stdin, s.stderr)
	if err != nil {
		return err
	}
	m, err := o.backend.build(ctx, o.totalTimeout)
	if err != nil {
		return err
	}
	lopts, err := o.loopOptions(s, m)
	if err != nil {
		return err
	}
	if conv != nil {
		if err := conv.Accept(in, lopts); err != nil {
			return usage(fmt.Errorf("--continue %s: %w", o.cont, err))
		}
	}
	t, err := o.openTranscript(s.stdout)
	if err != nil {
		return err
	}
	defer t.close(&err)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	caught, release := catchSignals(stop)
	defer release()
	var res run.Result
	if conv != nil {
		res, err = conv.Continue(ctx, in, t.sink, lopts)
	} else {
		res, err = run.LoopSink(ctx, in, t.sink, lopts)
	}
	if err != nil {
		return err
	}
	if err := o.ended(res, t, caught, s.stderr); err != nil {
		return err
	}
	return o.answered(res, s.stdout, s.stderr)
}

// runReplay replays one recording (--replay FILE), which holds the
// request and gives the model's turns, and with --check compares.
func (o *runOptions) runReplay(ctx context.Context, args []string, s runSetup) (err error) {
	rec, err := o.openReplay(args)
	if err != nil {
		return err
	}
	lopts, err := o.loopOptions(s, modelBackend{}) // the recording's, set up below
	if err != nil {
		return err
	}
	t, err := o.openTranscript(s.stdout)
	if err != nil {
		return err
	}
	defer t.close(&err)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	caught, release := catchSignals(stop)
	defer release()
	// The recording decides the backend and how tools are offered.
	if err := rec.Setup(&lopts, o.backend.api.value == "native"); err != nil {
		return usage(fmt.Errorf("--replay %s: %w", o.replay, err))
	}
	rec.Ignore = o.ignored
	res, diff, err := rec.Replay(ctx, t.sink, lopts, o.check)
	if err != nil {
		return err
	}
	if err := o.ended(res, t, caught, s.stderr); err != nil {
		return err
	}
	if o.check {
		return o.checked(res, diff, s.stdout, s.stderr)
	}
	return o.answered(res, s.stdout, s.stderr)
}

// runBatch runs the requests of --batch, each its own loop.
func (o *runOptions) runBatch(ctx context.Context, s runSetup) (err error) {
	m, err := o.backend.build(ctx, o.totalTimeout)
	if err != nil {
		return err
	}
	lopts, err := o.loopOptions(s, m)
	if err != nil {
		return err
	}
	t, err := o.openTranscript(s.stdout)
	if err != nil {
		return err
	}
	defer t.close(&err)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	caught, release := catchSignals(stop)
	defer release()
	// At a terminal, one progress line on stderr for the whole batch, in
	// place of each request's progress (-v keeps those).
	var progress *batchProgress
	out := t.out
	if !o.quiet && !o.verbose && isTerminalWriter(s.stderr) {
		total := 0
		if o.batch.file != "-" {
			shard, _ := o.batch.parseShard()
			total = countRequests(o.batch.file, shard)
		}
		progress = newBatchProgress(s.stderr, total)
		lopts.Progress = nil
		if o.isTerminalOut(s.stdout) {
			out = progress.around(out)
		}
	}
	return o.batch.run(ctx, s.stdin, lopts, o, caught, out, s.stderr, progress)
}

// checkRecordings checks many recordings (--replay DIR --check), each
// replayed with its own backend. Stdout holds the check events: its
// lines on stderr are the ones for people, so there is no view.
func (o *runOptions) checkRecordings(ctx context.Context, files []string, s runSetup) error {
	lopts, err := o.loopOptions(s, modelBackend{})
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	caught, release := catchSignals(stop)
	defer release()
	return o.batch.checkMany(ctx, files, lopts, o, caught, s.stdout, s.stderr)
}

// request reads the request of the plain loop: the arguments, or stdin.
func (o *runOptions) request(args []string, stdin io.Reader, stderr io.Writer) (run.Input, error) {
	if len(args) > 0 {
		prompt := strings.Join(args, " ")
		if err := o.textOnly([]byte(prompt), "the prompt"); err != nil {
			return run.Input{}, err
		}
		return run.Input{Messages: []run.Message{{Role: "user", Content: prompt}}}, nil
	}
	if o.isTerminal(stdin) {
		fmt.Fprintln(stderr, "toolcall: reading the request from stdin (type it, then Ctrl-D); or give it as arguments")
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxRequest+1))
	if err != nil {
		return run.Input{}, fmt.Errorf("reading the request: %w", err)
	}
	if err := o.textOnly(data, "stdin"); err != nil {
		return run.Input{}, err
	}
	in, err := run.ParseInput(data)
	if err != nil {
		return run.Input{}, usage(err)
	}
	return in, nil
}

// openContinue reads --continue's transcript, nil without the flag.
func (o *runOptions) openContinue() (*run.Conversation, error) {
	if o.cont == "" {
		return nil, nil
	}
	c, err := run.OpenConversation(o.cont)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return nil, fileFlagError("--continue", err)
		}
		return nil, usage(fmt.Errorf("--continue %s: %w", o.cont, err))
	}
	return c, nil
}

// openReplay opens --replay's recording, which holds the request too; a
// prompt given with it must be the recorded one.
func (o *runOptions) openReplay(args []string) (*run.Recording, error) {
	rec, err := run.OpenRecording(o.replay)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return nil, fileFlagError("--replay", err)
		}
		return nil, usage(fmt.Errorf("--replay %s: %w", o.replay, err))
	}
	if len(args) > 0 {
		if err := rec.AcceptPrompt(strings.Join(args, " ")); err != nil {
			return nil, usage(fmt.Errorf("--replay %s: %w", o.replay, err))
		}
	}
	return rec, nil
}

// loopOptions are the loop's options for the model m (empty when a
// recording gives the model's turns).
func (o *runOptions) loopOptions(s runSetup, m modelBackend) (run.Options, error) {
	xopts := s.exec
	// The key and the URL's password are secrets of the transcript, and
	// so is every secret the flags hold (--extra's api_key).
	xopts.Secrets = append(xopts.Secrets, m.secrets...)
	xopts.Secrets = append(xopts.Secrets, flagSecretsOf(s.stderr)...)
	system, err := o.systemText(s.stderr)
	if err != nil {
		return run.Options{}, err
	}
	var progress func(string)
	if !o.quiet && (o.verbose || isTerminalWriter(s.stderr)) {
		start := time.Now()
		progress = func(msg string) {
			fmt.Fprintf(s.stderr, "toolcall: %5.1fs %s\n", time.Since(start).Seconds(), termsafe.Line(msg))
		}
	}
	lopts := run.Options{
		Catalog:        s.catalog,
		Pick:           o.pick,
		System:         system,
		Exec:           xopts,
		MaxIterations:  o.maxIterations,
		Timeout:        o.totalTimeout,
		MaxObservation: o.maxObservation,
		MaxReplyBytes:  int(min(o.maxReplyBytes, byteSize(math.MaxInt))),
		StrictProtocol: o.strictProtocol,
		ToolChoice:     o.toolChoice,
		OneCallPerTurn: !o.parallelCalls,
		Reflect:        o.reflect,
		Progress:       progress,
		Warn:           warnTo(s.stderr),
		Formats:        s.formats,
	}
	if err := o.backend.apply(&lopts, m); err != nil {
		return run.Options{}, err
	}
	return lopts, nil
}

// transcript is where one run's events go: stdout (unless --answer or
// --check), or for a person the view of them, and --record's file.
type transcript struct {
	out    io.Writer // for a batch, which writes lines
	sink   event.Sink
	view   *run.View
	record *recordFile
}

// openTranscript opens the transcript of a run whose stdout is stdout.
func (o *runOptions) openTranscript(stdout io.Writer) (*transcript, error) {
	t := &transcript{out: stdout}
	switch {
	case o.answer:
		t.out = io.Discard
	case o.check:
		// stdout gets the check event, as for many recordings: a CI log
		// is not the place for the whole transcript (--record keeps it).
		t.out = io.Discard
	case !o.jsonl && o.isTerminalOut(stdout):
		// A person is reading: show them the run (or the batch) as
		// toolcall show does. The record file still gets the JSONL.
		t.view = run.NewView(stdout, os.Getenv("NO_COLOR") == "")
		t.out = t.view
	}
	if o.record != "" {
		f, err := atomicfile.Create(o.record, 0o644)
		if err != nil {
			if t.view != nil {
				t.view.Close() // the error to report is the file's
			}
			if errors.Is(err, fs.ErrNotExist) {
				// The error names the temporary file beside it.
				return nil, &usageError{err: fmt.Errorf("--record %s: the directory %s does not exist (create it first)", o.record, filepath.Dir(o.record))}
			}
			return nil, &usageError{err: fmt.Errorf("--record %s: %w", o.record, err)}
		}
		t.record = &recordFile{File: f}
	}
	// The loop hands its events to the sinks as values: the view takes
	// them so, stdout and the record file as JSONL.
	t.sink = event.NewJSONL(t.out)
	if t.view != nil {
		t.sink = t.view
	}
	if t.record != nil {
		t.sink = event.Tee(t.sink, event.NewJSONL(t.record))
		t.out = io.MultiWriter(t.out, t.record)
		if t.view != nil {
			// The view still hears the reply as it streams.
			t.sink = liveSink{Sink: t.sink, Live: t.view}
		}
	}
	return t, nil
}

// liveSink is a sink of several (event.Tee) whose Live side is the view's.
type liveSink struct {
	event.Sink
	run.Live
}

// close ends the transcript of a run that returns *err: a run that
// fails leaves the old recording, and the view writes its last lines (of
// a recording cut short).
func (t *transcript) close(err *error) {
	if t.record != nil {
		t.record.Abort()
	}
	if t.view != nil {
		if cerr := t.view.Close(); cerr != nil && *err == nil {
			*err = fmt.Errorf("showing the run: %w", cerr)
		}
	}
}

// ended keeps --record's file when the run is one worth keeping, and
// makes a run stopped by a signal exit as the signal says.
func (o *runOptions) ended(res run.Result, t *transcript, caught *atomic.Value, stderr io.Writer) error {
	if err := keepRecording(t.record, o.record, res, caught.Load() != nil, stderr); err != nil {
		return err
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		if res.Unread > 0 {
			fmt.Fprintf(stderr, "toolcall: %v: stopped the running tools; %d call%s of the last turn left unread\n", sig, res.Unread, plural(res.Unread))
		}
		return &signalExit{code: signalCode(sig)}
	}
	return nil
}

// checked writes the check event of --check and says on stderr how the
// run compares with the recording; diff is how it differs, if it does.
func (o *runOptions) checked(res run.Result, diff string, stdout, stderr io.Writer) error {
	ev := event.Check{File: o.replay, Status: run.CheckOK, Ignored: o.ignored.Items()}
	if diff != "" {
		ev.Status, ev.Difference = run.CheckDiffers, strings.TrimRight(diff, "\n")
	}
	if _, err := stdout.Write(append(ev.AppendJSON(nil), '\n')); err != nil {
		return err
	}
	if diff != "" {
		fmt.Fprintf(stderr, "toolcall: the run differs from %s:\n%s", o.replay, termsafe.Text(diff))
		fmt.Fprintf(stderr, "toolcall: if the new run is right, make it the recording: the same command with --record %s in place of --check (and --ignore)\n", termsafe.Line(run.ShellLine([]string{o.replay})))
		return errReported
	}
	// The recording is what was expected, its ending included: a run
	// that ends as it did passes the check, said in the line a check
	// of many recordings gives each; -v says it in words too.
	if !o.quiet {
		reportCheck(stderr, o.replay, run.CheckOK, "")
	}
	switch {
	case !o.verbose:
	case res.Reason != run.StopFinalAnswer:
		fmt.Fprintf(stderr, "toolcall: the run matches %s (ending, as recorded, in %s)\n", o.replay, res.Reason)
	default:
		fmt.Fprintf(stderr, "toolcall: the run matches %s\n", o.replay)
	}
	return nil
}

// answered fails a run that reached no final answer, saying why, and
// with --answer writes the answer alone on stdout.
func (o *runOptions) answered(res run.Result, stdout, stderr io.Writer) error {
	if res.Reason != run.StopFinalAnswer {
		if res.Error != "" {
			fmt.Fprintf(stderr, "toolcall: no final answer: %s: %s\n", res.Reason, termsafe.Line(res.Error))
		} else {
			fmt.Fprintf(stderr, "toolcall: no final answer: %s after %d iteration%s\n", res.Reason, res.Iterations, plural(res.Iterations))
		}
		return errReported
	}
	if o.answer {
		if _, err := io.WriteString(stdout, strings.TrimRight(res.FinalAnswer, "\n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}
