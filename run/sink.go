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
	said     []said       // what counts of it: kept text and calls, in order
	events   [][]byte     // parse's events, as lines
	prose    bytes.Buffer // the text events, for an answer without protocol
	native   []tools.Call // calls the server parsed itself
	final    *string      // the final answer, once seen
	calls    int          // tool_call events
	parseErr string       // the first parse error

	// stop is set by the parser's events; afterCall counts text events
	// after the last call.
	stop      bool
	afterCall bool
	err       error
}

func newTurnSink(firstID int, parallel bool) *turnSink {
	s := &turnSink{parallel: parallel}
	// An unknown format is impossible here: Options{} has none.
	s.p, _ = parse.NewParser(parse.Options{FirstID: firstID}, s.emit)
	return s
}

// emit receives parse's events.
func (s *turnSink) emit(e *parse.Event) error {
	switch e.Type {
	case tools.TypeToolCall:
		s.said = append(s.said, said{call: &tools.Call{Name: e.Call.Name, Arguments: bytes.Clone(e.Call.Arguments)}})
		s.calls++
		s.afterCall = true
		if !s.parallel {
			s.stop = true
		}
	case tools.TypeFinalAnswer:
		f := string(e.Content)
		s.final = &f
		s.stop = true
	case tools.TypeText:
		if s.afterCall && strings.TrimSpace(string(e.Content)) != "" {
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
	if _, err := s.p.Write(b); err != nil {
		return true, err
	}
	return s.stop, nil
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
