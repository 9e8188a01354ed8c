package run

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/atomicfile"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// DefaultMaxRequest bounds one request line of a batch.
const DefaultMaxRequest = 16 << 20

// ReasonError is the reason of a summary whose request could not run: a
// line that is not a request, a transcript that could not be written.
const ReasonError = "error"

// Event types of a batch (event.Summary, event.Batch).
const (
	TypeSummary = event.TypeSummary // one per request, after its transcript
	TypeBatch   = event.TypeBatch   // the last line: the totals
)

// BatchOptions configures Batch.
type BatchOptions struct {
	// Loop is every request's loop. Its Backend serves the requests at
	// once, so it must be safe for concurrent use (the HTTP backends and
	// the model command are).
	Loop Options
	// Jobs is how many requests run at once (1 when 0).
	Jobs int
	// Out, when set, is a directory: each transcript is written to
	// Out/ID.jsonl, whole, when its request ends, and w has only the
	// summaries. Without it the transcripts go to w, each whole, every
	// event with a "request" field.
	Out string
	// Force runs again the requests whose transcript under Out is
	// complete; without it they are skipped (a batch resumes).
	Force bool
	// Shard picks the requests of one shard.
	Shard Shard
	// MaxLine bounds a request line (DefaultMaxRequest when 0).
	MaxLine int
	// Warn hears about lines that are not requests (they also get a
	// summary with reason "error").
	Warn func(line int, err error)
	// Done, when set, hears the counts so far (Answered, Failed, Skipped,
	// Calls) each time a request's summary is written, one at a time: a
	// progress line for a person.
	Done func(BatchResult)
}

// BatchResult counts what a batch did.
type BatchResult struct {
	Requests    int // requests of the shard read
	Answered    int // that reached a final answer, now or in a run resumed
	Failed      int // that did not: another stop reason, or not a request
	Skipped     int // complete under Out, not run again
	Interrupted int // stopped by ctx while they ran
	// NotStarted counts the requests that never started because ctx
	// ended: those read, and those left in the input when it is a file.
	NotStarted int
	// Uncounted is true when the input left after ctx ended is a pipe or
	// a terminal, whose requests could not be counted.
	Uncounted bool
	Calls     int
}

// Shard is the Index-th (from 0) of Count shards: the requests whose
// number n (from 1) has (n-1) % Count == Index. The zero Shard is all.
type Shard struct{ Index, Count int }

// ParseShard reads "I/N", with 0 <= I < N, as --shard gives it.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 0 || index >= count {
		return Shard{}, fmt.Errorf("%q is not a shard: want I/N with N at least 1 and I from 0 to N-1 (0-based, as JOB_COMPLETION_INDEX), e.g. 0/4", s)
	}
	return Shard{Index: index, Count: count}, nil
}

// Has reports whether the n-th item (from 1) belongs to the shard.
func (s Shard) Has(n int) bool {
	return s.Count <= 1 || (n-1)%s.Count == s.Index
}

// summary is how one request of a batch went.
type summary struct {
	id         string
	reason     string
	iterations int
	calls      int
	duration   time.Duration
	err        string
	file       string // under Out
	skipped    bool
	ran        bool        // the request ran (not skipped, not a bad line)
	transcript *spool      // to write before the summary (no Out)
	steps      []stepTimes // of the request's turns, for the batch's percentiles
}

