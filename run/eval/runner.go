package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// Result is how one case went.
type Result struct {
	Case    *Case
	Verdict Verdict
	// Calls are the calls read from the model's first turn, ParseErrors
	// the calls attempted there and not read.
	Calls       []Call
	ParseErrors int
	// Formats are the syntaxes the calls were read in (parse's "format").
	Formats []string
	// Repairs counts the calls whose JSON was repaired.
	Repairs int
	// Tokens are the server's counts of the turn, when it gave them.
	Tokens *event.Tokens
	// Duration is the case's time; zero for a resumed one.
	Duration time.Duration
	// Setting is Options.Setting: which settings the case ran under.
	Setting string
	// Recording is the file the transcript was written to under
	// Options.Out; Resumed says it was there, complete, before the run,
	// and was scored again instead of running the case.
	Recording string
	Resumed   bool
	// Transcript is the run's JSONL, as run writes it.
	Transcript []byte
	// Err is a failure to run the case at all (the model server down):
	// Verdict is then not a score.
	Err error
}

// Options are how Evaluate runs the cases.
type Options struct {
	// Run is the loop's options: the backend and how to prompt it. Its
	// catalog is each case's functions, and it runs one turn, as a dry
	// run: whatever is set there is replaced.
	Run run.Options
	// Jobs is how many cases run at once; 1 when less.
	Jobs int
	// Out is a directory for one recording per case, <id>.jsonl, each
	// replayable with run --replay and readable with show. A case whose
	// recording there is already complete is scored from it and not run
	// again, so an interrupted eval goes on where it stopped.
	Out string
	// Force runs every case, its recording under Out replaced.
	Force bool
	// Setting names these settings on each result (--compare).
	Setting string
}

// Evaluate runs each case through the loop for one model turn, against
// the backend of opts.Run, with the case's functions as the tools offered
// (definitions only: nothing runs, exec answers each call as a dry run),
// and scores the calls of that turn. Results come to each as cases end,
// opts.Jobs at a time; each is called from one goroutine at a time. When
// ctx is done, the cases not started are left out.
func Evaluate(ctx context.Context, cases []*Case, opts Options, each func(Result)) {
	jobs := max(opts.Jobs, 1)
	var mu sync.Mutex
	work := make(chan *Case)
	var wg sync.WaitGroup
	for range min(jobs, len(cases)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				r := evaluateOne(ctx, c, &opts)
				mu.Lock()
				each(r)
				mu.Unlock()
			}
		}()
	}
feed:
	for _, c := range cases {
		select {
		case work <- c:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
}

func evaluateOne(ctx context.Context, c *Case, opts *Options) Result {
	start := time.Now()
	r := Result{Case: c, Setting: opts.Setting}
	if opts.Out != "" {
		path, err := recordingPath(opts.Out, c.ID)
		if err != nil {
			r.Err = err
			return r
		}
		r.Recording = path
		if transcript, ok := completeRecording(path); ok && !opts.Force {
			r.Resumed, r.Transcript = true, transcript
			r.rescore()
			return r
		}
	}
	offered := c.offered
	if offered == nil {
		var err error
		if offered, err = c.tools(); err != nil {
			r.Err = err
			return r
		}
	}
	ro := opts.Run
	ro.Catalog = catalog.New(offered)
	// Nothing runs: every function is offered, safe or not, and each
	// call is answered as a dry run.
	ro.Exec.DryRun = true
	ro.Exec.Policy.AllowUnsafe = true
	ro.MaxIterations = 1
	in := run.Input{}
	for _, m := range c.Messages {
		in.Messages = append(in.Messages, run.Message{Role: m.Role, Content: m.Content})
	}
	var out bytes.Buffer
	turn := firstTurn{r: &r}
	res, err := run.LoopSink(ctx, in, event.Tee(event.NewJSONL(&out), &turn), ro)
	r.Duration = time.Since(start)
	r.Transcript = out.Bytes()
	if err == nil && res.Reason == run.StopProvider {
		err = errors.New(res.Error) // it says what failed: the server, or the model command
	}
	if err == nil && res.Reason == run.StopInterrupted {
		err = context.Cause(ctx)
	}
	if err != nil {
		r.Err = err
		return r
	}
	if r.Recording != "" {
		if err := writeRecording(r.Recording, r.Transcript); err != nil {
			r.Err = err
			return r
		}
	}
	r.Verdict = Check(r.Case, r.Calls, r.ParseErrors)
	return r
}

// rescore scores a recording left by an earlier eval, its lines read
// back as the loop's events.
func (r *Result) rescore() {
	turn := firstTurn{r: r}
	for line := range bytes.Lines(r.Transcript) {
		if e, err := event.DecodeEvent(bytes.TrimRight(line, "\r\n")); err == nil {
			turn.Emit(e)
		}
	}
	r.Verdict = Check(r.Case, r.Calls, r.ParseErrors)
}

// firstTurn is the sink that takes, from the loop's events as values,
// the calls of the first model turn and the server's token counts.
type firstTurn struct {
	r     *Result
	turns int // the model's turns so far
}

func (f *firstTurn) Emit(e event.Event) error {
	r := f.r
	switch e := e.(type) {
	case *event.Assistant:
		f.turns++
	case *tools.CallEvent:
		if f.turns != 1 {
			break
		}
		args := json.RawMessage(bytes.Clone(e.Arguments))
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		r.Calls = append(r.Calls, Call{Name: e.Name, Arguments: args})
		if e.Format != "" && !slices.Contains(r.Formats, e.Format) {
			r.Formats = append(r.Formats, e.Format)
		}
		if e.Repaired {
			r.Repairs++
		}
	case *event.ParseError:
		if f.turns == 1 {
			r.ParseErrors++
		}
	case *event.Step:
		if f.turns == 1 && e.Tokens != nil {
			t := *e.Tokens
			r.Tokens = &t
		}
	}
	return nil
}

func (*firstTurn) Flush() error { return nil }

// tools reads the case's functions as tool definitions (BFCL's dialect
// is one the sidecar reader knows).
func (c *Case) tools() ([]*tools.Tool, error) {
	defs := make([]json.RawMessage, len(c.Functions))
	for i, f := range c.Functions {
		defs[i] = f.Raw
	}
	entry, err := json.Marshal(map[string]any{"id": c.ID, "function": defs})
	if err != nil {
		return nil, err
	}
	ts, _, _, err := tools.ParseToolList(c.ID, entry)
	if err != nil {
		return nil, fmt.Errorf("its functions: %w", err)
	}
	return ts, nil
}
