package parse

// Writing events out: the pending text of a mode as text or reasoning,
// parse errors, and calls normalized and numbered.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// flushMode emits the pending text of the current mode up to end.
func (p *Parser) flushMode(end int, final bool) error {
	switch p.mode {
	case modeReasoning:
		if from := p.notPrompt(p.seg, end); len(bytes.TrimSpace(p.buf[from:end])) > 0 {
			if err := p.put(event.TypeReasoning, p.buf[from:end], p.reasonFormat); err != nil {
				return err
			}
		}
		p.seg = end
	case modeAnswer:
		if final {
			if err := p.put(event.TypeFinalAnswer, p.buf[p.seg:end], p.reasonFormat); err != nil {
				return err
			}
			p.seg = end
		}
	default:
		return p.flushText(end)
	}
	return nil
}

// flushText emits buf[seg:end] as a text event, unless it is only
// whitespace between blocks.
func (p *Parser) flushText(end int) error {
	if end <= p.seg {
		return nil
	}
	if end == p.seg+1 && p.buf[p.seg] == '\n' {
		// The end of a line between two calls, the text dense calls
		// have most of: layout, as below, for less.
		p.seg = end
		return nil
	}
	text := p.buf[p.notPrompt(p.seg, end):end]
	p.seg = end
	// Whitespace between blocks is layout, not prose; so is the ';'
	// between Llama 3 calls, and the ',' between values in a row.
	if layout(text, p.written || p.section != "") {
		return nil
	}
	if p.section != "" && bytes.IndexByte(text, '<') >= 0 {
		// Markup inside a call section is a call written wrong (an
		// <invoke> without its name), never prose.
		return p.fail(end-len(text), end, p.section, "markup inside a tool-call section that is not a call: write each call in the section as the format's call syntax, with its name")
	}
	p.written = true
	p.prose = true
	return p.put(event.TypeText, text, "")
}

// layout reports whether text is only whitespace (bytes.TrimSpace's), or,
// with seps, only ' ', '\t', '\r', '\n', ';' and ','. It is flushText's
// test, made for the short texts between calls: one pass, no set built.
func layout(text []byte, seps bool) bool {
	sep, vf := false, false
	for _, c := range text {
		switch c {
		case ' ', '\t', '\r', '\n':
		case '\v', '\f':
			vf = true
		case ';', ',':
			sep = true
		default:
			if c < utf8.RuneSelf {
				return false
			}
			// Unicode spaces are TrimSpace's, and never seps.
			return !sep && len(bytes.TrimSpace(text)) == 0
		}
	}
	return !sep || seps && !vf
}

// notPrompt returns where the model's own text starts in buf[from:end]:
// past the prompt's tail (Syntax.Prompt), which is not the model's text.
func (p *Parser) notPrompt(from, end int) int {
	if p.base < 0 {
		return min(max(from, int(-p.base)), end)
	}
	return from
}

// flushBlock emits the prose before the block being parsed, so that
// events come out in the order of the text.
func (p *Parser) flushBlock() error {
	if p.mode == modeProse && p.seg < p.blockStart && p.blockStart <= p.pos {
		return p.flushText(p.blockStart)
	}
	return nil
}

// put emits a content event.
func (p *Parser) put(typ string, content []byte, format string) error {
	if typ != event.TypeText {
		if err := p.flushBlock(); err != nil {
			return err
		}
		p.written = true
	}
	p.ev = Event{Type: typ, Content: content, Format: format}
	return p.emit(&p.ev)
}

// fail emits a parse_error for the block at buf[start:end].
func (p *Parser) fail(start, end int, format, msg string) error {
	// With known tools, markup a family could not read may still read as
	// a common shape (generic_block.go): those calls stand instead.
	if p.opts.KnownTool != nil && !p.inGeneric {
		if done, err := p.genericInstead(start, end); done {
			return err
		}
	}
	if err := p.flushBlock(); err != nil {
		return err
	}
	p.written = true
	p.calls++
	raw := clip.Prefix(p.buf[start:end], maxRaw)
	p.ev = Event{Type: event.TypeParseError, Error: msg, Raw: raw, Offset: max(0, p.base+int64(start)), Format: format}
	return p.emit(&p.ev)
}

