package run

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// turnSink parses a turn as it arrives and decides when to stop reading:
// at a final answer, and after a call once the model goes on with
// something that is not another call (it would be inventing the result).
type turnSink struct {
	p        *parse.Parser
	parallel bool

	raw      bytes.Buffer // the model's text as read
	tail     []byte       // what came after the last call, from the next piece on
	said     []said       // what counts of it: kept text and calls, in order
	events   []turnEvent  // parse's events, in order
	prose    bytes.Buffer // the text events, for an answer without protocol
	native   []turnCall   // calls the server parsed itself
	turn     []turnCall   // every call of the turn, native or written as text, in order
	final    *string      // the final answer, once seen
	calls    int          // tool_call events
	parseErr string       // the first parse error
	// reading is the native call being parsed, to learn the id parse
	// gives it or why it could not be read.
	reading *turnCall
	// direct is set by Command R's directly_answer pseudo-call: the model
	// said it will answer without a tool, and the answer is the prose
	// after it (none yet: ask for it).
	direct bool

	// limit bounds the bytes of a turn: text, reasoning and native calls
	// (0: no limit). size is what came so far.
	limit, size int

	// stop is set when the turn has what it needs (see emit and Text).
	stop bool

	// parsing is the time the parser took over the turn, for its step.
	parsing time.Duration

	// live hears the reply as it comes, for a person (nil: no one).
	live *liveTap
}

// turnCall is a call of the turn, as the conversation gives it back to
// the model: native calls with their arguments as the server wrote them.
type turnCall struct {
	tools.Call
	// decodeErr is why parse could not read a native call; such a call
	// is answered with it rather than run.
	decodeErr string
}

// errReplyTooLarge ends a turn whose reply passed Options.MaxReplyBytes.
var errReplyTooLarge = errors.New("the reply is too large")

// newTurnSink reads a turn with the parser options popts (ParserOptions),
// numbering the calls the model gave no id from call_<firstID+1>.
func newTurnSink(firstID int, parallel bool, limit int, popts parse.Options) (*turnSink, error) {
	s := &turnSink{parallel: parallel, limit: limit}
	popts.FirstID = firstID
	var err error
	s.p, err = parse.NewParser(popts, s.emit)
	return s, err
}

// emit receives parse's events.
func (s *turnSink) emit(e *parse.Event) error {
	switch e.Type {
	case tools.TypeToolCall:
		c := tools.Call{ID: e.Call.ID, Name: e.Call.Name, Arguments: bytes.Clone(e.Call.Arguments)}
		s.said = append(s.said, said{call: &c})
		s.live.call(&c, s.prose.Bytes())
		if s.reading != nil {
			s.reading.ID = c.ID
		} else {
			s.turn = append(s.turn, turnCall{Call: c})
		}
		s.calls++
		if !s.parallel {
			s.stop = true
		}
	case event.TypeFinalAnswer:
		f := string(e.Content)
		s.final = &f
		s.stop = true
	case event.TypeText:
		if parse.IsDirectlyAnswer(e) {
			// Neither a call nor the answer: what came before it was the
			// model's plan.
			s.direct = true
			s.prose.Reset()
			break
		}
		if s.calls > 0 && strings.TrimSpace(string(e.Content)) != "" {
			// The model talks on after its call: stop, and leave out
			// what it invented.
			s.stop = true
			return nil
		}
		s.prose.Write(e.Content)
		s.said = append(s.said, said{text: string(e.Content)})
	case event.TypeParseError:
		if s.parseErr == "" {
			s.parseErr = e.Error
		}
		if s.reading != nil {
			s.reading.decodeErr = e.Error
		}
	}
	if s.stop && e.Type == event.TypeText {
		return nil
	}
	// The event as a value, its bytes copied: parse's buffers are its
	// own once emit returns.
	v := e.Value()
	if c, ok := v.(*tools.CallEvent); ok {
		s.events = append(s.events, turnEvent{call: &c.Call})
		return nil
	}
	s.events = append(s.events, turnEvent{ev: v})
	return nil
}

// turnEvent is one of parse's events of a turn: a call, handed to the
// executor, or another event, passed on as parse made it.
type turnEvent struct {
	call *tools.Call
	ev   event.Event // when call is nil
}

