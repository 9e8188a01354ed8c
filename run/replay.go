package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// ReadTranscript reads a JSONL transcript: one JSON object a line, blank
// lines skipped. A line that is not a JSON object is an error naming its
// line number, since a damaged recording cannot be replayed or checked.
// A line is bounded as exec bounds its input (tools.DefaultMaxLine): a
// longer one is an error naming it, read past without being kept, so that
// what a recording costs is its events, not a line without end.
func ReadTranscript(r io.Reader) ([][]byte, error) { return readTranscript(r, tools.DefaultMaxLine) }

// readTranscriptFile is ReadTranscript of the file at path; a file that
// cannot be opened is the *fs.PathError of os.Open.
func readTranscriptFile(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTranscript(f)
}

func readTranscript(r io.Reader, maxLine int) ([][]byte, error) {
	var events [][]byte
	var bad error // what is wrong with a line, as against a failed read
	tooLong := func(l tools.LongLine) error {
		bad = fmt.Errorf("transcript line %d is %d bytes long, more than the %d bytes a line may have", l.N, l.Size, maxLine)
		return bad
	}
	err := tools.ReadLines(r, maxLine, tooLong, func(line []byte, n int) error {
		if !gjson.ValidBytes(line) || !gjson.ParseBytes(line).IsObject() {
			bad = fmt.Errorf("transcript line %d: not a JSON object: %s", n, clip.Head(string(line), 80))
			return bad
		}
		events = append(events, bytes.Clone(line))
		return nil
	})
	switch {
	case err == nil:
		return events, nil
	case err == bad:
		return nil, err
	}
	return nil, fmt.Errorf("reading the transcript: %w", err)
}

// replayTurn is one recorded assistant turn.
type replayTurn struct {
	content []byte
	model   string
	usage   []byte
	// native are the calls the server parsed itself in that turn, given
	// back through Sink.NativeCall with their arguments as the server sent
	// them (the assistant event's tool_calls).
	native []tools.Call
	// err is the failure that ended the recording in this turn: the turn
	// gives back what it had read, then fails the same way.
	err error
}

type replay struct {
	mu    sync.Mutex
	turns []replayTurn
	next  int
	// assistants is how many assistant turns were recorded (turns may end
	// with one that only fails).
	assistants int
}

// NewReplay returns a backend whose turns are the assistant events of a
// recorded transcript, in order: each turn's content goes to the sink in
// one piece, and the calls the server parsed itself after it, with the
// recorded model and usage. A recording that ended in provider_error
// fails in the same turn with the same message. When the loop asks for
// more turns than were recorded, Complete fails with a *ProviderError.
func NewReplay(transcript io.Reader) (Backend, error) {
	events, err := ReadTranscript(transcript)
	if err != nil {
		return nil, err
	}
	return newReplay(events)
}