// Batch runs each request of r, one JSON object a line ({"id": …,
// "prompt": …} or {"id": …, "messages": […]}; a line without an id is
// known by its line number), as its own Loop, at most Jobs at a time.
//
// Requests are taken in order and their output is written in that order
// whatever the parallelism: each transcript whole (to w, or to a file
// under Out), then a summary event; a batch event with the totals comes
// last. Memory does not grow with the number of requests: a transcript
// waiting for an earlier one to end is spooled to a temporary file beyond
// a small size, and no request starts more than 2*Jobs ahead of the
// oldest unfinished one.
//
// When ctx ends (an interrupt) no request starts any more; those running
// end with stop interrupted and are written as usual.
//
// The error is for failures of the input and of w only.
func Batch(ctx context.Context, r io.Reader, w io.Writer, opts BatchOptions) (BatchResult, error) {
	start := time.Now()
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxRequest
	}
	if confirm := opts.Loop.Exec.Confirm; confirm != nil {
		// One question at a time at the terminal, whichever request asks.
		var mu sync.Mutex
		opts.Loop.Exec.Confirm = func(t *tools.Tool, c *tools.Call) tools.Consent {
			mu.Lock()
			defer mu.Unlock()
			return confirm(t, c)
		}
	}
	var done BatchResult // counted by emit, read once the pool is drained
	var phases phaseStats
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := newPool(opts.Jobs, func(s summary) error {
		for _, t := range s.steps {
			phases.add(t)
		}
		err := writeSummary(w, s, &done)
		if err != nil {
			cancel() // nothing more can be written
		} else if opts.Done != nil {
			opts.Done(done)
		}
		return err
	})

	lines := readLines(r, opts.MaxLine)
	defer lines.stop()
	var read, notStarted int
	var readErr error
	seen := map[string]int{} // the line of each id taken, in any shard
	var stale map[string][]string
	if opts.Out != "" {
		stale = staleTemps(opts.Out)
	}
	interrupted, uncounted := false, false
	for !interrupted {
		var l line
		var more bool
		select {
		case l, more = <-lines.c:
		case <-runCtx.Done():
			interrupted = true
			continue
		}
		if !more {
			break
		}
		if l.err != nil && !errors.Is(l.err, errLineTooLong) {
			readErr = fmt.Errorf("reading the requests: %w", l.err)
			break
		}
		if l.err == nil && len(bytes.TrimSpace(l.text)) == 0 {
			continue
		}
		if !opts.Shard.Has(l.n) {
			// Another shard's request: its id is taken all the same, so
			// that a later request with it fails here, as it does in a
			// batch of one shard, rather than being taken for done when
			// the other shard wrote the file.
			if id, _, err := parseRequest(l, opts.Out != ""); err == nil {
				if _, dup := seen[id]; !dup {
					seen[id] = l.n
				}
			}
			continue
		}
		read++
		id, in, err := parseRequest(l, opts.Out != "")
		if err == nil {
			// Transcripts, summaries and --out's files are told apart by
			// id: a second request with one is not run.
			if first, dup := seen[id]; dup {
				err = fmt.Errorf(`line %d: "id" %q is line %d's already; give each request an id of its own`, l.n, id, first)
				id = strconv.Itoa(l.n)
			} else {
				seen[id] = l.n
			}
		}
		if err != nil {
			if opts.Warn != nil {
				opts.Warn(l.n, err)
			}
			if !p.ready(runCtx, summary{id: id, reason: ReasonError, err: err.Error()}) {
				notStarted++
				interrupted = true
			}
			continue
		}
		if opts.Out != "" {
			removeStale(opts.Out, stale, id)
		}
		if opts.Out != "" && !opts.Force {
			if s, ok := finished(opts.Out, id); ok {
				if !p.ready(runCtx, s) {
					notStarted++
					interrupted = true
				}
				continue
			}
		}
		if !p.start(runCtx, func() summary { return runRequest(runCtx, id, in, &opts) }) {
			notStarted++
			interrupted = true
		}
	}
	if interrupted && ctx.Err() != nil {
		// Say how many did not start: those of a file can be counted.
		if lines.regular {
			for l := range lines.c {
				if (l.err != nil || len(bytes.TrimSpace(l.text)) > 0) && opts.Shard.Has(l.n) {
					read++
					notStarted++
				}
			}
		} else {
			uncounted = true
		}
	}
	err := p.wait()
	done.Requests, done.NotStarted, done.Uncounted = read, notStarted, uncounted
	if err == nil {
		err = readErr
	}
	if err == nil {
		err = writeBatch(w, done, phases.percentiles(), time.Since(start))
	}
	return done, err
}

