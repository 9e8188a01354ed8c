package run

import (
	"bytes"
	"strings"

	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
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
	events   [][]byte     // parse's events, as lines
	prose    bytes.Buffer // the text events, for an answer without protocol
	native   []tools.Call // calls the server parsed itself
	final    *string      // the final answer, once seen
	calls    int          // tool_call events
	parseErr string       // the first parse error

	// stop is set when the turn has what it needs (see emit and Text).
	stop bool
}

// knownTool, when not nil, names the catalog's tools: a bare call to one
// of them counts even after prose (parse.Options.KnownTool).
func newTurnSink(firstID int, parallel bool, knownTool func(string) bool) *turnSink {
	s := &turnSink{parallel: parallel}
	// An unknown format is impossible here: Options has none.
	s.p, _ = parse.NewParser(parse.Options{FirstID: firstID, KnownTool: knownTool}, s.emit)
	return s
}

// emit receives parse's events.
func (s *turnSink) emit(e *parse.Event) error {
	switch e.Type {
	case tools.TypeToolCall:
		s.said = append(s.said, said{call: &tools.Call{Name: e.Call.Name, Arguments: bytes.Clone(e.Call.Arguments)}})
		s.calls++
		if !s.parallel {
			s.stop = true
		}
	case tools.TypeFinalAnswer:
		f := string(e.Content)
		s.final = &f
		s.stop = true
	case tools.TypeText:
		if s.calls > 0 && strings.TrimSpace(string(e.Content)) != "" {
			// The model talks on after its call: stop, and leave out
			// what it invented.
			s.stop = true
			return nil
		}
		s.prose.Write(e.Content)
		s.said = append(s.said, said{text: string(e.Content)})
	case tools.TypeParseError:
		if s.parseErr == "" {
			s.parseErr = e.Error
		}
	}
	if s.stop && e.Type == tools.TypeText {
		return nil
	}
	s.events = append(s.events, e.AppendJSON(nil))
	return nil
}

func (s *turnSink) Text(b []byte) (bool, error) {
	if s.stop {
		return true, nil
	}
	s.raw.Write(b)
	calls := s.calls
	if _, err := s.p.Write(b); err != nil {
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

// closers are what may follow a call before another call or the end of
// the turn: closing tags and end-of-turn tokens.
var closers = []string{"</tool_call>", "</tool_calls>", "</function>", "</invoke>", "</function_calls>",
	"<|tool_call_end|>", "<|tool_calls_section_end|>", "<|eom_id|>", "<|eot_id|>", "<|im_end|>",
	"<end_of_turn>", "</s>", "[/TOOL_CALLS]", "```", "<|end|>", "<|call|>"}

// talksOn reports whether the text after a call is the model going on
// with prose (inventing the result, say) rather than closers, space, or
// what may be the start of another call.
func talksOn(tail []byte) bool {
	rest := bytes.TrimLeft(tail, " \t\r\n")
	for len(rest) > 0 {
		closed := false
		for _, c := range closers {
			switch {
			case bytes.HasPrefix(rest, []byte(c)):
				rest, closed = bytes.TrimLeft(rest[len(c):], " \t\r\n"), true
			case bytes.HasPrefix([]byte(c), rest):
				return false // a closer, maybe: wait for the rest
			}
			if closed {
				break
			}
		}
		if !closed {
			break
		}
	}
	if len(rest) == 0 {
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
	return s.p.WriteReasoning(b)
}

func (s *turnSink) NativeCall(id, name string, args []byte) (bool, error) {
	s.native = append(s.native, tools.Call{ID: id, Name: name, Arguments: bytes.Clone(args)})
	if err := s.p.NativeCall(id, name, args); err != nil {
		return true, err
	}
	return s.stop, nil
}

// close parses what is left of the turn.
func (s *turnSink) close() error {
	stopped := s.stop
	if err := s.p.Close(); err != nil {
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
func (s *turnSink) history(style string) string {
	var b strings.Builder
	for _, p := range s.said {
		if p.call == nil {
			b.WriteString(p.text)
			continue
		}
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		call := tools.AppendString([]byte(`{"name":`), p.call.Name)
		call = append(append(append(call, `,"arguments":`...), p.call.Arguments...), '}')
		switch style {
		case "xml":
			b.WriteString("<tool_call>\n" + string(call) + "\n</tool_call>\n")
		case "markdown":
			b.WriteString("```json\n" + string(call) + "\n```\n")
		default:
			b.WriteString(`{"type":"tool_call",` + string(call[1:]) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
