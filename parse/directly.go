package parse

import (
	"github.com/toolcall/toolcall/tools/event"
)

// Command R and R+'s tool-use template offers, beside the caller's tools,
// a pseudo-tool the model "calls" to say that it needs no tool and will
// answer itself: directly_answer (the template's instructions and some
// fine-tunes spell it directly-answer). Cohere's own tooling never runs
// it: langchain-cohere's agent gives it no result and asks again without
// tools, kani's Command R engine drops it beside real calls and asks for
// the answer when it is alone.
const (
	directlyAnswer       = "directly_answer"
	directlyAnswerHyphen = "directly-answer"
)

// directlyAnswer reports whether c is Command R's directly_answer
// pseudo-call: in a Command R family's action list, under that name, and
// no tool of either spelling is known (a real tool of that name is
// called like any other).
func (p *Parser) directlyAnswer(c *candidate) bool {
	if c.format != FormatCommandRAction && c.format != FormatCommandR7B {
		return false
	}
	if c.name != directlyAnswer && c.name != directlyAnswerHyphen {
		return false
	}
	known := p.opts.KnownTool
	return known == nil || !known(directlyAnswer) && !known(directlyAnswerHyphen)
}

// putDirectlyAnswer writes the pseudo-call c, read from out, as what it
// is: not a call but the model's word that it will answer, kept as a text
// event in the format it came in (plain prose has none), so that nothing
// the model said is lost and run knows to ask for the answer. It takes
// no call id.
func (p *Parser) putDirectlyAnswer(out []byte, c *candidate) error {
	if err := p.flushBlock(); err != nil {
		return err
	}
	p.written = true
	p.calls++ // the block held a call of its syntax: its late closer is dropped
	text := []byte(`{"tool_name":"` + c.name + `","parameters":{}}`)
	if 0 <= c.start && c.start < c.end && c.end <= len(out) {
		text = out[c.start:c.end]
	}
	p.ev = Event{Type: event.TypeText, Content: text, Format: c.format}
	return p.emit(&p.ev)
}

// IsDirectlyAnswer reports whether e is Command R's directly_answer
// pseudo-call, which parse writes as a text event with the format it came
// in: the model says it will answer without a tool.
func IsDirectlyAnswer(e *Event) bool {
	return e.Type == event.TypeText && (e.Format == FormatCommandRAction || e.Format == FormatCommandR7B)
}
