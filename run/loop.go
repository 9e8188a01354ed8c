package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// Stop reasons: the "reason" of the stop event.
const (
	StopFinalAnswer   = "final_answer"
	StopMaxIterations = "max_iterations"
	StopTimeout       = "timeout"
	StopInterrupted   = "interrupted"
	StopProvider      = "provider_error"
	StopRepeated      = "repeated_call" // the same call with the same arguments again
	StopReplyTooLarge = "reply_too_large"
	StopCallBudget    = "call_budget" // a call past a budget, and no tool left to offer (budget.go)
)

// The bounds of a run when Options gives none; run's flags default to
// them too. They fit local models: a CPU-bound llama.cpp can spend more
// than a minute on the first turn, and a small model often needs a few
// turns to correct a call before it answers.
const (
	DefaultMaxIterations = 10
	DefaultTimeout       = 10 * time.Minute
)

// DefaultMaxReplyBytes bounds one turn of the model's reply.
const DefaultMaxReplyBytes = 8 << 20

// How observations go back to the model.
const (
	RoleUser = "user" // as a user message, in the prompt style (chat)
	RoleTool = "tool" // as tool messages (native, and completions templates)
)

// APINative is the system event's "api" in a run whose tools went to the
// server in the request (Options.Native) rather than in the system text.
const APINative = "native"

// DefaultSystem is the system text when none is given.
const DefaultSystem = `You are a helpful assistant. Answer the user's question. When a tool can give you facts you do not have, or do work you cannot do in your head, call it; otherwise answer directly. Never invent a tool's result: wait for it.`

// Options configures Loop.
type Options struct {
	Backend Backend
	Model   string
	// ObservationRole is how observations are sent back: RoleUser (chat
	// without native tools) or RoleTool (native tools, and completions,
	// whose templates render tool turns).
	ObservationRole string
	// Native sends the tools in the request (Request.Tools) instead of in
	// the system prompt, and reads the server's own tool calls.
	Native bool

	Catalog *catalog.Catalog
	// MinScore is the least score a tool needs to be offered under Pick
	// (catalog.DefaultMinScore when 0).
	MinScore float64
	Pick     int    // show only the Pick tools ranked best for the request (0: all)
	Style    string // the prompt style: jsonl, xml or markdown
	System   string // the system text before the tools (DefaultSystem when "")

	Exec tools.ExecOptions

	MaxIterations  int           // DefaultMaxIterations when 0
	Timeout        time.Duration // the whole run; DefaultTimeout when 0
	MaxObservation int           // bytes of an observation given back to the model; 0: all
	// MaxReplyBytes bounds a turn: past it reading stops and the run ends
	// with StopReplyTooLarge (DefaultMaxReplyBytes when 0).
	MaxReplyBytes  int
	MaxTokens      int
	Temperature    *float64
	Extra          []byte
	Stop           []string // stop sequences besides the style's own
	StrictProtocol bool     // plain prose is a decode error, not the final answer
	// ToolChoice is applied on our side: "auto" (default), "required" (a
	// turn without a call is a decode error), "none" (no tools offered), or
	// a tool's name (only that tool offered).
	ToolChoice string
	// OneCallPerTurn stops reading at the first complete call, for
	// servers and models that cannot make several at once; by default a
	// turn may carry several, and reading stops when the model goes on
	// with something else.
	OneCallPerTurn bool
	// Constrain asks the server to follow a JSON Schema of the protocol
	// (jsonl style only).
	Constrain bool
	// Reflect adds, after each turn's observations, a note of how each
	// call went and what to do next (reflect.go): a reflection event in
	// the transcript, and the same note in the next request.
	Reflect bool

	// Progress, when set, hears what the loop is doing, for a person.
	Progress func(msg string)
	// Warn, when set, hears what a person should know even when no one
	// watches progress, such as tools offered under Pick although they
	// scored below MinScore.
	Warn func(msg string)
	// Formats are families from format files, read besides the built-in
	// ones (parse.Options.Formats).
	Formats []*parse.Spec

	// onStep, when set, hears each step event as it is written (a batch
	// counts their timings).
	onStep func(*event.Step)
}

// Result says how a run ended.
type Result struct {
	Reason      string // one of the Stop constants
	Iterations  int
	Calls       int    // tool calls the model made, run or refused (with Input.Earlier, its calls too)
	FinalAnswer string // redacted, as the transcript has it
	Error       string // what failed, for provider_error
	// Unread counts the calls of the last turn left unread when the run
	// was interrupted or timed out while they were being run.
	Unread int
	// Conversation is the run's messages as the model would see them on
	// its next turn: what a replay of a continued recording goes on from.
	Conversation []Message
}

