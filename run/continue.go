package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// Conversation is a recorded run to go on from (run --continue FILE): its
// transcript, which the run that goes on writes again before its own
// events, so that its transcript holds the whole conversation and can be
// continued or replayed in turn.
type Conversation struct {
	// Path is the file it was read from.
	Path string
	// Events are its lines, each one JSON object.
	Events [][]byte
	// Native says the recorded run used the server's own tool calling.
	Native bool
}

// OpenConversation reads the transcript at path, whole, before anything
// is written (so that --record may name the same file), and checks that
// it is a transcript of a run that ended. A file that cannot be opened is
// the *fs.PathError of os.Open; what is wrong with its content is an
// error that does not repeat the path.
func OpenConversation(path string) (*Conversation, error) {
	events, err := readTranscriptFile(path)
	if err != nil {
		return nil, err
	}
	if err := checkConversation(events); err != nil {
		return nil, err
	}
	return &Conversation{Path: path, Events: events, Native: RecordedNative(events)}, nil
}

// notTranscript is the advice of a file that is no transcript of run.
const notTranscript = "give a file toolcall run wrote, on stdout or with --record"

// checkConversation refuses what cannot be gone on from: a file that is
// not run's transcript, and one cut short before its stop event (the
// conversation of a turn half done is not the one the model saw).
func checkConversation(events [][]byte) error {
	if len(events) == 0 {
		return errors.New("it holds no events: " + notTranscript)
	}
	if gjson.GetBytes(events[0], "request").Exists() {
		return errors.New("it holds the transcripts of a batch (--batch): continue one request's, such as the DIR/ID.jsonl of --batch --out DIR")
	}
	if typ, _ := tools.EventType(events[0]); typ != event.TypeSystem {
		return fmt.Errorf("its first event is %q, not the system event a run starts with: %s", typ, notTranscript)
	}
	users := 0
	for i, ev := range events {
		switch typ, _ := tools.EventType(ev); {
		case typ == event.TypeUser:
			users++
		case typ == event.TypeSystem && i > 0:
			return fmt.Errorf("its event %d is a second system event: it holds more than one run's transcript; %s", i+1, notTranscript)
		}
	}
	if users == 0 {
		return errors.New("it has no user event: " + notTranscript)
	}
	last, _ := tools.EventType(events[len(events)-1])
	if last != event.TypeStop {
		return fmt.Errorf("it ends with a %q event, not a stop event: the run was cut short mid-turn; continue from a run that ended (run --replay FILE shows how far it got)", last)
	}
	return nil
}

// Accept checks that in and opts can go on with the conversation: in
// holds user messages only (the system text and the turns are the
// recording's), and a run that used the server's tool calling gave tool
// replies the model must get again in the same shape, while one that did
// not taught a syntax in its system text.
func (c *Conversation) Accept(in Input, opts Options) error {
	for _, m := range in.Messages {
		if m.Role != "user" {
			return fmt.Errorf("a conversation that goes on takes user messages only, not %s (the system text and the turns are the recording's)", m.Role)
		}
	}
	switch {
	case c.Native && !opts.Native:
		return errors.New("it was recorded with --api native (the server's own tool calling): continue it with --api native")
	case !c.Native && opts.Native:
		return errors.New("it was recorded without --api native (the tools in its system text): continue it without --api native")
	}
	return nil
}

// Continue runs the conversation on with the new messages of in: the
// loop writes the recorded events to w, then runs from the conversation
// as the model saw it (Earlier), so that w gets the new user event and
// turns after the old ones. The system text is the
// recorded one; the calls of the new turns are checked and run against
// opts.Catalog.
func (c *Conversation) Continue(ctx context.Context, in Input, sink event.Sink, opts Options) (Result, error) {
	if err := c.Accept(in, opts); err != nil {
		return Result{}, err
	}
	earlier, err := c.Earlier(opts)
	if err != nil {
		return Result{}, err
	}
	in.Earlier = earlier
	return LoopSink(ctx, in, sink, opts)
}

