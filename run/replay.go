package run

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
)

// ReadTranscript reads a JSONL transcript: one JSON object a line, blank
// lines skipped. A line that is not a JSON object is an error naming its
// line number, since a damaged recording cannot be replayed or checked.
func ReadTranscript(r io.Reader) ([][]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var events [][]byte
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimRight(line, "\r\n")
			if len(bytes.TrimSpace(line)) > 0 {
				if !gjson.ValidBytes(line) || !gjson.ParseBytes(line).IsObject() {
					return nil, fmt.Errorf("transcript line %d: not a JSON object: %s", n, clipText(line, 80))
				}
				events = append(events, line)
			}
		}
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the transcript: %w", err)
		}
	}
}

// replayTurn is one recorded assistant turn.
type replayTurn struct {
	content []byte
	model   string
	usage   []byte
	// native are the calls the server parsed itself in that turn (tool_call
	// events of format "native" after the assistant event), given back
	// through Sink.NativeCall.
	native []tools.Call
}

type replay struct {
	mu    sync.Mutex
	turns []replayTurn
	next  int
}

// NewReplay returns a backend whose turns are the assistant events of a
// recorded transcript, in order: each turn's content goes to the sink in
// one piece, with the recorded model and usage. When the loop asks for
// more turns than were recorded, Complete fails with a *ProviderError.
func NewReplay(transcript io.Reader) (Backend, error) {
	events, err := ReadTranscript(transcript)
	if err != nil {
		return nil, err
	}
	r := &replay{}
	seen := map[string]bool{}
	for _, ev := range events {
		e := gjson.ParseBytes(ev)
		switch e.Get("type").Str {
		case tools.TypeAssistant:
			t := replayTurn{content: []byte(e.Get("content").Str), model: e.Get("model").Str}
			if u := e.Get("usage"); u.Exists() && u.Type != gjson.Null {
				t.usage = []byte(u.Raw)
			}
			r.turns = append(r.turns, t)
			clear(seen)
		case tools.TypeToolCall:
			// exec passes a call on with "validated" added: one call can be
			// written more than once, so each id counts once.
			if len(r.turns) == 0 || e.Get("format").Str != parse.FormatNative {
				continue
			}
			id := e.Get("id").Str
			if seen[id] {
				continue
			}
			seen[id] = true
			t := &r.turns[len(r.turns)-1]
			t.native = append(t.native, tools.Call{ID: id, Name: e.Get("name").Str, Arguments: []byte(e.Get("arguments").Raw)})
		}
	}
	// No assistant event is no error here: a recording whose first turn
	// failed replays as the same provider_error.
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
			Message:  fmt.Sprintf("the recording has no more turns: it holds %d assistant turn%s and the loop asked for turn %d", len(r.turns), plural(len(r.turns)), i+1),
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
		if stop {
			resp.Stopped = true
			return resp, nil
		}
	}
	for _, c := range t.native {
		stop, err := sink.NativeCall(c.ID, c.Name, c.Arguments)
		if err != nil {
			return resp, err
		}
		if stop {
			resp.Stopped = true
			return resp, nil
		}
	}
	if len(t.native) > 0 {
		resp.FinishReason = "tool_calls"
	}
	return resp, nil
}

// clipText is b for a message: at most n bytes, marked when cut.
func clipText(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && b[n]&0xC0 == 0x80 { // do not cut a character in two
		n--
	}
	return string(b[:n]) + "…"
}

// RecordedInput finds the request in a recorded transcript: its system and
// user events before the first assistant turn. The recorded system text
// is not reused: the loop builds it again from the tools, so a change in
// them shows in the check.
func RecordedInput(events [][]byte) (Input, error) {
	var in Input
	for _, ev := range events {
		switch gjson.GetBytes(ev, "type").Str {
		case tools.TypeUser:
			in.Messages = append(in.Messages, Message{Role: "user", Content: gjson.GetBytes(ev, "content").Str})
		case tools.TypeAssistant:
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