// stopEvent is the stop event that ends a transcript: type, reason,
// iterations, and error when there is one (FinalAnswer and Unread are not
// in it).
func (r Result) stopEvent() *event.Stop {
	return &event.Stop{Reason: r.Reason, Iterations: r.Iterations, Error: r.Error}
}

// Loop runs the conversation in until a final answer or a limit, writing
// the transcript to w: system and user events, then per turn an assistant
// event (the model's text as read, model, usage, duration_ms), the events
// parse makes of it with each call validated and run as exec does it, and
// at the end a stop event. Each event is one line, written at once.
//
// Secrets never reach w: the values of secret-named variables of
// opts.Exec.Environ, opts.Exec.Secrets (the API key) and the --redact
// patterns are redacted from every event, raw or JSON-escaped, and from
// Result.Error and Progress.
//
// The error is only for failures of the transcript itself (w); how the run
// ended is in Result and in the stop event.
func Loop(ctx context.Context, in Input, w io.Writer, opts Options) (Result, error) {
	return LoopSink(ctx, in, event.NewJSONL(w), opts)
}

// LoopSink is Loop handing the transcript's events to sink as values, in
// order, each redacted as Loop redacts it; Loop is LoopSink with the JSONL
// sink. At the end the sink is flushed (event.Sink.Flush). The events
// are the loop's until Emit returns: a sink that keeps one copies it.
func LoopSink(ctx context.Context, in Input, sink event.Sink, opts Options) (res Result, err error) {
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = DefaultMaxIterations
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	style, err := catalog.PromptStyle(opts.Style)
	if err != nil {
		return Result{}, err
	}
	if opts.ObservationRole == "" {
		opts.ObservationRole = RoleUser
	}
	if opts.MaxReplyBytes <= 0 {
		opts.MaxReplyBytes = DefaultMaxReplyBytes
	}
	bindToolChoice(&opts)
	l := &loop{opts: opts, style: style, seen: map[string]bool{}}
	var set tools.ToolSet // nil, not a nil *Live, when there is no catalog
	if opts.Catalog != nil {
		l.live = catalog.NewLive(opts.Catalog)
		set = l.live
	}
	// The calls are read as parse --tools reads them: the same options,
	// from the same constructor.
	l.parser = ParserOptions(set, parse.Options{Formats: opts.Formats})
	// One executor for the whole run: what a person approves with "all"
	// holds for the later turns too, and its redactor is the run's.
	xopts := opts.Exec
	if xopts.Environ == nil {
		xopts.Environ = os.Environ()
	}
	xopts.Started = func(t *tools.Tool, c *tools.Call) {
		l.clock.toolStarted()
		l.tap.started(t, c)
		l.progress("running %s", t.Name)
	}
	execSet := set
	if execSet == nil {
		execSet = catalog.New(nil) // no tools: every call is an unknown tool
	}
	l.offered = &offeredSet{ToolSet: execSet}
	l.exec = tools.NewExecutor(l.offered, xopts)
	// Everything the run writes goes through the redactor exec uses:
	// every event, the model's own text included, and what it says on
	// stderr (Progress, Result.Error).
	redactor := l.exec.Redactor()
	if p := opts.Progress; p != nil {
		l.opts.Progress = func(msg string) { p(redactor.String(msg)) }
	}
	rs := newRedactingSink(sink, redactor)
	l.tap = newLiveTap(sink, redactor)
	defer func() {
		// A text event held back, when the run ends without a stop event.
		if ferr := rs.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("writing the transcript: %w", ferr)
		}
	}()
	l.sink = rs
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()

	res, err = l.run(ctx, in)
	res.Error = redactor.String(res.Error)
	res.FinalAnswer = redactor.String(res.FinalAnswer)
	res.Calls = l.calls
	res.Conversation = l.msgs
	if err != nil {
		return res, err
	}
	return res, l.writeEvent(res.stopEvent())
}