// runRequest runs one request of a batch.
func runRequest(ctx context.Context, id string, in Input, opts *BatchOptions) summary {
	s := summary{id: id, ran: true}
	lo := opts.Loop
	// The loop may append to the policy's lists (tool_choice): each
	// request gets its own.
	lo.Exec.Policy.Allow = slices.Clip(lo.Exec.Policy.Allow)
	lo.Exec.Policy.Deny = slices.Clip(lo.Exec.Policy.Deny)
	if p := opts.Loop.Progress; p != nil {
		lo.Progress = func(msg string) { p(id + ": " + msg) }
	}
	lo.onStep = func(st *event.Step) { s.steps = append(s.steps, timesOf(st)) }
	start := time.Now()
	var res Result
	var err error
	if opts.Out != "" {
		s.file = filepath.Join(opts.Out, id+".jsonl")
		res, err = writeAtomic(s.file, func(f io.Writer) (Result, error) { return Loop(ctx, in, f, lo) })
	} else {
		s.transcript = &spool{}
		res, err = LoopSink(ctx, in, requestSink{id: id, next: event.NewJSONL(s.transcript)}, lo)
	}
	s.duration = time.Since(start)
	s.reason, s.iterations, s.calls, s.err = res.Reason, res.Iterations, res.Calls, res.Error
	if err != nil {
		s.reason, s.err = ReasonError, err.Error()
	}
	return s
}

// writeAtomic writes a file through run and renames it into place only
// when run succeeded (see atomicfile): a reader never sees half a
// transcript, and an interrupted batch leaves none behind.
func writeAtomic(path string, run func(io.Writer) (Result, error)) (Result, error) {
	f, err := atomicfile.Create(path, 0o644) // as os.Create would make it, not private
	if err != nil {
		return Result{}, fmt.Errorf("writing the transcript: %w", err)
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 64<<10)
	res, err := run(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return res, fmt.Errorf("writing %s: %w", path, err)
	}
	return res, f.Commit()
}

// finished reads the last event of a transcript under --out: a request
// whose transcript ends in a stop event, other than interrupted, is done.
// Only a regular file can be one, and it is opened without waiting, so a
// FIFO of that name neither holds the batch nor counts as done.
func finished(dir, id string) (summary, bool) {
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return summary{}, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return summary{}, false
	}
	const tail = 64 << 10
	off := max(info.Size()-tail, 0)
	buf := make([]byte, info.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return summary{}, false
	}
	buf = bytes.TrimRight(buf, "\r\n")
	last := buf[bytes.LastIndexByte(buf, '\n')+1:]
	if typ, err := tools.EventType(last); err != nil || typ != event.TypeStop {
		return summary{}, false
	}
	stop := event.DecodeStop(last)
	if stop.Reason == "" || stop.Reason == StopInterrupted {
		return summary{}, false
	}
	return summary{id: id, reason: stop.Reason, iterations: stop.Iterations, err: stop.Error, file: path, skipped: true}, true
}

// parseRequest reads one line of a batch: its id (the line number when it
// has none) and its request.
func parseRequest(l line, forFile bool) (string, Input, error) {
	id := strconv.Itoa(l.n)
	if l.err != nil {
		return id, Input{}, fmt.Errorf("line %d: %w", l.n, l.err)
	}
	text := bytes.TrimSpace(l.text)
	if text[0] == '{' {
		if !gjson.ValidBytes(text) {
			return id, Input{}, fmt.Errorf("line %d: not valid JSON; want {\"id\": …, \"prompt\": …} or {\"id\": …, \"messages\": […]}", l.n)
		}
		switch v := gjson.GetBytes(text, "id"); v.Type {
		case gjson.Null:
			if v.Exists() {
				return id, Input{}, fmt.Errorf(`line %d: "id" is null; give a string or a number, or leave it out to use the line number`, l.n)
			}
		case gjson.String:
			id = v.Str
		case gjson.Number:
			id = v.Raw
		default:
			return id, Input{}, fmt.Errorf(`line %d: "id" must be a string or a number`, l.n)
		}
		if err := checkID(id, forFile); err != nil {
			return strconv.Itoa(l.n), Input{}, fmt.Errorf("line %d: %w", l.n, err)
		}
	}
	in, err := ParseInput(text)
	if err != nil {
		err = fmt.Errorf("line %d: %w", l.n, err)
	}
	return id, in, err
}