// newReplay is NewReplay of a transcript already read.
func newReplay(events [][]byte) (Backend, error) {
	r := &replay{}
	seen := map[string]bool{}
	fromEvent := false // the turn's native calls come from its tool_call events
	prev := ""         // the type of the event before
	for _, ev := range events {
		typ, _ := tools.EventType(ev) // a line without one is no event of ours
		switch typ {
		case event.TypeStep, event.TypeReflection:
			// The ledger of a turn, after it: "the event before" a stop
			// is the turn's last own event.
			continue
		case event.TypeAssistant:
			a := event.DecodeAssistant(ev)
			// The arguments as the server sent them, spaces and all: the
			// tool_call events hold them normalized.
			r.turns = append(r.turns, replayTurn{content: []byte(a.Content), model: a.Model, usage: a.Usage, native: a.ToolCalls})
			fromEvent = len(a.ToolCalls) == 0
			r.assistants++
			clear(seen)
		case tools.TypeToolCall:
			// A recording without tool_calls in its assistant events: the
			// server's calls are the tool_call events of format native.
			// exec passes a call on with "validated" added: one call can be
			// written more than once, so each id counts once.
			if len(r.turns) == 0 || !fromEvent {
				break
			}
			c, _ := tools.DecodeCall(ev) // the codec validate and exec read calls with
			if c.Format != parse.FormatNative || seen[c.ID] {
				break
			}
			seen[c.ID] = true
			t := &r.turns[len(r.turns)-1]
			t.native = append(t.native, tools.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		case event.TypeStop:
			stop := event.DecodeStop(ev)
			if stop.Reason != StopProvider {
				break
			}
			fail := &ProviderError{Recorded: stop.Error, Attempts: 1}
			if fail.Recorded == "" {
				fail.Recorded = "model server: the recorded run ended with provider_error"
			}
			// A turn that failed after part of its reply was read has its
			// assistant event right before the stop; one that failed
			// before any has none, and the failure is a turn of its own.
			if prev == event.TypeAssistant && len(r.turns) > 0 {
				r.turns[len(r.turns)-1].err = fail
			} else {
				r.turns = append(r.turns, replayTurn{err: fail})
			}
		}
		prev = typ
	}
	return r, nil
}

func (r *replay) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	r.mu.Lock()
	i := r.next
	if i < len(r.turns) {
		r.next++
	}
	r.mu.Unlock()
	if i >= len(r.turns) {
		return Response{}, &ProviderError{
			Message:  fmt.Sprintf("the recording has no more turns: it holds %d assistant turn%s and the loop asked for turn %d", r.assistants, plural(r.assistants), i+1),
			Attempts: 1,
		}
	}
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	t := r.turns[i]
	resp := Response{Model: t.model, Usage: t.usage, FinishReason: "stop"}
	if len(t.content) > 0 {
		stop, err := sink.Text(bytes.Clone(t.content))
		if err != nil {
			return resp, err
		}
		if stop && t.err == nil {
			resp.Stopped = true
			return resp, nil
		}
	}
	for _, c := range t.native {
		stop, err := sink.NativeCall(c.ID, c.Name, bytes.Clone(c.Arguments))
		if err != nil {
			return resp, err
		}
		if stop && t.err == nil {
			resp.Stopped = true
			return resp, nil
		}
	}
	if t.err != nil {
		return resp, t.err
	}
	if len(t.native) > 0 {
		resp.FinishReason = "tool_calls"
	}
	return resp, nil
}

// RecordedNative reports whether a recorded run used the server's own tool
// calling (--api native): its system event says so, or, in a recording
// made before it did, its assistant turns hold the server's calls. Such a
// run is replayed natively, so that its system prompt is built the same
// way.
func RecordedNative(events [][]byte) bool {
	for _, ev := range events {
		typ, _ := tools.EventType(ev)
		switch typ {
		case event.TypeSystem:
			if event.DecodeMessage(ev).API == APINative {
				return true
			}
		case event.TypeAssistant:
			if len(event.DecodeAssistant(ev).ToolCalls) > 0 {
				return true
			}
		case tools.TypeToolCall:
			if c, _ := tools.DecodeCall(ev); c.Format == parse.FormatNative {
				return true
			}
		}
	}
	return false
}

// RecordedInput finds the request in a recorded transcript: its system and
// user events before the first assistant turn. The recorded system text
// is not reused: the loop builds it again from the tools, so a change in
// them shows in the check.
func RecordedInput(events [][]byte) (Input, error) {
	var in Input
	for _, ev := range events {
		typ, _ := tools.EventType(ev)
		switch typ {
		case event.TypeUser:
			in.Messages = append(in.Messages, Message{Role: "user", Content: event.DecodeMessage(ev).Content})
		case event.TypeAssistant:
			if len(in.Messages) > 0 {
				return in, nil
			}
		}
	}
	if len(in.Messages) == 0 {
		return in, errors.New("the recording has no user event to replay")
	}
	return in, nil
}