type loop struct {
	opts  Options
	style *catalog.Style // the prompt style of opts.Style
	sink  event.Sink     // the transcript, through the redactor
	tap   *liveTap       // the sink's Live side, nil when it has none
	msgs  []Message
	calls int // calls so far, for ids across turns
	// providerErr is what the model server said when it failed.
	providerErr string // also what ended a reply_too_large run
	// unread counts the calls of a turn that Exec left unread when it
	// was stopped.
	unread int
	seen   map[string]bool // name + arguments of every call so far
	// askedAnswer: the last turn was Command R's directly_answer alone,
	// and the model was asked for its answer (askAnswer).
	askedAnswer bool
	// live is opts.Catalog as its MCP servers' tools change: the calls of
	// later turns are checked against the tools as they are then.
	live *catalog.Live
	// parser is how each turn is read (ParserOptions).
	parser parse.Options
	// exec checks and runs the calls of every turn, against offered.
	exec    *tools.Executor
	offered *offeredSet
	// offers is what is offered, for the budgets (budget.go).
	offers offers
	// step is the ledger of the turn under way (step.go), written when it
	// ends; clock times its executor's phases.
	step  event.Step
	clock stepClock
	// note is the turn's reflection (--reflect), kept for the run.
	note event.Reflection
}

func (l *loop) progress(format string, args ...any) {
	if l.opts.Progress != nil {
		l.opts.Progress(fmt.Sprintf(format, args...))
	}
}

// writeEvent hands one event to the transcript.
func (l *loop) writeEvent(e event.Event) error {
	if err := l.sink.Emit(e); err != nil {
		return fmt.Errorf("writing the transcript: %w", err)
	}
	return nil
}

// message writes a message of the request: a system or user event, or
// an assistant event without a turn's measures.
func (l *loop) message(m Message) error {
	var e event.Event
	switch m.Role {
	case event.TypeAssistant:
		e = &event.Assistant{Content: m.Content}
	default:
		e = &event.Message{Type: m.Role, Content: m.Content}
	}
	return l.writeEvent(e)
}

func (l *loop) run(ctx context.Context, in Input) (Result, error) {
	req, err := l.prepare(ctx, in)
	if err != nil {
		return Result{}, err
	}
	var res Result
	for res.Iterations = 1; res.Iterations <= l.opts.MaxIterations; res.Iterations++ {
		l.progress("iteration %d: waiting for the model", res.Iterations)
		reason, final, err := l.turn(ctx, req, res.Iterations)
		if err == nil && reason == "" {
			reason, err = l.reoffer(req)
		}
		if err != nil {
			return res, err
		}
		if reason != "" {
			res.Reason, res.FinalAnswer = reason, final
			if reason == StopProvider || reason == StopReplyTooLarge {
				res.Error = l.providerErr
			}
			res.Unread = l.unread
			return res, nil
		}
	}
	res.Iterations = l.opts.MaxIterations
	res.Reason = StopMaxIterations
	return res, nil
}

// prepare chooses the tools, writes the system and user events, and
// makes the request the turns share.
func (l *loop) prepare(ctx context.Context, in Input) (*Request, error) {
	o := &l.opts
	var picked []catalog.Ranked
	if o.Catalog != nil && o.ToolChoice != "none" {
		// The tools offered are those the calls may use: in a dry run,
		// where nothing runs, definitions too (eval's functions).
		sel := catalog.Selection{Policy: o.Exec.Policy, MinScore: o.MinScore, Runnable: !o.Exec.DryRun, Warn: o.Warn}
		if sel.MinScore == 0 {
			sel.MinScore = catalog.DefaultMinScore
		}
		if o.Pick > 0 {
			sel.Query, sel.Max = lastUser(in.Messages), o.Pick
		}
		var err error
		if picked, err = o.Catalog.Select(ctx, sel); err != nil {
			return nil, fmt.Errorf("choosing the tools: %w", err)
		}
		if o.Pick > 0 {
			l.offered.offer(picked)
		}
	}
	system := o.System
	if system == "" {
		system = DefaultSystem
	}
	req := &Request{Model: o.Model, MaxTokens: o.MaxTokens, Temperature: o.Temperature, Extra: o.Extra, Stop: o.Stop}
	section := "" // the tools in the system text
	if o.Native {
		var b bytes.Buffer
		if err := catalog.Render(&b, o.Catalog, picked, catalog.RenderOptions{Format: catalog.FormatOpenAI}); err != nil {
			return nil, err
		}
		if len(picked) > 0 {
			req.Tools = bytes.TrimSpace(b.Bytes())
			req.ToolChoice = o.ToolChoice
		}
	} else {
		var b bytes.Buffer
		if err := catalog.Render(&b, o.Catalog, picked, catalog.RenderOptions{Format: catalog.FormatPrompt, Style: o.Style}); err != nil {
			return nil, err
		}
		section = strings.TrimRight(b.String(), "\n")
		system += "\n\n" + section
		req.Stop = append(l.style.Stops(), o.Stop...)
		if o.Constrain {
			req.Schema = protocolSchema(picked)
		}
	}

	msgs := in.Messages
	if e := in.Earlier; e != nil {
		// The system text and the turns were the recorded run's.
		for _, line := range e.Events {
			// Read from the recording FILE: the edge, where lines are
			// decoded; the redactor sees them as it sees the run's own.
			ev, err := event.DecodeEvent(line)
			if err != nil {
				return nil, err
			}
			if err := l.writeEvent(ev); err != nil {
				return nil, err
			}
		}
		l.msgs, l.calls = append(l.msgs, e.Messages...), e.Calls
		l.offer(picked, section)
		return req, l.messages(msgs)
	}
	if len(msgs) > 0 && msgs[0].Role == "system" {
		system = msgs[0].Content + "\n\n" + system
		msgs = msgs[1:]
	}
	ev := event.Message{Type: event.TypeSystem, Content: system}
	if o.Native {
		// The tools went in the request, not in this text: say so, so
		// that a replay of the recording offers them the same way.
		ev.API = APINative
	}
	if err := l.writeEvent(&ev); err != nil {
		return nil, err
	}
	l.msgs = append(l.msgs, Message{Role: "system", Content: system})
	l.offer(picked, section)
	return req, l.messages(msgs)
}

