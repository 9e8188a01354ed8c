package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	Repairs  int
	Duration time.Duration
	// Transcript is the run's JSONL, as run writes it, for --out.
	Transcript []byte
	// turns counts the model's turns so far, as the events come.
	turns int
	// Err is a failure to run the case at all (the model server down):
	// Verdict is then not a score.
	Err error
}

// Evaluate runs each case through the loop for one model turn, against
// the backend of opts, with the case's functions as the tools offered
// (definitions only: nothing runs, exec answers each call as a dry run),
// and scores the calls of that turn. Results come to each as cases end,
// jobs at a time (1 when jobs < 1); each is called from one goroutine at
// a time.
func Evaluate(ctx context.Context, cases []*Case, opts run.Options, jobs int, each func(Result)) {
	jobs = max(jobs, 1)
	var mu sync.Mutex
	work := make(chan *Case)
	var wg sync.WaitGroup
	for range min(jobs, len(cases)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				r := evaluateOne(ctx, c, opts)
				mu.Lock()
				each(r)
				mu.Unlock()
			}
		}()
	}
	for _, c := range cases {
		select {
		case work <- c:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(work)
	wg.Wait()
}

func evaluateOne(ctx context.Context, c *Case, opts run.Options) Result {
	start := time.Now()
	r := Result{Case: c}
	offered, err := c.tools()
	if err != nil {
		r.Err = err
		return r
	}
	opts.Catalog = catalog.New(offered)
	opts.Exec.DryRun = true
	opts.MaxIterations = 1
	in := run.Input{}
	for _, m := range c.Messages {
		in.Messages = append(in.Messages, run.Message{Role: m.Role, Content: m.Content})
	}
	var out bytes.Buffer
	res, err := run.LoopSink(ctx, in, event.Tee(event.NewJSONL(&out), firstTurn{&r}), opts)
	r.Duration = time.Since(start)
	r.Transcript = out.Bytes()
	if err == nil && res.Reason == run.StopProvider {
		err = fmt.Errorf("model server: %s", res.Error)
	}
	if err != nil {
		r.Err = err
		return r
	}
	r.Verdict = Check(c, r.Calls, r.ParseErrors)
	return r
}

// firstTurn is the sink that takes the calls of the first model turn
// from the loop's events, as values, into its Result.
type firstTurn struct{ r *Result }

func (f firstTurn) Emit(e event.Event) error {
	r := f.r
	switch e := e.(type) {
	case *event.Assistant:
		r.turns++
	case *tools.CallEvent:
		if r.turns != 1 {
			break
		}
		args := json.RawMessage(bytes.Clone(e.Arguments))
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		r.Calls = append(r.Calls, Call{Name: e.Name, Arguments: args})
		if e.Format != "" && !contains(r.Formats, e.Format) {
			r.Formats = append(r.Formats, e.Format)
		}
		if e.Repaired {
			r.Repairs++
		}
	case *event.ParseError:
		if r.turns == 1 {
			r.ParseErrors++
		}
	}
	return nil
}

func (firstTurn) Flush() error { return nil }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
		return nil, fmt.Errorf("case %s: its functions: %w", c.ID, err)
	}
	return ts, nil
}

// Summary adds up results.
type Summary struct {
	Cases, Right, Failed int // Failed: not run (Err)
	ByCategory           map[string]*Tally
	ByWhy                map[Why]int
}

// Tally is one category's count.
type Tally struct{ Cases, Right int }

// Add counts one result.
func (s *Summary) Add(r Result) {
	if s.ByCategory == nil {
		s.ByCategory, s.ByWhy = map[string]*Tally{}, map[Why]int{}
	}
	s.Cases++
	t := s.ByCategory[r.Case.Category]
	if t == nil {
		t = &Tally{}
		s.ByCategory[r.Case.Category] = t
	}
	t.Cases++
	switch {
	case r.Err != nil:
		s.Failed++
	case r.Verdict.Right:
		s.Right++
		t.Right++
	default:
		s.ByWhy[r.Verdict.Why]++
	}
}