// admit counts n more bytes of the reply, and fails once they pass the
// limit: what would pass it is not kept.
func (s *turnSink) admit(n int) error {
	if s.limit > 0 && s.size+n > s.limit {
		return fmt.Errorf("%w: it passed %d bytes", errReplyTooLarge, s.limit)
	}
	s.size += n
	return nil
}

func (s *turnSink) Text(b []byte) (bool, error) {
	if s.stop {
		return true, nil
	}
	if err := s.admit(len(b)); err != nil {
		return true, err
	}
	s.raw.Write(b)
	s.live.delta(event.TypeText, b)
	calls := s.calls
	start := time.Now()
	_, err := s.p.Write(b)
	s.parsing += time.Since(start)
	if err != nil {
		return true, err
	}
	switch {
	case s.calls > calls:
		// A call ended in this piece, at its last closing bracket or
		// brace most likely: what follows that came after the call.
		end := max(bytes.LastIndexByte(b, '}'), bytes.LastIndexByte(b, '>'), bytes.LastIndexByte(b, ']'))
		s.tail = append(s.tail[:0], b[end+1:]...)
		s.stop = s.stop || talksOn(s.tail)
	case s.calls > 0 && !s.stop:
		// The parser writes prose out late (it waits for a marker or a
		// long run), so whether the model went on talking after its call
		// is judged here, from the bytes that came since.
		s.tail = append(s.tail, b...)
		s.stop = talksOn(s.tail)
	}
	return s.stop, nil
}

// talksOn reports whether the text after a call is the model going on
// with prose (inventing the result, say) rather than closing tokens,
// space, or what may be the start of another call.
func talksOn(tail []byte) bool {
	rest, partial := parse.TrimClosing(tail)
	if partial || len(rest) == 0 {
		return false
	}
	// Another call may be starting; the parser will tell.
	switch rest[0] {
	case '<', '{', '[', '`':
		return false
	}
	return true
}

func (s *turnSink) Reasoning(b []byte) error {
	if err := s.admit(len(b)); err != nil {
		return err
	}
	s.live.delta(event.TypeReasoning, b)
	start := time.Now()
	defer func() { s.parsing += time.Since(start) }()
	return s.p.WriteReasoning(b)
}

func (s *turnSink) NativeCall(id, name string, args []byte) (bool, error) {
	if err := s.admit(len(id) + len(name) + len(args)); err != nil {
		return true, err
	}
	c := turnCall{Call: tools.Call{ID: id, Name: name, Arguments: argumentText(args)}}
	s.reading = &c
	start := time.Now()
	err := s.p.NativeCall(id, name, args)
	s.parsing += time.Since(start)
	s.reading = nil
	if err != nil {
		return true, err
	}
	if c.ID == "" {
		// Unread, and unnamed by the server: the reply to it needs an
		// id all the same.
		c.ID = "call_unread_" + strconv.Itoa(len(s.turn)+1)
	}
	s.native = append(s.native, c)
	s.turn = append(s.turn, c)
	return s.stop, nil
}

// argumentText is a native call's arguments as the server wrote them: the
// text of a JSON string (OpenAI's shape), else the JSON value itself.
func argumentText(args []byte) []byte {
	args = bytes.TrimSpace(args)
	if len(args) > 0 && args[0] == '"' {
		if v := gjson.ParseBytes(args); v.Type == gjson.String {
			return []byte(v.Str)
		}
	}
	return bytes.Clone(args)
}

// close parses what is left of the turn.
func (s *turnSink) close() error {
	s.live.flush()
	stopped := s.stop
	start := time.Now()
	err := s.p.Close()
	s.parsing += time.Since(start)
	if err != nil {
		return err
	}
	s.stop = stopped
	return nil
}

// said is a piece of a turn: text, or a call.
type said struct {
	text string
	call *tools.Call
}

// history is the turn as the model will see it in the conversation: its
// text, and its calls written out whole in the style it was taught. What
// was read may end inside a closing tag, or in the first words of an
// invented result, where reading stopped; neither should go back to it.
func (s *turnSink) history(style *catalog.Style) string {
	var b []byte
	for _, p := range s.said {
		if p.call == nil {
			b = append(b, p.text...)
			continue
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		b = style.AppendCall(b, p.call.Name, p.call.Arguments)
	}
	return strings.TrimRight(string(b), "\n")
}