// messages writes the messages of the request and adds them to the
// conversation.
func (l *loop) messages(msgs []Message) error {
	for _, m := range msgs {
		if err := l.message(m); err != nil {
			return err
		}
		l.msgs = append(l.msgs, m)
	}
	return nil
}

// bindToolChoice makes tool_choice hold for the calls too, not only for what
// is offered: "none" refuses every call, and a name every other tool.
func bindToolChoice(o *Options) {
	switch o.ToolChoice {
	case "", "auto", "required":
	case "none":
		o.Exec.Policy.Deny = append(o.Exec.Policy.Deny, "*")
	default:
		if t, ok := lookup(o.Catalog, o.ToolChoice); ok && o.Exec.Policy.Listed(t) {
			o.Exec.Policy.Allow = []string{t.Name}
		} else {
			o.Exec.Policy.Deny = append(o.Exec.Policy.Deny, "*")
		}
	}
}

// lastUser is the text of the last user message: the request to rank
// tools for.
func lastUser(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// turn asks the model once and acts on what it said, then writes the
// turn's step event. A non-empty reason ends the run.
func (l *loop) turn(ctx context.Context, req *Request, iteration int) (reason, final string, err error) {
	l.step = event.Step{Iteration: iteration, Calls: l.step.Calls[:0]}
	reason, final, err = l.act(ctx, req)
	if err != nil {
		return "", "", err
	}
	if l.opts.onStep != nil {
		l.opts.onStep(&l.step)
	}
	return reason, final, l.writeEvent(&l.step)
}

// act is the turn but its step event.
func (l *loop) act(ctx context.Context, req *Request) (reason, final string, err error) {
	// Whether the last turn was asked for the answer it promised.
	asked := l.askedAnswer
	l.askedAnswer = false
	req.Messages = l.msgs
	req.MaxReplyBytes = l.opts.MaxReplyBytes
	sink, err := newTurnSink(l.calls, !l.opts.OneCallPerTurn, l.opts.MaxReplyBytes, l.parser)
	if err != nil {
		return "", "", err
	}
	sink.live = l.tap
	start := time.Now()
	resp, cerr := l.opts.Backend.Complete(ctx, req, sink)
	elapsed := time.Since(start)
	if perr := sink.close(); perr != nil && cerr == nil {
		cerr = perr
	}
	l.step.ModelMS = max(elapsed-sink.parsing, 0).Milliseconds()
	l.step.ParseMS = sink.parsing.Milliseconds()
	l.step.Tokens = usageTokens(resp.Usage)

	if sink.raw.Len() > 0 || len(sink.native) > 0 || cerr == nil {
		if err := l.assistant(sink, resp, elapsed); err != nil {
			return "", "", err
		}
	}
	if cerr != nil {
		switch {
		case errors.Is(cerr, errReplyTooLarge):
			l.progress("the reply was too large: %v", cerr)
			l.providerErr = fmt.Sprintf("the model's reply passed %d bytes in one turn; reading stopped there", l.opts.MaxReplyBytes)
			return StopReplyTooLarge, "", nil
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return StopTimeout, "", nil
		case ctx.Err() != nil:
			return StopInterrupted, "", nil
		}
		var pe *ProviderError
		if !errors.As(cerr, &pe) {
			pe = &ProviderError{Message: cerr.Error(), Attempts: 1}
		}
		l.progress("model server failed: %v", pe)
		l.providerErr = pe.Error()
		return StopProvider, "", nil
	}

	// The calls go to exec's own executor, as values, and every event is
	// written as parse | exec writes it.
	obs, repeated, err := l.execute(ctx, sink.events)
	if err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return StopTimeout, "", nil
		case ctx.Err() != nil:
			return StopInterrupted, "", nil
		}
		return "", "", err
	}
	l.calls += sink.calls

	native := l.rememberTurn(sink)

	switch {
	case sink.final != nil:
		return StopFinalAnswer, *sink.final, nil
	case native:
		if err := l.answerNative(sink.turn, obs); err != nil {
			return "", "", err
		}
		if err := l.reflect(); err != nil {
			return "", "", err
		}
		if repeated {
			return StopRepeated, "", nil
		}
		return "", "", nil
	case len(obs) > 0:
		if err := l.giveBack(obs); err != nil {
			return "", "", err
		}
		if err := l.reflect(); err != nil {
			return "", "", err
		}
		if repeated {
			return StopRepeated, "", nil
		}
		return "", "", nil
	}
	// No call and no final answer.
	prose := strings.TrimSpace(sink.prose.String())
	if sink.direct && prose == "" && sink.parseErr == "" && l.opts.ToolChoice != "required" {
		return l.askAnswer(asked)
	}
	if sink.direct || asked {
		// The answer a Command R model said it would give, after its
		// directly_answer or when asked for it.
		prose = groundedAnswer(prose)
	}
	// A call that could not be read means the model meant to act, not to
	// answer: the prose around it is not the answer.
	if prose != "" && sink.parseErr == "" && !l.opts.StrictProtocol && l.opts.ToolChoice != "required" {
		// Answer first: plain prose is the answer.
		answer := event.TextEvent{Type: event.TypeFinalAnswer, Content: []byte(prose)}
		if err := l.writeEvent(&answer); err != nil {
			return "", "", err
		}
		return StopFinalAnswer, prose, nil
	}
	return "", "", l.decodeError(sink)
}