// emitCall normalizes one call and emits it, or a parse_error when its
// arguments are not an object. raw is the model's text for the call, for
// the error; repairs, what repairing it changed so far (the arguments'
// own decoding may add more).
func (p *Parser) emitCall(id, name string, args []byte, format string, repairs repairSet, offset int64, raw []byte) error {
	// The transcoder tells jsonCalls and namedJSON whether any number had
	// an exponent; arguments it gave as an object need no second look.
	noExp := p.noExp && len(args) > 0 && args[0] == '{'
	flat := p.flatArgs && len(args) > 0 && args[0] == '{'
	p.noExp, p.flatArgs = false, false
	repairs |= p.closerRepairs
	if err := p.flushBlock(); err != nil {
		return err
	}
	p.written = true
	p.calls++
	offset = max(0, offset) // a block the prompt's tail began
	obj, argRepairs, err := args, repairSet(0), error(nil)
	if !flat {
		obj, argRepairs, err = p.argumentsObject(args)
	}
	if err != nil {
		raw = clip.Prefix(raw, maxRaw)
		msg := fmt.Sprintf("call to %q: %v", name, err)
		if name == "" {
			msg = err.Error()
		}
		p.ev = Event{Type: event.TypeParseError, Error: msg, Raw: raw, Offset: offset, Format: format}
		return p.emit(&p.ev)
	}
	if name == "" {
		p.ev = Event{Type: event.TypeParseError, Error: "tool call without a name: write the tool's name in the call", Raw: raw, Offset: offset, Format: format}
		return p.emit(&p.ev)
	}
	if p.closerRepairs != 0 && p.opts.NoRepair {
		p.ev = Event{Type: event.TypeParseError, Error: fmt.Sprintf("call to %q: its end marker lacks its final '>'; close the call with its whole end marker", name), Raw: clip.Prefix(raw, maxRaw), Offset: offset, Format: format}
		return p.emit(&p.ev)
	}
	if name == p.plainName {
		// Looked through before.
	} else if holdsSpecialToken(name) {
		// A special token in the name is the model's markup leaking in
		// (Glimmer's name="read<|message|>"), never a tool's name.
		p.ev = Event{Type: event.TypeParseError, Error: fmt.Sprintf("call to %q: a tool name holds no special token (<|…|>); write the tool's name alone", name), Raw: clip.Prefix(raw, maxRaw), Offset: offset, Format: format}
		return p.emit(&p.ev)
	} else if name == p.lastName {
		p.plainName = p.lastName
	}
	if flat {
		// Read by leanObject: no number, depth or escape to look at.
	} else if num := outOfRangeUnless(noExp, obj); num != nil {
		// Every consumer would read infinity: not what the model meant.
		if len(raw) > maxRaw {
			raw = raw[:maxRaw]
		}
		p.ev = Event{Type: event.TypeParseError, Error: fmt.Sprintf("call to %q: number %s out of range: write a number a float64 can hold, or a string", name, clip.Prefix(num, 64)), Raw: raw, Offset: offset, Format: format}
		return p.emit(&p.ev)
	} else if argsTooDeep(obj) {
		// Tools refuse such arguments, and common JSON readers cannot
		// read a line holding them.
		p.ev = Event{Type: event.TypeParseError, Error: fmt.Sprintf("call to %q: arguments nested deeper than %d levels; write them flatter", name, maxArgDepth), Raw: clip.Prefix(raw, maxRaw), Offset: offset, Format: format}
		return p.emit(&p.ev)
	} else if fixed, ok := fixLoneSurrogates(obj); ok {
		if p.opts.NoRepair {
			p.ev = Event{Type: event.TypeParseError, Error: fmt.Sprintf(`call to %q: a string holds a \u escape of half a surrogate pair, which is no character; write the character itself, or both halves (\ud83d\ude00)`, name), Raw: clip.Prefix(raw, maxRaw), Offset: offset, Format: format}
			return p.emit(&p.ev)
		}
		obj = fixed
		argRepairs |= repairLoneSurrogate
	}
	p.nextID++
	if id == "" {
		id = p.numberedID(p.nextID)
		// Never reuse an id the model gave to another call.
		for n := 2; p.modelIDs != nil && p.modelIDs[id]; n++ {
			id = numberedPrefix + strconv.Itoa(p.nextID) + "_" + strconv.Itoa(n)
		}
	} else if strings.HasPrefix(id, numberedPrefix) {
		if p.modelIDs == nil {
			p.modelIDs = make(map[string]bool)
		}
		p.modelIDs[id] = true
	}
	repairs |= argRepairs
	// Filled in place: an Event literal, a large one, would be built
	// beside p.ev and copied into it, for every call.
	e := &p.ev
	*e = Event{}
	e.Type = tools.TypeToolCall
	c := &e.Call
	c.ID, c.Name, c.Arguments, c.Format = id, name, obj, format
	c.Repaired, c.Repairs = repairs != 0, p.repairNames(repairs)
	return p.emit(e)
}

// repairNames returns the names of the kinds in s, for Call.Repairs.
func (p *Parser) repairNames(s repairSet) []string {
	if s != p.lastRepairs {
		p.lastRepairs, p.lastRepairNames = s, s.Names()
	}
	return p.lastRepairNames
}

// numberedPrefix starts the ids calls are numbered with: call_1, call_2, ...
const numberedPrefix = "call_"

// idBatch is how many call ids numberedID makes at a time.
const idBatch = 64

// firstBatch is how many numberedID makes the first time: most outputs
// hold a call or two, and a Parser per response would make 64 ids for one.
const firstBatch = 4

// numberedID returns "call_n". The ids are cut from one string made for
// idBatch calls at a time: one allocation there instead of one per call,
// which shows in dense calls. A kept id keeps that string (~700 bytes) alive.
func (p *Parser) numberedID(n int) string {
	k := n - p.idsFirst
	if p.ids == "" || k < 0 || k >= p.idsN {
		batch := idBatch
		if p.ids == "" {
			batch = firstBatch
		}
		b := p.idBuf[:0]
		var digits [20]byte
		d := strconv.AppendInt(digits[:0], int64(n), 10)
		p.idsN = batch
		for j := range batch {
			b = append(append(b, numberedPrefix...), d...)
			p.idEnds[j] = len(b)
			d = countUp(d, int64(n+j+1))
		}
		p.idBuf = b
		p.ids, p.idsFirst, k = string(b), n, 0
	}
	start := 0
	if k > 0 {
		start = p.idEnds[k-1]
	}
	return p.ids[start:p.idEnds[k]]
}

// countUp returns the decimal digits of next, given d, those of next-1:
// counted up in place, which is cheaper than formatting next anew.
func countUp(d []byte, next int64) []byte {
	if next <= 0 {
		return strconv.AppendInt(d[:0], next, 10)
	}
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] != '9' {
			d[i]++
			return d
		}
		d[i] = '0'
	}
	d[0] = '1' // 99 was 00: now 10, and one more 0
	return append(d, '0')
}
