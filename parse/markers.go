package parse

import (
	"bytes"
	"fmt"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools/event"
)

// needOrNot is what a handler returns when the buffer ends early: wait for
// more input, or at the end of input decide it was not a marker.
func needOrNot(eof bool) (int, status, error) {
	if eof {
		return 0, noMatch, nil
	}
	return 0, needMore, nil
}

// bracket handles a '[' that is not [TOOL_CALLS] or [THINK]: Phi-4 and
// FireFunction's functools[…], a JSON array in a call section, an xLAM
// array of calls or a pythonic list on a line of its own.
func (p *Parser) bracket(i int, eof bool) (int, status, error) {
	const ft = "functools"
	if i >= len(ft) && string(p.buf[i-len(ft):i]) == ft && i-len(ft) >= p.seg {
		format := FormatPhi4Mini
		start := i - len(ft)
		if start > p.seg && p.buf[start-1] == ' ' {
			format, start = FormatFireFunction, start-1
		}
		if !p.allowed(format) {
			return 0, noMatch, nil
		}
		return p.prefixedJSON(start, i, eof, "", format)
	}
	if p.section != "" {
		// Inside a family's call section a list is calls, Python-style
		// or JSON, whichever the model wrote there.
		k := p.skipSpace(i + 1)
		if k >= len(p.buf) {
			return needOrNot(eof)
		}
		if isIdentByte(p.buf[k], true) && p.allowed(p.section) {
			return p.pyList(i, i, eof, p.section, false)
		}
		return p.bareJSON(i, eof)
	}
	if !p.atLineStart(i) {
		if p.opts.KnownTool != nil && p.allowed(FormatPythonic) {
			return p.knownPyList(i, eof)
		}
		return 0, noMatch, nil
	}
	k := p.skipSpace(i + 1)
	if k >= len(p.buf) {
		return needOrNot(eof)
	}
	switch {
	case p.buf[k] == '{':
		return p.bareJSON(i, eof)
	case isIdentByte(p.buf[k], true):
		if !p.allowed(FormatPythonic) {
			return 0, noMatch, nil
		}
		return p.pyList(i, i, eof, FormatPythonic, true)
	}
	return 0, noMatch, nil
}