// execute writes the events of a turn in order, each call as the
// executor answers it: the validated call and its observation, or the
// refusal that replaces it. It returns the observations to give back to
// the model, and whether a call that passed was made before in the run.
// On an error (ctx ended, or the transcript failed) l.unread counts the
// calls left without an answer.
func (l *loop) execute(ctx context.Context, events []turnEvent) (obs []observation, repeated bool, err error) {
	var calls []tools.Call
	for _, ev := range events {
		if ev.call != nil {
			calls = append(calls, *ev.call)
		}
	}
	next := 0 // the first event not yet written
	// passOn writes the events before the next call, or to the end.
	passOn := func() error {
		for ; next < len(events) && events[next].call == nil; next++ {
			if err := l.writeEvent(events[next].ev); err != nil {
				return err
			}
		}
		return nil
	}
	l.note.Calls = l.note.Calls[:0]
	l.clock.hand()
	defer func() {
		validate, exec := l.clock.split()
		l.step.ValidateMS, l.step.ExecMS = validate.Milliseconds(), exec.Milliseconds()
	}()
	l.unread, err = l.exec.Run(ctx, calls, func(o tools.Outcome) error {
		if err := passOn(); err != nil {
			return err
		}
		next++ // the call, which the outcome stands for
		if err := l.writeEvent(&o.Checked); err != nil {
			return err
		}
		if err := l.writeEvent(&o.Observation); err != nil {
			return err
		}
		if c := o.Call; c != nil {
			key := c.Name + "\x00" + string(c.Arguments)
			repeated = repeated || l.seen[key]
			l.seen[key] = true
		}
		obs = append(obs, observationOf(&o.Observation))
		l.ledger(&o.Observation)
		return nil
	})
	if err == nil {
		err = passOn()
	}
	return obs, repeated, err
}

// assistant writes the assistant event of a turn.
func (l *loop) assistant(sink *turnSink, resp Response, elapsed time.Duration) error {
	ev := event.Assistant{Content: sink.raw.String(), Model: resp.Model, Stopped: resp.Stopped, DurationMS: ptr(elapsed.Milliseconds())}
	// The calls as the server sent them, arguments byte for byte, under
	// the ids the events give them.
	for _, c := range sink.native {
		ev.ToolCalls = append(ev.ToolCalls, c.Call)
	}
	if ev.Model == "" {
		ev.Model = l.opts.Model
	}
	if len(resp.Usage) > 0 && gjson.ValidBytes(resp.Usage) {
		ev.Usage = resp.Usage
	}
	return l.writeEvent(&ev)
}

