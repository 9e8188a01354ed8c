package parse

// gpt-oss's harmony messages, where a header naming the channel and the
// recipient, not a marker, says whether the body is reasoning, answer or call.

import (
	"bytes"
	"fmt"
	"unicode"

	"github.com/toolcall/toolcall/tools/event"
)

// harmony handles gpt-oss messages: a header up to <|message|> naming the
// channel and, for a call, the recipient (to=functions.NAME), then the body
// up to <|call|>, <|end|> or <|return|>. analysis is reasoning, final is
// the answer, commentary to a function is a call.
func (p *Parser) harmony(i, j int, eof bool) (int, status, error) {
	const msg = "<|message|>"
	h := p.indexWithin(j, msg, 512)
	if h < 0 || h-j > 512 {
		if h < 0 && !eof && len(p.buf)-j < 512 {
			p.waitForWithin("<", max(j, len(p.buf)-len(msg)+1), j+512)
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	// The template may have written the start of the header: the output
	// then begins with " to=functions.NAME" before <|channel|>.
	if s, ok := p.harmonyHead(i); ok && bytes.HasPrefix(bytes.TrimSpace(p.buf[s:i]), []byte("to=")) {
		i = s
		p.blockStart = s
	}
	return p.harmonyMessage(i, p.buf[i:h], h+len(msg), eof)
}

// harmonyContinued handles a <|message|> whose header the chat template
// wrote: the output starts with "final", "analysis" or "commentary
// to=functions.NAME …" right before it.
func (p *Parser) harmonyContinued(i, j int, eof bool) (int, status, error) {
	s, ok := p.harmonyHead(i)
	if !ok {
		return p.bareMessage(i, j, eof)
	}
	head := bytes.TrimSpace(p.buf[s:i])
	word := head
	if e := bytes.IndexAny(head, " <"); e >= 0 {
		word = head[:e]
	}
	switch string(word) {
	case "final", "analysis", "commentary":
		head = append([]byte("<|channel|>"), head...)
	default:
		if !bytes.HasPrefix(head, []byte("to=")) {
			return 0, noMatch, nil
		}
	}
	p.blockStart = s
	return p.harmonyMessage(s, head, j, eof)
}

// harmonyHead returns where a header fragment at the start of the output
// begins, when everything before buf[i] is one short line of it.
func (p *Parser) harmonyHead(i int) (int, bool) {
	if !p.atOutputStart() || i-p.seg > lookAhead {
		return 0, false
	}
	pre := p.buf[p.seg:i]
	if len(bytes.TrimSpace(pre)) == 0 || bytes.ContainsAny(bytes.TrimSpace(pre), "\n{}") {
		return 0, false
	}
	return p.seg + len(pre) - len(bytes.TrimLeft(pre, " \t\r\n")), true
}

// atOutputStart reports whether nothing but layout and skipped tokens
// came before the text at p.seg, where a header the chat template began
// may end. It asks where that text starts in the whole output, not in the
// buffer, so that how the input was cut up cannot decide it.
func (p *Parser) atOutputStart() bool {
	return !p.written && p.mode == modeProse && p.base+int64(p.seg) <= lookAhead
}

// harmonyMessage parses the message that starts at buf[i] with header and
// whose body starts at buf[b].
func (p *Parser) harmonyMessage(i int, header []byte, b int, eof bool) (int, status, error) {
	channel := ""
	if c := bytes.Index(header, []byte("<|channel|>")); c >= 0 {
		// The first word after it, up to a special token: as
		// bytes.Fields and SplitN would cut it, without their slices.
		f := header[c+len("<|channel|>"):]
		if s := bytes.IndexFunc(f, notSpace); s >= 0 {
			f = f[s:]
			if e := bytes.IndexFunc(f, unicode.IsSpace); e >= 0 {
				f = f[:e]
			}
			if e := bytes.Index(f, []byte("<|")); e >= 0 {
				f = f[:e]
			}
			channel = string(f)
		}
	}
	recipient := ""
	if t := bytes.Index(header, []byte("to=")); t >= 0 {
		r := header[t+3:]
		if e := bytes.IndexAny(r, " <"); e >= 0 {
			r = r[:e]
		}
		recipient = string(bytes.TrimPrefix(r, []byte("functions.")))
	}
	e, _ := p.firstOf(b, "<|call|>", "<|end|>", "<|return|>", "<|start|>", "<|channel|>", "<|eom|>", "<|eot|>")
	end := e
	if e < 0 {
		if !eof {
			// Every end token starts with '<'; the longest is 11 bytes.
			p.waitFor("<", max(b, len(p.buf)-len("<|channel|>")+1))
			return 0, needMore, nil
		}
		e, end = len(p.buf), len(p.buf)
	} else {
		for _, t := range []string{"<|call|>", "<|end|>", "<|return|>", "<|eom|>", "<|eot|>"} {
			if bytes.HasPrefix(p.buf[e:], []byte(t)) {
				end = e + len(t)
			}
		}
	}
	body := p.buf[b:e]
	switch {
	case recipient != "self" && bytes.HasPrefix(bytes.TrimSpace(body), []byte("<atem:")) && (recipient != "user" || p.glimmerKnown(body)):
		// Muse Glimmer's calls: ATEM markup, read as it comes after the
		// header (the <atem:…> markers), whoever the message is to.
		if !p.allowed(FormatGlimmer) {
			return 0, noMatch, nil
		}
		if err := p.flushText(i); err != nil {
			return 0, 0, err
		}
		return b, matched, nil
	case channel == "" && (recipient == "self" || recipient == "user"):
		// Muse Glimmer addresses its reasoning to itself and its answer
		// to the user.
		if !p.allowed(FormatGlimmer) {
			return 0, noMatch, nil
		}
		if recipient == "self" {
			return end, matched, p.put(event.TypeReasoning, body, FormatGlimmer)
		}
		return end, matched, p.put(event.TypeFinalAnswer, body, FormatGlimmer)
	case recipient != "":
		k := p.skipSpace(b)
		if k >= e {
			// No arguments at all: missing arguments are {}, as
			// everywhere (vLLM's gpt-oss tests send a tool so).
			return end, matched, p.emitCall("", recipient, []byte("{}"), FormatHarmony, 0, p.base+int64(i), p.buf[i:end])
		}
		if p.buf[k] != '{' {
			return end, matched, p.fail(i, e, FormatHarmony, fmt.Sprintf("call to %q: the message body must be a JSON object of arguments", recipient))
		}
		je, complete := p.jsonEnd(k, false)
		if !complete || je > e {
			je = e
			p.readStray(k, e) // a stray quote's string ran on past the message
		}
		// The message ends the call: text before its end is the call's.
		if len(bytes.TrimSpace(p.buf[je:e])) > 0 {
			if msg := p.readBody(k, e); msg != "" {
				return end, matched, p.fail(i, e, FormatHarmony, fmt.Sprintf("call to %q: %s", recipient, msg))
			}
			je = e
		}
		return end, matched, p.namedCall(i, k, je, recipient, FormatHarmony)
	case channel == "analysis":
		return end, matched, p.put(event.TypeReasoning, body, FormatHarmony)
	case channel == "final":
		return end, matched, p.put(event.TypeFinalAnswer, body, FormatHarmony)
	}
	// commentary without a recipient: a preamble to the user; an empty
	// one says nothing.
	if err := p.flushText(i); err != nil {
		return 0, 0, err
	}
	if len(body) == 0 {
		return end, matched, nil
	}
	p.ev = Event{Type: event.TypeText, Content: body}
	p.written = true
	return end, matched, p.emit(&p.ev)
}

func notSpace(r rune) bool { return !unicode.IsSpace(r) }
