package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
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
	Tokens *tools.Tokens
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
		if transcript, ok := completeRecording(path); ok {
			r.Resumed, r.Transcript = true, transcript
			r.score()
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
	ro.Exec.DryRun = true
	ro.MaxIterations = 1
	in := run.Input{}
	for _, m := range c.Messages {
		in.Messages = append(in.Messages, run.Message{Role: m.Role, Content: m.Content})
	}
	var out bytes.Buffer
	res, err := run.Loop(ctx, in, &out, ro)
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
	r.score()
	return r
}

// score reads the first turn of the transcript and checks its calls.
func (r *Result) score() {
	r.readTurn(bytes.NewReader(r.Transcript))
	r.Verdict = Check(r.Case, r.Calls, r.ParseErrors)
}

// readTurn takes the calls of the first model turn from a transcript,
// and the server's token counts from its step event.
// The loop speaks JSONL to its writer today; when it hands out event
// values, this reads them instead.
func (r *Result) readTurn(transcript io.Reader) {
	sc := bufio.NewScanner(transcript)
	sc.Buffer(nil, 256<<20)
	turns := 0
	for sc.Scan() {
		line := sc.Bytes()
		switch gjson.GetBytes(line, "type").Str {
		case tools.TypeAssistant:
			turns++
		case tools.TypeToolCall:
			if turns != 1 {
				continue
			}
			ev := gjson.ParseBytes(line)
			r.Calls = append(r.Calls, Call{Name: ev.Get("name").Str, Arguments: json.RawMessage(ev.Get("arguments").Raw)})
			if f := ev.Get("format").Str; f != "" && !slices.Contains(r.Formats, f) {
				r.Formats = append(r.Formats, f)
			}
			if ev.Get("repaired").Bool() {
				r.Repairs++
			}
		case tools.TypeParseError:
			if turns == 1 {
				r.ParseErrors++
			}
		case tools.TypeStep:
			if turns == 1 {
				r.Tokens = tools.DecodeStep(line).Tokens
			}
		}
	}
}

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