func ptr[T any](v T) *T { return &v }

// observation is what goes back to the model of one tool_observation.
type observation struct {
	id, name, content string
	isError           bool
}

// observationOf is what goes back to the model of o: its strings as the
// transcript has them (the JSON writer makes each byte of invalid UTF-8
// a U+FFFD, and the model is told what the transcript says).
func observationOf(o *tools.Observation) observation {
	return observation{id: jsonw.ValidString(o.ID), name: jsonw.ValidString(o.Name), content: jsonw.ValidString(o.Content), isError: o.IsError}
}

// ledger enters an observation of the turn in its step event and, under
// --reflect, in its note.
func (l *loop) ledger(o *tools.Observation) {
	l.step.Calls = append(l.step.Calls, event.StepCall{ID: o.ID, Name: o.Name, Status: stepStatus(o)})
	if l.opts.Reflect {
		l.note.Calls = append(l.note.Calls, reflectOn(o))
	}
}

// reflect writes the turn's reflection event, under --reflect, and adds
// the note to the conversation after the observations: in the user
// message that gives them back, or, where they went back as tool
// messages, as a user message of its own.
func (l *loop) reflect() error {
	if !l.opts.Reflect || len(l.note.Calls) == 0 {
		return nil
	}
	l.note.Iteration = l.step.Iteration
	if err := l.writeEvent(&l.note); err != nil {
		return err
	}
	if last := len(l.msgs) - 1; l.opts.ObservationRole == RoleUser && !l.opts.Native && l.msgs[last].Role == "user" {
		l.msgs[last].Content = string(appendNote(append([]byte(l.msgs[last].Content), '\n'), l.style, &l.note))
		return nil
	}
	style := l.style
	if l.opts.Native { // no prompt style was taught: the note is a line of JSON
		style, _ = catalog.PromptStyle(catalog.StyleJSONL)
	}
	l.msgs = append(l.msgs, Message{Role: "user", Content: string(appendNote(nil, style, &l.note))})
	return nil
}

// nativeHint is how to call a tool, for a model that calls them through
// the server's tool-calling API.
const nativeHint = "Make a native tool call, through the tool-calling API, with arguments that are one JSON object matching the tool's schema, or answer in plain text."

// decodeError tells the model its turn was neither a call nor an answer,
// as an observation in the transcript and a message in the conversation.
func (l *loop) decodeError(sink *turnSink) error {
	msg := "Your reply had no tool call and no final answer."
	if sink.parseErr != "" {
		msg = "Your tool call could not be read: " + sink.parseErr
	}
	if l.opts.Native {
		msg += " " + nativeHint
	} else {
		msg += " " + l.style.Hint()
	}
	o := tools.Observation{ID: "", Name: "", Content: msg, IsError: true, Status: tools.StatusError,
		Error: &tools.ToolError{Kind: tools.KindDecode, Message: msg}}
	if err := l.writeEvent(&o); err != nil {
		return err
	}
	// The turn itself is in the conversation already (act).
	l.msgs = append(l.msgs, Message{Role: "user", Content: msg})
	return nil
}

// lookup finds a tool in c, which may be nil.
func lookup(c *catalog.Catalog, name string) (*tools.Tool, bool) {
	if c == nil {
		return nil, false
	}
	return c.Lookup(name)
}

// rememberTurn adds the model's turn to the conversation as the model
// will see it next time, and says whether it went native (its calls as
// tool calls: every call of the turn, native or not, so that each has
// its one tool reply).
func (l *loop) rememberTurn(sink *turnSink) (native bool) {
	native = l.opts.Native && len(sink.turn) > 0
	switch {
	case native:
		calls := make([]tools.Call, len(sink.turn))
		for i, c := range sink.turn {
			calls[i] = c.Call
		}
		l.msgs = append(l.msgs, Message{Role: "assistant", Content: strings.TrimSpace(sink.prose.String()), ToolCalls: calls})
	case sink.calls > 0:
		l.msgs = append(l.msgs, Message{Role: "assistant", Content: sink.history(l.style)})
	default:
		l.msgs = append(l.msgs, Message{Role: "assistant", Content: sink.raw.String()})
	}
	return native
}