// Earlier is the recorded conversation as the loop built it for the
// model, with opts (after Setup or the backend's flags) deciding what the
// transcript does not say: the prompt style and how observations went
// back (ObservationRole, MaxObservation). Each recorded turn is read
// again as the loop read it, and its observations are given back as the
// loop gave them, from the recorded tool_observation events: no tool
// runs again.
func (c *Conversation) Earlier(opts Options) (*Earlier, error) {
	style, err := catalog.PromptStyle(opts.Style)
	if err != nil {
		return nil, err
	}
	if opts.ObservationRole == "" {
		opts.ObservationRole = RoleUser
	}
	opts.Reflect = false // each turn's recorded note is given back as it was
	var set tools.ToolSet
	if opts.Catalog != nil {
		set = opts.Catalog
	}
	l := &loop{opts: opts, style: style, sink: event.Discard, seen: map[string]bool{},
		parser: ParserOptions(set, parse.Options{Formats: opts.Formats})}
	var t *recordedTurn
	// undo is where the conversation stood before the last turn, for a
	// run that stopped in that turn: the loop never gave it back.
	var undo struct {
		msgs, calls int
		set         bool
	}
	closeTurn := func() error {
		undo.msgs, undo.calls, undo.set = len(l.msgs), l.calls, t != nil
		if t == nil {
			return nil
		}
		err := l.retell(t)
		t = nil
		return err
	}
	for _, ev := range c.Events {
		typ, _ := tools.EventType(ev)
		switch typ {
		case event.TypeSystem: // the first event, and the only one (checkConversation)
			l.msgs = append(l.msgs, Message{Role: "system", Content: event.DecodeMessage(ev).Content})
		case event.TypeUser:
			m := Message{Role: "user", Content: event.DecodeMessage(ev).Content}
			if t != nil { // asked of the model within the turn (askAnswer)
				t.asked = append(t.asked, m)
			} else {
				l.msgs = append(l.msgs, m)
			}
		case event.TypeAssistant:
			// A recording made before step events: the turn before
			// ends here.
			if err := closeTurn(); err != nil {
				return nil, err
			}
			t = &recordedTurn{assistant: event.DecodeAssistant(ev)}
		case tools.TypeToolObservation:
			if t != nil {
				t.obs = append(t.obs, tools.DecodeObservation(ev))
			}
		case event.TypeFinalAnswer:
			if t != nil {
				t.final = true
			}
		case event.TypeReflection:
			if t != nil {
				t.note = ptr(event.DecodeReflection(ev))
			}
		case event.TypeStep:
			if err := closeTurn(); err != nil {
				return nil, err
			}
		case event.TypeStop:
			if t != nil {
				if err := closeTurn(); err != nil {
					return nil, err
				}
			}
			switch event.DecodeStop(ev).Reason {
			case StopProvider, StopReplyTooLarge, StopTimeout, StopInterrupted:
				// The turn that failed is not in the conversation.
				if undo.set {
					l.msgs, l.calls = l.msgs[:undo.msgs], undo.calls
				}
			}
			undo.set = false
		}
	}
	return &Earlier{Messages: l.msgs, Calls: l.calls, Events: c.Events}, nil
}

// recordedTurn is a model's turn as the transcript has it.
type recordedTurn struct {
	assistant event.Assistant
	obs       []tools.Observation // in the order written
	final     bool
	note      *event.Reflection // --reflect's note of the turn
	asked     []Message         // what the loop asked of the model after the turn
}

// retell adds a recorded turn to the conversation as act did: the model's
// turn as it is read again (the same parser, the same ids), then the
// observations the transcript has, given back through the loop's own
// giveBack or answerNative, the note of --reflect, or what the loop asked
// after a turn without a call.
func (l *loop) retell(t *recordedTurn) error {
	sink, err := newTurnSink(l.calls, !l.opts.OneCallPerTurn, 0, l.parser)
	if err != nil {
		return err
	}
	if err := tellAgain(sink, &t.assistant); err != nil {
		return err
	}
	native := l.rememberTurn(sink)
	l.calls += sink.calls
	obs := make([]observation, len(t.obs))
	for i := range t.obs {
		obs[i] = observationOf(&t.obs[i])
	}
	// The executor answered each call of the turn once, in order; a
	// decode observation of the loop's own comes after.
	ran := 0
	for _, ev := range sink.events {
		if ev.call != nil {
			ran++
		}
	}
	switch {
	case t.final:
		return nil
	case native:
		if err := l.answerNative(sink.turn, obs); err != nil {
			return err
		}
	case ran > 0:
		if err := l.giveBack(obs[:min(ran, len(obs))]); err != nil {
			return err
		}
	case len(t.asked) > 0:
		l.msgs = append(l.msgs, t.asked...)
		return nil
	case len(obs) > 0:
		// decodeError: what was wrong, told as the observation says.
		l.msgs = append(l.msgs, Message{Role: "user", Content: obs[len(obs)-1].content})
		return nil
	}
	if t.note != nil {
		l.opts.Reflect, l.note = true, *t.note
		defer func() { l.opts.Reflect = false }()
		return l.reflect()
	}
	return nil
}

// tellAgain gives a recorded turn to sink as the replay backend does: its
// text in one piece, then the calls the server parsed itself, until the
// sink has what it needs.
func tellAgain(sink *turnSink, a *event.Assistant) error {
	if len(a.Content) > 0 {
		stop, err := sink.Text([]byte(a.Content))
		if err != nil || stop {
			return errors.Join(err, sink.close())
		}
	}
	for _, c := range a.ToolCalls {
		stop, err := sink.NativeCall(c.ID, c.Name, c.Arguments)
		if err != nil || stop {
			return errors.Join(err, sink.close())
		}
	}
	return sink.close()
}

// LaterRequests are the messages of a recording's continued runs: the
// user events right after each stop event, each run's new request.
func LaterRequests(events [][]byte) [][]Message {
	var later [][]Message
	var req []Message
	stopped := false
	for _, ev := range events {
		typ, _ := tools.EventType(ev)
		if typ == event.TypeUser && stopped {
			req = append(req, Message{Role: "user", Content: event.DecodeMessage(ev).Content})
			continue
		}
		if len(req) > 0 {
			later = append(later, req)
		}
		req, stopped = nil, typ == event.TypeStop
	}
	return later
}