// checkID refuses an id that cannot be a request's name, or under --out
// its file's name.
func checkID(id string, forFile bool) error {
	switch {
	case id == "":
		return errors.New(`"id" is empty`)
	case !utf8.ValidString(id) || strings.ContainsFunc(id, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return fmt.Errorf(`"id" %q holds control characters or invalid UTF-8`, id)
	case !forFile:
		return nil
	case len(id) > 200, strings.HasPrefix(id, "."), strings.ContainsAny(id, `/\`):
		return fmt.Errorf(`"id" %q cannot name a file under --out (at most 200 bytes, no '/' or '\', not beginning with '.')`, id)
	}
	return nil
}

// writeSummary writes a request's transcript, when it was kept for w, and
// its summary event, and counts it.
func writeSummary(w io.Writer, s summary, done *BatchResult) error {
	if s.transcript != nil {
		err := s.transcript.copyTo(w)
		s.transcript.discard()
		if err != nil {
			return fmt.Errorf("writing the transcript: %w", err)
		}
	}
	switch {
	case s.reason == StopFinalAnswer:
		done.Answered++
	default:
		done.Failed++
	}
	if s.skipped {
		done.Skipped++
	}
	if s.reason == StopInterrupted {
		done.Interrupted++
	}
	done.Calls += s.calls

	ev := event.Summary{Request: s.id, Reason: s.reason, Iterations: s.iterations, File: s.file, Skipped: s.skipped, Error: s.err}
	if s.ran {
		ev.Calls, ev.DurationMS = ptr(s.calls), ptr(s.duration.Milliseconds())
	}
	if _, err := w.Write(append(ev.AppendJSON(nil), '\n')); err != nil {
		return fmt.Errorf("writing the summary: %w", err)
	}
	return nil
}

// writeBatch writes the last event of a batch: the totals, and the
// percentiles of its turns' phases when any ran.
func writeBatch(w io.Writer, r BatchResult, phases []event.Phase, d time.Duration) error {
	ev := event.Batch{Counts: []event.Count{{Key: "requests", N: r.Requests}, {Key: "final_answer", N: r.Answered}, {Key: "failed", N: r.Failed}, {Key: "skipped", N: r.Skipped},
		{Key: "interrupted", N: r.Interrupted}, {Key: "not_started", N: r.NotStarted}, {Key: "calls", N: r.Calls}}, Phases: phases, DurationMS: d.Milliseconds()}
	if _, err := w.Write(append(ev.AppendJSON(nil), '\n')); err != nil {
		return fmt.Errorf("writing the batch event: %w", err)
	}
	return nil
}

// requestSink hands on each event of one request of a batch as a
// requestEvent: with the request's id.
type requestSink struct {
	id   string
	next event.Sink
}

func (rs requestSink) Emit(e event.Event) error {
	return rs.next.Emit(&requestEvent{request: rs.id, Event: e})
}

func (rs requestSink) Flush() error { return rs.next.Flush() }

// requestEvent is an event of one request of a batch: written with a
// "request" field first, so that sorting a batch's lines groups each
// request's (a summary event has its own).
type requestEvent struct {
	request string
	event.Event
}

func (e *requestEvent) AppendJSON(dst []byte) []byte {
	dst = jsonw.AppendString(append(dst, `{"request":`...), e.request)
	start := len(dst)
	dst = e.Event.AppendJSON(dst)
	if len(dst) > start && dst[start] == '{' {
		dst[start] = ',' // the event's members follow the request's
	}
	return dst
}