// mistral handles [TOOL_CALLS]: a JSON array of calls (v0.3, Nemo) or,
// from v11 on, NAME[ARGS]{…} with an optional [CALL_ID]id.
func (p *Parser) mistral(i, j int, eof bool) (int, status, error) {
	k := p.skipSpace(j)
	if k >= len(p.buf) {
		return needOrNot(eof)
	}
	if c := p.buf[k]; c == '[' || c == '{' {
		if !p.allowed(FormatMistral) {
			return 0, noMatch, nil
		}
		end, complete := p.jsonEnd(k, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		return p.markedJSON(i, k, end, complete, eof, "", FormatMistral)
	}
	if !p.allowed(FormatMistralV11) {
		return 0, noMatch, nil
	}
	e, _ := p.firstOf(k, "[ARGS]", "[CALL_ID]", "{")
	if e < 0 || e-k > lookAhead {
		if _, miss := p.ahead(k, eof); e < 0 {
			return 0, miss, nil
		}
		return 0, noMatch, nil
	}
	name := bytes.TrimSpace(p.buf[k:e])
	if len(name) == 0 || bytes.ContainsAny(name, " \n{}[]") {
		return 0, noMatch, nil
	}
	b := e
	if ok, _ := p.hasPrefixAt(b, "[CALL_ID]"); ok {
		a := p.indexAt(b, "[ARGS]")
		if a < 0 {
			return needOrNot(eof)
		}
		b = a
	}
	if ok, _ := p.hasPrefixAt(b, "[ARGS]"); ok {
		b += len("[ARGS]")
	}
	return p.namedArgs(i, b, eof, string(name), FormatMistralV11, "")
}

// functionary handles Functionary v3.2's >>>NAME\n{…}; >>>all\n is prose
// and >>>python\n is code for a python tool.
func (p *Parser) functionary(i int, eof bool) (int, status, error) {
	ok, partial := p.hasPrefixAt(i, ">>>")
	if !ok {
		if partial && !eof {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	if !p.allowed(FormatFunctionary) {
		return 0, noMatch, nil
	}
	k := i + 3
	n := k
	for n < len(p.buf) && isIdentByte(p.buf[n], n == k) {
		n++
	}
	if n >= len(p.buf) || n == k {
		if n >= len(p.buf) && !eof && n-k < 128 {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	if p.buf[n] != '\n' {
		return 0, noMatch, nil
	}
	name := string(p.buf[k:n])
	switch name {
	case "all":
		return n + 1, matched, nil
	case "python":
		e := p.indexAt(n+1, ">>>")
		if e < 0 {
			if !eof {
				return 0, needMore, nil
			}
			e = len(p.buf)
		}
		var a argsBuilder
		a.reset()
		a.key([]byte("code"))
		a.buf = jsonw.AppendBytes(a.buf, p.buf[n+1:e])
		return e, matched, p.emitCall("", name, a.done(), FormatFunctionary, 0, p.base+int64(i), p.buf[i:e])
	}
	return p.namedArgs(i, n+1, eof, name, FormatFunctionary, "")
}

// functionaryStart handles the first call of a Functionary v3.2 output:
// its template ends the prompt with ">>>", so the output starts with the
// name line. Only "all" and a name followed by a JSON object count.
func (p *Parser) functionaryStart(eof bool) (int, status, error) {
	if !p.allowed(FormatFunctionary) || p.base != 0 {
		return 0, noMatch, nil
	}
	s := p.pos // past a byte order mark
	n := s
	for n < len(p.buf) && n-s < 64 && isIdentByte(p.buf[n], n == s) {
		n++
	}
	if n == len(p.buf) && n-s < 64 && !eof {
		return 0, needMore, nil
	}
	if n == s || n >= len(p.buf) || p.buf[n] != '\n' {
		return 0, noMatch, nil
	}
	name := p.buf[s:n]
	forced := p.opts.Format == FormatFunctionary
	if string(name) == "all" {
		if !forced {
			return 0, noMatch, nil
		}
		return n + 1, matched, nil
	}
	// Unless forced, only a snake_case tool name counts: a first line of
	// "Sure" or "assistant" before some JSON is prose.
	if !forced && !snakeCase(name) {
		return 0, noMatch, nil
	}
	if b := p.skipSpace(n + 1); b >= len(p.buf) {
		return needOrNot(eof)
	} else if p.buf[b] != '{' {
		return 0, noMatch, nil
	}
	p.blockStart = s
	return p.namedArgs(s, n+1, eof, string(name), FormatFunctionary, "")
}

// snakeCase reports whether name looks like a tool name: lower case words
// joined by underscores.
func snakeCase(name []byte) bool {
	under := false
	for _, c := range name {
		switch {
		case c == '_':
			under = true
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return under && name[0] != '_'
}

// gigaChat handles "function call<|role_sep|>\n{…}".
func (p *Parser) gigaChat(i, j int, eof bool) (int, status, error) {
	const prefix = "function call"
	start := i - len(prefix)
	if start < p.seg || string(p.buf[start:i]) != prefix {
		return 0, noMatch, nil
	}
	k := p.skipSpace(j)
	if k >= len(p.buf) {
		return needOrNot(eof)
	}
	if p.buf[k] != '{' {
		return 0, noMatch, nil
	}
	return p.prefixedJSON(start, k, eof, "", FormatGigaChat3)
}

// prefixedJSON reads the JSON calls at buf[k] of a block whose marker
// starts at buf[start], before the trigger byte the block was found at
// (functools[, "function call<|role_sep|>", "-> tool/function_call"): the
// text from start is the call's, never prose.
func (p *Parser) prefixedJSON(start, k int, eof bool, closer, format string) (int, status, error) {
	end, complete := p.jsonEnd(k, false)
	if !complete && !eof {
		return 0, needMore, nil
	}
	trigger := p.blockStart
	p.blockStart = start
	e, st, err := p.markedJSON(start, k, end, complete, eof, closer, format)
	if st == noMatch {
		p.blockStart = trigger
	}
	return e, st, err
}

// kimiCall handles Kimi K2's
// <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>.
func (p *Parser) kimiCall(i, j int, eof bool) (int, status, error) {
	const argBegin = "<|tool_call_argument_begin|>"
	e := p.indexWithin(j, argBegin, 512)
	if e < 0 || e-j > 512 {
		if e < 0 && !eof && len(p.buf)-j < 512 {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	name := bytes.TrimSpace(p.buf[j:e])
	name = bytes.TrimPrefix(name, []byte("functions."))
	if c := bytes.LastIndexByte(name, ':'); c >= 0 {
		name = name[:c]
	}
	return p.kimiArgs(i, e+len(argBegin), eof, name)
}

// pythonTag handles Llama 3.x <|python_tag|>: JSON calls separated by ';',
// or a built-in tool call brave_search.call(query="…").
func (p *Parser) pythonTag(i, j int, eof bool) (int, status, error) {
	k := p.skipSpace(j)
	if k >= len(p.buf) {
		return needOrNot(eof)
	}
	if p.buf[k] == '{' {
		if !p.allowed(FormatLlama3JSON) {
			return 0, noMatch, nil
		}
		end, complete := p.jsonEnd(k, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		return p.markedJSON(i, k, end, complete, eof, "", FormatLlama3JSON)
	}
	if !isIdentByte(p.buf[k], true) || !p.allowed(FormatLlama3Builtin) {
		return 0, noMatch, nil
	}
	var a argsBuilder
	name, end, st, perr := p.pyCall(k, eof, &a)
	switch {
	case st != matched:
		return 0, st, nil
	case perr != nil:
		stop := perr.at
		if perr.cut {
			stop = len(p.buf)
		}
		return stop, matched, p.fail(i, stop, FormatLlama3Builtin, perr.msg)
	}
	name = bytes.TrimSuffix(name, []byte(".call"))
	return end, matched, p.emitCall("", string(name), a.done(), FormatLlama3Builtin, a.repairs, p.base+int64(i), p.buf[i:end])
}

// fullwidthName reads a DeepSeek-style special token <｜…｜> at buf[i] and
// returns its name with the spelling variants models produce folded
// together: "tool▁calls▁begin", "tool calls begin" and "tool_calls_begin"
// all come back as "tool_calls_begin".
func (p *Parser) fullwidthName(i int) (name string, end int, st status) {
	const open, closeTok = "<｜", "｜>"
	limit := min(len(p.buf), i+96)
	e := bytes.Index(p.buf[i+len(open):limit], []byte(closeTok))
	if e < 0 {
		if limit == len(p.buf) {
			return "", 0, needMore
		}
		return "", 0, noMatch
	}
	raw := p.buf[i+len(open) : i+len(open)+e]
	raw = bytes.ReplaceAll(raw, []byte("▁"), []byte("_"))
	raw = bytes.ReplaceAll(raw, []byte(" "), []byte("_"))
	return string(raw), i + len(open) + e + len(closeTok), matched
}

// fullwidthToken handles DeepSeek R1 / V3.1 and Step3 tokens.
func (p *Parser) fullwidthToken(i, j int, eof bool) (int, status, error) {
	name, end, st := p.fullwidthName(i)
	if st == needMore {
		return needOrNot(eof)
	}
	if st != matched {
		return 0, noMatch, nil
	}
	switch name {
	case "tool_calls_begin":
		if err := p.flushText(i); err != nil {
			return 0, 0, err
		}
		p.section = FormatDeepSeekR1
		return end, matched, nil
	case "tool_calls_end":
		if err := p.flushText(i); err != nil {
			return 0, 0, err
		}
		p.section = ""
		return end, matched, nil
	case "tool_call_begin":
		return p.deepseekCall(i, end, eof)
	case "tool_call_end", "tool_sep", "end_of_sentence", "Assistant", "begin_of_sentence", "tool_outputs_begin", "tool_output_begin", "tool_output_end", "tool_outputs_end":
		return end, matched, nil
	}
	return 0, noMatch, nil
}

// deepseekCall parses one call after <｜tool▁call▁begin｜>:
//
//	function<｜tool▁sep｜>NAME\n```json\n{…}\n```   DeepSeek R1
//	NAME<｜tool▁sep｜>{…}                           DeepSeek V3.1
//	function<｜tool_sep｜><steptml:invoke …>…        Step3
func (p *Parser) deepseekCall(i, j int, eof bool) (int, status, error) {
	s := p.indexWithin(j, "<｜", lookAhead)
	if s < 0 || s-j > lookAhead {
		if _, miss := p.ahead(j, eof); s < 0 {
			return 0, miss, nil
		}
		return 0, noMatch, nil
	}
	sep, k, st := p.fullwidthName(s)
	if st != matched {
		return needOrNot(eof)
	}
	if sep != "tool_sep" {
		return p.deepseekNoSep(i, j, s, k, sep)
	}
	left := bytes.TrimSpace(p.buf[j:s])
	if string(left) == "function" {
		if ok, partial := p.hasPrefixAt(k, "<steptml:invoke name="); ok || partial {
			if partial {
				return needOrNot(eof)
			}
			if !p.allowed(FormatStep3) {
				return 0, noMatch, nil
			}
			return invokeBlock(xmlStep3)(p, i, k+len("<steptml:invoke name="), eof)
		}
		if !p.allowed(FormatDeepSeekR1) {
			return 0, noMatch, nil
		}
		win, miss := p.ahead(k, eof)
		nl := bytes.IndexAny(win, "\n`{")
		if nl < 0 {
			return 0, miss, nil
		}
		name := bytes.TrimSpace(p.buf[k : k+nl])
		b := p.skipSpace(k + nl)
		if ok, partial := p.hasPrefixAt(b, "```"); ok {
			b += 3
			for b < len(p.buf) && p.buf[b] != '\n' && p.buf[b] != '{' {
				b++
			}
			b = p.skipSpace(b)
		} else if partial && !eof {
			return 0, needMore, nil
		}
		if b >= len(p.buf) {
			if eof {
				return len(p.buf), matched, p.fail(i, len(p.buf), FormatDeepSeekR1, fmt.Sprintf("call to %q has no arguments: the output ended; send the whole call again", name))
			}
			return 0, needMore, nil
		}
		if p.buf[b] != '{' {
			return 0, noMatch, nil
		}
		end, complete := p.jsonEnd(b, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		// Wait for the fence's closing ``` so that it is not read as
		// the start of a new fence.
		if c := p.skipSpace(end); !eof && (c == len(p.buf) || len(p.buf)-c < 3 && bytes.HasPrefix([]byte("```"), p.buf[c:])) {
			return 0, needMore, nil
		}
		return p.namedJSON(i, b, end, complete, eof, string(name), FormatDeepSeekR1, "```")
	}
	if !p.allowed(FormatDeepSeekV31) {
		return 0, noMatch, nil
	}
	return p.namedArgs(i, k, eof, string(left), FormatDeepSeekV31, "<｜tool▁call▁end｜>")
}

// harmony handles gpt-oss messages: a header up to <|message|> naming the
// channel and, for a call, the recipient (to=functions.NAME), then the body
// up to <|call|>, <|end|> or <|return|>. analysis is reasoning, final is
// the answer, commentary to a function is a call.
func (p *Parser) harmony(i, j int, eof bool) (int, status, error) {
	const msg = "<|message|>"
	h := p.indexWithin(j, msg, 512)
	if h < 0 || h-j > 512 {
		if h < 0 && !eof && len(p.buf)-j < 512 {
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
		f := bytes.Fields(header[c+len("<|channel|>"):])
		if len(f) > 0 {
			channel = string(bytes.SplitN(f[0], []byte("<|"), 2)[0])
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
		if k >= e || p.buf[k] != '{' {
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

// gemmaCall handles FunctionGemma's <start_function_call>call:NAME{k:<escape>v<escape>}
// and Gemma 4's <|tool_call>call:NAME{k:<|"|>v<|"|>}: keys are bare and
// strings are delimited by a token instead of quotes.
func gemmaCall(closer, format string) handler {
	delim := "<escape>"
	if format == FormatGemma4 {
		delim = `<|"|>`
	}
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		// Read every call of the block before emitting any: Gemma 4
		// writes several in one block (call:f{…}call:g{…}).
		type gemmaOut struct {
			name, args []byte
			msg        string
		}
		var calls []gemmaOut
		emit := func(calls []gemmaOut, end int) error {
			for _, c := range calls {
				var err error
				if c.msg != "" {
					err = p.fail(i, end, format, c.msg)
				} else {
					// Bare keys are this format's syntax, not a repair.
					err = p.emitCall("", string(c.name), c.args, format, 0, p.base+int64(i), p.buf[i:end])
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
		k := p.skipSpace(j)
		for {
			at := k
			if ok, partial := p.hasPrefixAt(k, ":call:"); ok || partial && !eof {
				if partial {
					return 0, needMore, nil
				}
				k++ // <|tool_call>:call: as some Gemma 4 outputs have it
			}
			ok, partial := p.hasPrefixAt(k, "call:")
			if !ok {
				if partial && !eof {
					return 0, needMore, nil
				}
				if len(calls) == 0 {
					return 0, noMatch, nil
				}
				k = at
				break
			}
			k += len("call:")
			win, miss := p.ahead(k, eof)
			ob := bytes.IndexByte(win, '{')
			if ob < 0 {
				if len(calls) > 0 && miss == noMatch {
					k = at
					break
				}
				return 0, miss, nil
			}
			name := bytes.TrimSpace(p.buf[k : k+ob])
			lenient, end := p.gemmaArgs(k+ob, delim)
			if end < 0 {
				if !eof {
					return 0, needMore, nil
				}
				// The calls before the cut one stand (rule 8).
				if err := emit(calls, len(p.buf)); err != nil {
					return 0, 0, err
				}
				return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off before its closing '}'; send the whole call again", name))
			}
			out, res, err := appendJSON(nil, lenient, false, false)
			c := gemmaOut{name: name, args: out}
			if err != nil || res.Truncated {
				c.msg = fmt.Sprintf("call to %q: arguments are not readable", name)
				if err != nil {
					c.msg = fmt.Sprintf("%s: %v", c.msg, err)
				}
			}
			calls = append(calls, c)
			k = p.skipSpace(end)
			if k >= len(p.buf) && !eof {
				return 0, needMore, nil
			}
		}
		// Text before the block's end marker is the block's.
		body, after, st := p.bodyEnd(k, closer, eof)
		if st == needMore {
			return 0, needMore, nil
		}
		if body != k {
			return after, matched, p.fail(i, after, format, fmt.Sprintf("text %q after the calls, before %s; write only calls (call:NAME{…}) in the block", clip.Prefix(bytes.TrimSpace(p.buf[k:body]), 64), closer))
		}
		end := after
		if end == k {
			end = p.closeBlock(k, closer)
		}
		return end, matched, emit(calls, end)
	}
}

// bareGemma handles a Gemma 4 call written with no <|tool_call> after a
// thought channel (<channel|>call:f{…}): buf[i] is where the channel
// ended.
func (p *Parser) bareGemma(i int, eof bool) (int, status, error) {
	k := p.skipSpace(i)
	ok, partial := p.hasPrefixAt(k, "call:")
	if k >= len(p.buf) || partial {
		return needOrNot(eof)
	}
	if !ok {
		return 0, noMatch, nil
	}
	return gemmaCall("<tool_call|>", FormatGemma4)(p, i, k, eof)
}

// gemmaArgs rewrites the {k:<delim>v<delim>,…} object at buf[b] as lenient
// JSON: each delimited string becomes a JSON string, and a key right after
// a string gets the ',' FunctionGemma leaves out
// ({city:<escape>NYC<escape>unit:…}). end is just past the object's '}',
// or -1 when the input ends first.
func (p *Parser) gemmaArgs(b int, delim string) (lenient []byte, end int) {
	depth := 0
	for n := b; n < len(p.buf); {
		if bytes.HasPrefix(p.buf[n:], []byte(delim)) {
			s := n + len(delim)
			e := bytes.Index(p.buf[s:], []byte(delim))
			if e < 0 {
				return nil, -1
			}
			lenient = jsonw.AppendBytes(lenient, p.buf[s:s+e])
			n = s + e + len(delim)
			if n < len(p.buf) && isIdentByte(p.buf[n], true) {
				lenient = append(lenient, ',')
			}
			continue
		}
		c := p.buf[n]
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		lenient = append(lenient, c)
		n++
		if depth == 0 {
			return lenient, n
		}
	}
	return nil, -1
}

// backtick handles code fences and inline code. A fence whose body is JSON
// tool calls is a call (json_fenced, or Command R's "Action: ```json");
// any other fence, and inline code, is prose in which nothing is a call.
func (p *Parser) backtick(i int, eof bool) (int, status, error) {
	n := i
	for n < len(p.buf) && p.buf[n] == '`' {
		n++
	}
	if n == len(p.buf) && !eof {
		return 0, needMore, nil
	}
	ticks := n - i
	action := false
	actionAt := i
	if ticks >= 3 && !p.atLineStart(i) {
		line := p.buf[p.lineStartOf(i):i]
		action = bytes.HasSuffix(bytes.TrimSpace(line), []byte("Action:"))
		if !action {
			return p.inlineCode(i, ticks, eof)
		}
		actionAt = i - len(line) + bytes.LastIndex(line, []byte("Action:"))
	}
	if ticks < 3 {
		return p.inlineCode(i, ticks, eof)
	}
	if !action {
		// Command R+'s template writes "Action:" on a line of its own
		// before the fence.
		action, actionAt = p.actionLine(i)
	}
	nl := bytes.IndexByte(p.buf[n:min(len(p.buf), n+128)], '\n')
	if nl < 0 {
		if !eof && len(p.buf)-n < 128 {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	lang := string(bytes.ToLower(bytes.TrimSpace(p.buf[n : n+nl])))
	body := n + nl + 1
	switch lang {
	case "xml", "tool_call", "tool_code", "tool_calls":
		// Markers inside are scanned as usual.
		return body, prose, nil
	case "", "json", "jsonl", "json5":
		k := p.skipSpace(body)
		if k >= len(p.buf) {
			return needOrNot(eof)
		}
		if c := p.buf[k]; c == '{' || c == '[' {
			if action {
				p.blockStart = actionAt // "Action:" belongs to the call
			}
			end, st, err := p.fencedJSON(i, k, eof, action)
			if st != noMatch || err != nil {
				return end, st, err
			}
		}
	}
	p.mode, p.fenceTicks = modeFence, ticks
	return body, prose, nil
}

// actionLine reports whether the line before the fence at buf[i], which
// starts its line, ends with Command R's "Action:", and where that starts.
func (p *Parser) actionLine(i int) (bool, int) {
	s := p.lineStartOf(i)
	if s == p.seg || s < 1 || p.buf[s-1] != '\n' {
		return false, i
	}
	prev := p.buf[p.lineStartOf(s-1) : s-1]
	if !bytes.HasSuffix(bytes.TrimSpace(prev), []byte("Action:")) {
		return false, i
	}
	return true, s - 1 - len(prev) + bytes.LastIndex(prev, []byte("Action:"))
}

// lineStartOf returns the start of the line holding buf[i].
func (p *Parser) lineStartOf(i int) int {
	s := bytes.LastIndexByte(p.buf[:i], '\n') + 1
	return max(s, p.seg)
}

// inlineCode skips `code` up to its closing backticks on the same line.
func (p *Parser) inlineCode(i, ticks int, eof bool) (int, status, error) {
	s := i + ticks
	limit := min(len(p.buf), s+4096)
	for k := s; k < limit; k++ {
		switch p.buf[k] {
		case '\n':
			return s, prose, nil
		case '`':
			e := k
			for e < len(p.buf) && p.buf[e] == '`' {
				e++
			}
			if e == len(p.buf) && !eof {
				// The run may go on in the next read, and a longer run
				// does not close the span.
				return 0, needMore, nil
			}
			if e-k == ticks {
				return e, prose, nil
			}
			k = e - 1
		}
	}
	if limit == len(p.buf) && !eof {
		return 0, needMore, nil
	}
	return s, prose, nil
}

// fencedJSON reads the JSON values in a fence from buf[k]; when they are
// all calls (or a final answer) they are emitted and the fence consumed.
func (p *Parser) fencedJSON(i, k int, eof, action bool) (int, status, error) {
	type value struct{ start, end int }
	var vals []value
	j := k
	for {
		j = p.skipSpace(j)
		if j >= len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
			break
		}
		if ok, partial := p.hasPrefixAt(j, "```"); ok || partial && !eof {
			if partial {
				return 0, needMore, nil
			}
			break
		}
		if c := p.buf[j]; c != '{' && c != '[' {
			if len(vals) == 0 || !continuesJSON(p.buf[j:]) {
				return 0, noMatch, nil
			}
			// More of the last value: it runs to the closing fence.
			v := &vals[len(vals)-1]
			f := p.indexAt(j, "\n```")
			if f < 0 {
				if !eof {
					return 0, needMore, nil
				}
				f = len(p.buf)
			}
			if msg := p.readBody(v.start, f); msg != "" {
				return p.fenceError(i, v.start, f, action, msg)
			}
			v.end, j = f, f
			continue
		}
		end, complete := p.jsonEnd(j, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		end, msg := p.boundValue(j, end, complete, "```")
		if msg != "" {
			return p.fenceError(i, j, end, action, msg)
		}
		vals = append(vals, value{j, end})
		p.scanFrom = -1
		j = end
	}
	format := FormatJSONFenced
	if action {
		format = FormatCommandRAction
	}
	// Only a fence whose every value is a call is taken: a code sample
	// or a data object makes the whole fence prose.
	for _, v := range vals {
		out, _, err := p.decodeJSON(v.start, v.end)
		if err != nil {
			if looksLikeCall(p.buf[v.start:v.end]) {
				continue // reported below as a broken call
			}
			return 0, noMatch, nil
		}
		cands := p.candidates(parseJSON(out), false, format, nil)
		if len(cands) == 0 {
			return 0, noMatch, nil
		}
		for _, c := range cands {
			if !p.allowed(c.format) {
				return 0, noMatch, nil
			}
		}
	}
	for _, v := range vals {
		ok, err := p.jsonCalls(i, v.start, v.end, false, format)
		if err == nil && !ok {
			// A broken call beside calls: its own parse_error, never
			// dropped with the fence.
			msg := `this value is not a tool call: write it as {"name": ..., "arguments": {...}}`
			if _, _, derr := p.decodeJSON(v.start, v.end); derr != nil {
				msg = p.jsonErrorMessage(derr, v.start)
			}
			err = p.fail(v.start, v.end, format, msg)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	end := p.skipSpace(j)
	if ok, _ := p.hasPrefixAt(end, "```"); ok {
		end += 3
	} else {
		end = j
	}
	return end, matched, nil
}

// scanFence passes a code fence through as prose up to its closing fence.
func (p *Parser) scanFence(eof bool) (bool, error) {
	for {
		i := p.indexFrom('`', p.pos)
		if i < 0 {
			p.pos = len(p.buf)
			return false, p.splitLong(modeFence)
		}
		p.pos = i
		if err := p.splitLong(modeFence); err != nil {
			return false, err
		}
		ok, partial := p.hasPrefixAt(i, "```")
		if partial && !eof {
			return false, nil
		}
		if ok && p.atLineStart(i) {
			e := i + 3
			for e < len(p.buf) && p.buf[e] == '`' {
				e++
			}
			if e == len(p.buf) && !eof {
				return false, nil
			}
			if e-i >= p.fenceTicks {
				p.mode = modeProse
				p.pos = e
				return true, nil
			}
			p.pos = e
			continue
		}
		p.pos = i + 1
	}
}
