package parse

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/unsafestr"
	"github.com/toolcall/toolcall/parse/jsonrepair"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// skipSpace returns the first position at or after j that is not
// whitespace.
func (p *Parser) skipSpace(j int) int {
	for j < len(p.buf) {
		switch p.buf[j] {
		case ' ', '\t', '\n', '\r':
			j++
			continue
		}
		break
	}
	return j
}

// hasPrefixAt reports whether buf[j:] starts with s; partial is true when
// the buffer ends inside a prefix of s.
func (p *Parser) hasPrefixAt(j int, s string) (ok, partial bool) {
	rest := p.buf[j:]
	if len(rest) >= len(s) {
		return string(rest[:len(s)]) == s, false
	}
	return false, string(rest) == s[:len(rest)]
}

// candidate is one call found in a JSON value.
type candidate struct {
	id, name string
	args     gjson.Result
	format   string
	final    bool   // a final_answer, not a call; content in args
	start    int    // start of the candidate in the transcoded JSON
	end      int    // end of the candidate in the transcoded JSON
	named    bool   // a name key was present, even if empty
	bad      string // not a call after all: why, for a parse_error
}

// decodeJSON transcodes buf[j:end] to strict JSON in p.scratch. A syntax
// error comes back as a message for a parse_error.
func (p *Parser) decodeJSON(j, end int) ([]byte, repairResult, error) {
	if d := &p.decoded; d.out != nil && d.start == j && d.end == end && !d.python {
		out, res := d.out, d.res
		if !d.body {
			*d = decoded{}
		}
		return out, res, nil
	}
	p.decoded = decoded{}
	out, res, err := appendJSON(p.scratch[:0], p.buf[j:end], p.opts.NoRepair, false)
	p.scratch = out[:0]
	return out, res, err
}

// jsonCalls decodes the JSON value at buf[j:end] and emits the calls in it.
// i is the block start for errors. inMarker says an explicit tool marker
// came before it, so any object is meant as a call; otherwise only
// call-shaped objects are (a name and arguments, or an envelope models
// imitate; data like {"name":"Alice"} is not) and ok is false when there
// are none, leaving the text as prose.
func (p *Parser) jsonCalls(i, j, end int, inMarker bool, format string) (ok bool, err error) {
	// The reading decodeJSON hands back, when it is jsonEnd's, may come
	// with its members found.
	d := &p.decoded
	members := d.members && d.out != nil && d.start == j && d.end == end && !d.python
	plain, flatArgs := members && d.plain, members && d.flat
	var out []byte
	var res repairResult
	if members {
		// decodeJSON's first case, its test passed already.
		out, res = d.out, d.res
		*d = decoded{}
	} else {
		out, res, err = p.decodeJSON(j, end)
	}
	if err != nil {
		var se *syntaxError
		truncated := errors.As(err, &se) && se.Truncated
		if !truncated && p.buf[j] == '[' {
			// One broken entry does not take the calls beside it along.
			if ok, err := p.jsonCallsEach(j, end, inMarker, format); ok || err != nil {
				return ok, err
			}
		}
		protocol := !inMarker && opensProtocolCall(p.buf[j:end])
		if !inMarker && opensQuotedEvent(p.buf[j:end]) {
			return false, nil // a quoted tool_observation, say: prose
		}
		if !inMarker && !protocol && !(truncated && looksLikeCall(p.buf[j:end])) && !p.knownCallAt(j, end) {
			return false, nil
		}
		msg := p.jsonErrorMessage(err, j)
		if !inMarker && !protocol && p.knownCallAt(j, end) {
			msg = fmt.Sprintf("call to %q: %s", callName(p.buf[j:min(end, j+lookAhead)]), msg)
		}
		if protocol {
			format = FormatJSONL
			// A protocol call is one line: one that ends inside a string
			// is as often a quote left unescaped as a cut-off output.
			if truncated && end < len(p.buf) {
				msg = fmt.Sprintf("invalid JSON in tool call at byte %d: at the end of the line, %s; escape a '\"' inside a string as \\\" and send the whole call again on one line",
					p.base+int64(j+se.Offset), strings.TrimSuffix(se.Msg, ": "+jsonrepair.CutOffAdvice))
			}
		}
		return true, p.fail(i, end, format, msg)
	}
	cands := append(p.cands[:0], candidate{})
	var flat bool
	if members {
		flat = p.flatMembers(&cands[0], out, &p.members, plain, inMarker, format)
	} else {
		flat = p.flatCall(&cands[0], out, res.Last, inMarker, format)
	}
	if flat {
		if c := &cands[0]; !c.named && c.format != FormatJSONL {
			cands = cands[:0]
		}
	} else {
		cands = p.candidates(parseJSON(out), inMarker, format, p.cands[:0])
	}
	p.cands = cands[:0]
	if len(cands) == 0 {
		if !inMarker {
			return false, nil
		}
		return true, p.fail(i, end, format, fmt.Sprintf("expected a tool call object like {\"name\": ..., \"arguments\": {...}}, got %s", describeJSON(out)))
	}
	for k := range cands {
		if !p.allowed(cands[k].format) {
			return false, nil
		}
	}
	raw := p.buf[i:end]
	for k := range cands {
		c := &cands[k]
		// At the end of a cut-off output only closers of the envelope
		// may be supplied: a call whose arguments were not finished (or
		// not begun) is reported, never completed by guesswork.
		if res.Truncated && c.end > res.Cut && (!c.args.Exists() || c.args.Index+len(c.args.Raw) > res.Cut) {
			if err := p.fail(i, end, c.format, fmt.Sprintf("call to %q was cut off: its arguments end before they are complete; send the whole call again", c.name)); err != nil {
				return true, err
			}
			continue
		}
		if c.bad != "" {
			if err := p.fail(i, end, c.format, c.bad); err != nil {
				return true, err
			}
			continue
		}
		if c.final {
			content := rawOf(out, c.args)
			if c.args.Type == gjson.String {
				content = []byte(c.args.Str)
			}
			if err := p.put(event.TypeFinalAnswer, content, c.format); err != nil {
				return true, err
			}
			continue
		}
		if p.directlyAnswer(c) {
			if err := p.putDirectlyAnswer(out, c); err != nil {
				return true, err
			}
			continue
		}
		args := []byte(nil)
		if c.args.Exists() {
			args = rawOf(out, c.args)
		}
		p.noExp, p.flatArgs = !res.Exp, flatArgs
		if err := p.emitCall(c.id, c.name, args, c.format, res.Repairs, p.base+int64(i), raw); err != nil {
			return true, err
		}
	}
	return true, nil
}

// jsonCallsEach reads the array at buf[j:end] entry by entry, when the
// whole does not read as JSON: each entry that is a call is emitted, each
// broken one is its own parse_error. ok is false, with nothing emitted,
// unless every entry is an object that starts like a call (or the array
// follows a tool marker) and at least one reads.
func (p *Parser) jsonCallsEach(j, end int, inMarker bool, format string) (bool, error) {
	type span struct{ start, end int }
	var entries []span
	var sc jsonScanner
	k := j + 1
	for {
		k = p.skipSpace(k)
		if k >= end {
			return false, nil
		}
		if p.buf[k] == ']' {
			break
		}
		if p.buf[k] != '{' || !inMarker && !looksLikeCall(p.buf[k:end]) {
			return false, nil
		}
		sc.Reset(false)
		n, done := sc.Scan(p.buf[k:end])
		if !done || n == 0 {
			return false, nil
		}
		entries = append(entries, span{k, k + n})
		k = p.skipSpace(k + n)
		if k < end && p.buf[k] == ',' {
			k++
		}
	}
	good := 0
	for _, e := range entries {
		if _, _, err := p.decodeJSON(e.start, e.end); err == nil {
			good++
		}
	}
	if good == 0 {
		return false, nil
	}
	for _, e := range entries {
		var ok bool
		var err error
		if _, _, derr := p.decodeJSON(e.start, e.end); derr != nil {
			ok, err = true, p.fail(e.start, e.end, format, p.jsonErrorMessage(derr, e.start))
		} else {
			ok, err = p.jsonCalls(e.start, e.start, e.end, inMarker, format)
		}
		if err == nil && !ok {
			err = p.fail(e.start, e.end, format, `this entry is not a tool call: write it as {"name": ..., "arguments": {...}}`)
		}
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// parseJSON reads strict JSON without copying it: the results point into b,
// which must not change while they are in use.
func parseJSON(b []byte) gjson.Result {
	return gjson.Parse(unsafestr.String(b))
}

// rawOf returns the bytes of a value parsed from b by parseJSON.
func rawOf(b []byte, v gjson.Result) []byte {
	if v.Index > 0 || len(v.Raw) > 0 && v.Index == 0 && len(b) >= len(v.Raw) && string(b[:len(v.Raw)]) == v.Raw {
		return b[v.Index : v.Index+len(v.Raw)]
	}
	return []byte(v.Raw)
}

// looksLikeCall reports whether a JSON prefix starts like a call object, so
// that a cut-off one is reported rather than passed as prose.
func looksLikeCall(b []byte) bool {
	b = bytes.TrimLeft(b, "[{ \t\r\n")
	for _, k := range []string{`"name"`, `"type"`, `"function"`, `"tool_name"`, `"tool_call"`, `"tool_calls"`, `'name'`} {
		if bytes.HasPrefix(b, []byte(k)) {
			return true
		}
	}
	return false
}

// opensProtocolCall reports whether b begins as a call of the JSONL
// protocol, {"type": "tool_call", …: an object that says it is a call is
// one, so when it is broken past repair it is a parse_error, not prose.
func opensProtocolCall(b []byte) bool {
	rest, ok := bytes.CutPrefix(b, []byte("{"))
	if !ok {
		return false
	}
	for _, want := range [][]string{{`"type"`, `'type'`, `type`}, {":"}, {`"tool_call"`, `'tool_call'`}} {
		for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n') {
			rest = rest[1:]
		}
		found := false
		for _, w := range want {
			if r, ok := bytes.CutPrefix(rest, []byte(w)); ok {
				rest, found = r, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (p *Parser) jsonErrorMessage(err error, j int) string {
	var se *syntaxError
	if errors.As(err, &se) {
		if se.Truncated {
			return fmt.Sprintf("tool call cut off at byte %d: %s", p.base+int64(j+se.Offset), se.Msg)
		}
		return fmt.Sprintf("invalid JSON in tool call at byte %d: %s", p.base+int64(j+se.Offset), se.Msg)
	}
	return err.Error()
}

// candidates collects the calls in a JSON value: a call object, an array of
// them, or one of the envelopes models imitate.
func (p *Parser) candidates(v gjson.Result, inMarker bool, format string, dst []candidate) []candidate {
	if v.IsArray() {
		start, good := len(dst), 0
		for _, e := range v.Array() {
			n := len(dst)
			dst = p.candidates(e, inMarker, format, dst)
			if len(dst) > n {
				good++
				continue
			}
			if inMarker {
				continue
			}
			// An entry that names a tool but is not a call is a broken
			// call beside good ones; anything else makes the array data.
			if name := e.Get("name"); e.IsObject() && name.Type == gjson.String && onlyCallKeys(e) {
				dst = append(dst, candidate{format: format, name: name.Str, bad: fmt.Sprintf("call to %q has no arguments: write it as {\"name\": %q, \"arguments\": {...}}", name.Str, name.Str)})
				continue
			}
			return dst[:start]
		}
		if !inMarker && good == 0 {
			return dst[:start]
		}
		return dst
	}
	if !v.IsObject() {
		return dst
	}
	c := candidate{format: format, start: v.Index, end: v.Index + len(v.Raw)}
	var typ string
	var fn, content, wrapped, wrappedList, otherArgs gjson.Result
	keys := 0
	v.ForEach(func(k, val gjson.Result) bool {
		keys++
		switch k.Str {
		case "args", "input", "params":
			// Other spellings of the arguments (GigaChat's "args",
			// Anthropic's "input"), taken between markers only: bare
			// JSON in prose with such a key is too often data.
			if inMarker && !otherArgs.Exists() {
				otherArgs = val
			}
		case "name", "tool_name":
			if val.Type == gjson.String {
				c.name, c.named = strings.Clone(val.Str), true
			}
		case "function":
			if val.IsObject() {
				fn = val
			} else if val.Type == gjson.String {
				c.name, c.named = strings.Clone(val.Str), true
			}
		case "arguments", "parameters":
			c.args = val
		case "id":
			if val.Type == gjson.String {
				c.id = strings.Clone(val.Str)
			}
		case "type":
			typ = val.Str
		case "content", "response":
			content = val
		case "tool_call":
			wrapped = val
		case "tool_calls":
			wrappedList = val
		}
		return true
	})
	if !c.args.Exists() && otherArgs.Exists() {
		c.args = otherArgs
	}
	bare := !inMarker
	switch {
	case typ == tools.TypeToolCall:
		if bare {
			c.format = FormatJSONL
		}
		return append(dst, c)
	case typ == event.TypeFinalAnswer && content.Exists():
		c.final, c.args = true, content
		if bare {
			c.format = FormatJSONL
		}
		return append(dst, c)
	case bare && isQuotedEvent(typ):
		return dst // a tool_observation line quoted in prose, say
	case fn.Exists():
		c.name = strings.Clone(fn.Get("name").Str)
		c.named = true
		c.args = fn.Get("arguments")
		if !c.args.Exists() {
			c.args = fn.Get("parameters")
			if bare && isDefinition(fn, c.args) {
				return dst
			}
		}
		if bare {
			c.format = FormatOpenAIEnvelope
		}
		return append(dst, c)
	case wrapped.IsObject() && keys == 1:
		f := format
		if bare {
			f = FormatLlamaCppGeneric
		}
		return p.candidates(wrapped, true, f, dst)
	case wrappedList.IsArray() && keys <= 2 && !c.named:
		for _, e := range wrappedList.Array() {
			f := format
			if bare {
				f = FormatLlamaCppGeneric
				if e.Get("function").IsObject() {
					f = FormatOpenAIEnvelope
				}
			}
			dst = p.candidates(e, true, f, dst)
		}
		return dst
	case bare && keys == 1 && content.Type == gjson.String && v.Get("response").Exists() && p.outputStart:
		c.final, c.args, c.format = true, content, FormatLlamaCppGeneric
		return append(dst, c)
	case c.named && (c.args.Exists() || inMarker):
		if bare && (p.explicitOnly || isDefinition(v, c.args)) {
			return dst
		}
		if bare && format == "" {
			c.format = FormatLlama3JSON
		}
		c.id = p.keepID(c.format, c.id)
		return append(dst, c)
	case inMarker && keys == 1 && p.nameIsKey(format):
		// Apertus writes {"NAME": {args}}.
		v.ForEach(func(k, val gjson.Result) bool {
			c.name, c.named, c.args = strings.Clone(k.Str), true, val
			return false
		})
		return append(dst, c)
	case inMarker:
		c.id = ""
		return append(dst, c) // no name: reported as such
	}
	return dst
}

// nameIsKey reports whether the spec of format says a call object may
// be {"NAME": {arguments}} (Spec.NameIsKey).
func (p *Parser) nameIsKey(format string) bool {
	for _, s := range p.opts.Formats {
		if s.Format == format {
			return s.NameIsKey
		}
	}
	return nameIsKeyFormats[format]
}

// nameIsKeyFormats are the built-in formats whose spec says NameIsKey.
var nameIsKeyFormats = map[string]bool{}

// onlyCallKeys reports whether an object has no key a call would not
// have, so {"name": "c"} is a call missing its arguments while
// {"name": "Alice", "role": "admin"} is data.
func onlyCallKeys(obj gjson.Result) bool {
	ok := true
	obj.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "name", "id", "type":
			return true
		}
		ok = false
		return false
	})
	return ok
}

// isDefinition reports whether an object that names a function is its
// definition rather than a call: a description beside parameters that are
// a JSON Schema. Catalogs and API examples are full of them.
func isDefinition(obj, params gjson.Result) bool {
	if !obj.Get("description").Exists() || !params.IsObject() {
		return false
	}
	return params.Get("type").Str == "object" && (params.Get("properties").IsObject() || params.Get("required").IsArray())
}

// keepID keeps a model's call id only where it is the model's to give
// (Mistral ids and Command R tool_call_id are dropped, so ids stay
// call_N).
func (p *Parser) keepID(format, id string) string {
	switch format {
	case FormatJSONL, FormatOpenAIEnvelope, FormatNative:
		return id
	}
	return ""
}

// jsonBlock handles a marker followed by a JSON object or array of calls
// (Granite, Nemotron, Apertus, Command R7B, InternLM2, granite-20b). The
// closing token is optional: the JSON's own end ends the block.
func jsonBlock(closer, format string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k == len(p.buf) {
			if eof {
				return j, matched, p.fail(i, k, format, "tool call marker with nothing after it: the output ended before the call")
			}
			return 0, needMore, nil
		}
		if c := p.buf[k]; c != '{' && c != '[' {
			return 0, noMatch, nil
		}
		end, complete := p.jsonEnd(k, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		return p.markedJSON(i, k, end, complete, eof, closer, format)
	}
}

// markedJSON emits the calls in the JSON value at buf[k:end] that a
// marker at buf[i] began and closer (if any) ends; complete is jsonEnd's.
// Text left between the value and the end marker is read as part of it
// (readBody), or the block is a parse_error: a call never goes out
// without what the model wrote inside its markers.
func (p *Parser) markedJSON(i, k, end int, complete, eof bool, closer, format string) (int, status, error) {
	body, after, msg, st := p.bodyOf(k, end, complete, eof, closer)
	if st == needMore {
		return 0, needMore, nil
	}
	if msg != "" {
		// The model is told which of its calls to write again.
		if name := callName(p.buf[k:min(after, k+lookAhead)]); name != "" {
			msg = fmt.Sprintf("call to %q: %s", name, msg)
		}
		return after, matched, p.fail(i, after, format, msg)
	}
	ok, err := p.jsonCalls(i, k, body, true, format)
	if !ok || err != nil {
		return 0, noMatch, err
	}
	if after == end {
		after = p.closeBlock(end, closer)
	}
	return after, matched, nil
}

// closeBlock consumes an optional closing token after a block when it is
// already in the buffer; a closer that arrives later is dropped as a stray
// token, so the call is emitted without waiting for it.
func (p *Parser) closeBlock(end int, closer string) int {
	if closer == "" {
		return end
	}
	k := p.skipSpace(end)
	if ok, _ := p.hasPrefixAt(k, closer); ok {
		return k + len(closer)
	}
	return end
}

// tagBlock handles <tool_call>-style markers, whose body is a JSON call
// (Hermes), a Qwen3-Coder <function=…> block, a GLM name with
// <arg_key>/<arg_value> pairs, or a Granite JSON array. A body none of
// them reads is a call gone wrong when it looks like one (callLikeBody).
func tagBlock(closer, format string) handler {
	read := tagBody(closer, format)
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		end, st, err := read(p, i, j, eof)
		if st != noMatch || err != nil {
			return end, st, err
		}
		if yes, undecided := p.callLikeBody(j, closer, eof); undecided {
			return 0, needMore, nil
		} else if !yes {
			return end, st, err
		}
		// With known tools, a body in a shape no family writes (a new
		// release's tags) may still read (generic_block.go).
		if gend, gst, gerr, ok := p.genericFor(i, eof); ok {
			return gend, gst, gerr
		}
		return p.failThrough(i, j, closer, eof, format, "a "+string(p.buf[i:j])+" block that no call syntax reads: write it as <tool_call>{\"name\": \"TOOL\", \"arguments\": {…}}</tool_call>, or in the syntax your prompt shows")
	}
}

func tagBody(closer, format string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k == len(p.buf) {
			if eof {
				return 0, noMatch, nil
			}
			return 0, needMore, nil
		}
		if format == FormatHermes && p.pythonicAt(k, eof) {
			// [f(a=1)] or f(a=1) in <tool_call>: Llama and Granite models
			// prompted with a Hermes template.
			return pythonicBlock(closer, FormatPythonic)(p, i, j, eof)
		}
		switch p.buf[k] {
		case '{', '[':
			f := format
			if p.buf[k] == '[' && format == FormatHermes {
				f = FormatGranite
			}
			if !p.allowed(f) {
				return 0, noMatch, nil
			}
			end, complete := p.jsonEnd(k, false)
			if !complete && !eof {
				return 0, needMore, nil
			}
			return p.markedJSON(i, k, end, complete, eof, closer, f)
		case '<':
			ok, partial := p.hasPrefixAt(k, "<function=")
			if partial && !eof {
				return 0, needMore, nil
			}
			if !ok {
				return 0, noMatch, nil
			}
			f := FormatQwen3Coder
			if format == FormatSeedOSS {
				f = FormatSeedOSS
			}
			end, st, err := p.qwenFunction(i, k+len("<function="), eof, f, closer)
			if st != matched || err != nil {
				return end, st, err
			}
			return p.closeBlock(end, closer), matched, nil
		}
		if ok, partial := p.hasPrefixAt(k, m3NS); (ok || partial) && format == FormatHermes {
			// MiniMax M3 sometimes leaves the namespace token off the
			// section's opening tag only.
			if partial && !eof {
				return 0, needMore, nil
			}
			if ok && p.allowed(FormatMiniMaxM3) {
				if err := p.flushText(i); err != nil {
					return 0, 0, err
				}
				p.section = FormatMiniMaxM3
				return k, matched, nil
			}
		}
		if format != FormatHermes {
			return 0, noMatch, nil
		}
		if end, st, err := p.harmonyInTag(i, k, eof, closer); st != noMatch || err != nil {
			return end, st, err
		}
		// GLM writes the name right after the tag; some of its chat
		// templates put space before it.
		tags := glmPlain
		if closer == "</longcat_tool_call>" {
			tags = longcatTags
		}
		return p.glmCall(i, k, eof, closer, tags)
	}
}

// bareJSON handles a JSON value with no marker before it: at the start of a
// line (Llama 3 JSON, the JSONL protocol, envelopes, xLAM arrays) or inside
// an open call section. A value that is not a call is prose, and is
// skipped whole so the objects inside it are not mistaken for calls.
func (p *Parser) bareJSON(i int, eof bool) (int, status, error) {
	end, complete := p.jsonEnd(i, false)
	line := false
	// Most values end on the line they start on: only the others need
	// a look at whether they are a protocol line.
	if p.section == "" && !(complete && (p.readLeanly(i, end) || bytes.IndexByte(p.buf[i:end], '\n') < 0)) && opensProtocolCall(p.buf[i:]) {
		end, complete, line = p.protocolLine(i, end, complete, eof)
	}
	if !complete {
		if !eof {
			return 0, needMore, nil
		}
		if !looksLikeCall(p.buf[i:end]) {
			return 0, noMatch, nil
		}
	}
	// A closer or ",\"key\"" after the value is more of it, unless it is
	// a protocol line and its line has ended. One that ends the input so
	// far waits for the end of its line like any value: taking it there
	// would read it differently from the same text in one piece.
	if complete && !line && !p.endsProtocolLine(i, end) {
		// A closer or ",\"key\"" after the value on its line is more of
		// it: the line is the call, read whole or refused.
		body, _, st := p.bodyEnd(end, "", eof)
		if st == needMore {
			return 0, needMore, nil
		}
		if body != end {
			if msg := p.readBody(i, body); msg != "" {
				if !looksLikeCall(p.buf[i:body]) && !p.knownCallAt(i, body) {
					return body, prose, nil
				}
				return body, matched, p.fail(i, body, "", msg)
			}
			end = body
		}
	}
	format := ""
	inMarker := false
	// Bare JSON counts when it starts the output; after prose only when
	// nothing but more calls follows it: a JSON line amid prose is prose. The JSONL
	// protocol and the envelopes name themselves, and count anywhere.
	p.explicitOnly = false
	p.outputStart = !p.prose && onlyComments(p.buf[p.seg:i])
	if p.section == "" && !p.outputStart {
		k := p.skipSpace(end)
		switch {
		case k == len(p.buf) && !eof && !line && !p.endsProtocolLine(i, end):
			// What follows decides; a protocol line counts whatever
			// follows, so it waits only for its line to end.
			return 0, needMore, nil
		case k == len(p.buf)-1 && p.buf[k] == '/' && !eof:
			return 0, needMore, nil // a comment, or prose?
		case k < len(p.buf) && !bytes.ContainsRune([]byte("{[<;`"), rune(p.buf[k])) && !onlyComments(p.buf[k:p.lineEnd(k)]):
			p.explicitOnly = true
		}
	}
	switch p.section {
	case FormatToolCallsArray:
		format, inMarker = FormatToolCallsArray, true
		if p.buf[i] == '{' {
			format = FormatMiniMaxM1
		}
	case "":
		if p.buf[i] == '[' {
			format = FormatXLAM
		}
	default:
		// A JSON call, or a list of them, inside another family's call
		// section (Solar Open's <|tool_calls|>[{…}]): the section says
		// it is calls, whichever syntax the model wrote in it.
		if !p.allowed(p.section) {
			return 0, noMatch, nil
		}
		format, inMarker = p.section, true
	}
	ok, err := p.jsonCalls(i, i, end, inMarker, format)
	p.explicitOnly, p.outputStart = false, false
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return end, prose, nil
	}
	return end, matched, nil
}

// namesItself reports whether a JSON object says it is a call or a final
// answer of the JSONL protocol, which counts wherever it stands.
func namesItself(obj []byte) bool {
	v := gjson.ParseBytes(obj)
	switch v.Get("type").Str {
	case tools.TypeToolCall:
		return true
	case event.TypeFinalAnswer:
		return v.Get("content").Exists()
	}
	return false
}

// endsProtocolLine reports whether buf[i:end] is a message of the JSONL
// protocol whose line has ended: one line each, nothing after it is part
// of it.
func (p *Parser) endsProtocolLine(i, end int) bool {
	if !lineEnded(p.buf[end:]) {
		return false
	}
	if p.readLeanly(i, end) && bytes.HasPrefix(p.buf[i:end], []byte(`{"type":"tool_call",`)) {
		return true // strict JSON already, and written as toolcall writes it
	}
	return bytes.Contains(p.buf[i:end], []byte(`type`)) && wholeProtocolLine(p.buf[i:end])
}

// readLeanly reports whether jsonEnd read buf[i:end] with leanObject and
// found no whitespace in it (decoded.lean): strict JSON on one line.
func (p *Parser) readLeanly(i, end int) bool {
	d := &p.decoded
	return d.lean && d.start == i && d.end == end
}

// lineEnded reports whether b starts with the end of a line, after spaces.
func lineEnded(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '\n':
			return true
		}
		return false
	}
	return false
}

// wholeProtocolLine reports whether obj is a message of the JSONL
// protocol written as strict JSON.
func wholeProtocolLine(obj []byte) bool {
	return namesItself(obj) && gjson.ValidBytes(obj)
}

// protocolLine bounds a value that opens as a call of the JSONL protocol,
// whose calls are one line each. A call written over several lines that
// decodes is taken whole (end and complete as jsonEnd found them). One that
// does not decode, or runs into the end of the output unclosed, is its
// first line only, with line set: that line becomes the call or its
// parse_error, and the lines after it are parsed on their own rather than
// swallowed into its error.
func (p *Parser) protocolLine(i, end int, complete, eof bool) (int, bool, bool) {
	nl := bytes.IndexByte(p.buf[i:], '\n')
	if nl < 0 {
		return end, complete, false // the line has not ended yet
	}
	lineEnd := i + nl
	// A fresh buffer: p.scratch may hold the decoded value (p.decoded).
	_, res, err := appendJSON(nil, p.buf[i:lineEnd], p.opts.NoRepair, false)
	var se *syntaxError
	switch {
	case err != nil && !(errors.As(err, &se) && se.Truncated):
		return lineEnd, true, true // broken on its own line: no need to read on
	case err == nil && !res.Truncated:
		return lineEnd, true, true
	case complete:
		if d := p.decoded; d.out != nil && d.start == i && d.end == end {
			return end, complete, false // written over several lines, and valid
		}
		if _, _, err := appendJSON(nil, p.buf[i:end], p.opts.NoRepair, false); err == nil {
			return end, complete, false
		}
		return lineEnd, true, true
	case eof:
		return lineEnd, true, true
	}
	return end, complete, false // the rest of the call may yet come
}

// onlyComments reports whether b is whitespace and // comment lines
// only: a bare JSON body with comments around it is still the whole
// output ("// the call" above it, "// done" after it). A '#' line is
// not one: in model output it is a Markdown heading, prose.
func onlyComments(b []byte) bool {
	for {
		for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
			b = b[1:]
		}
		if len(b) == 0 {
			return true
		}
		if !bytes.HasPrefix(b, []byte("//")) {
			return false
		}
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return true
		}
		b = b[nl+1:]
	}
}

// lineEnd returns the end of the line holding buf[k], or of the buffer.
func (p *Parser) lineEnd(k int) int {
	if nl := bytes.IndexByte(p.buf[k:], '\n'); nl >= 0 {
		return k + nl
	}
	return len(p.buf)
}

// pythonicAt reports whether buf[k] starts a pythonic call, f( or [f(,
// with the input so far; it waits (false) at the end of a short buffer
// only as long as the callers' other readings do.
func (p *Parser) pythonicAt(k int, eof bool) bool {
	if k < len(p.buf) && p.buf[k] == '[' {
		k = p.skipSpace(k + 1)
	}
	j := k
	for j < len(p.buf) && isIdentByte(p.buf[j], j == k) {
		j++
	}
	return j > k && j < len(p.buf) && p.buf[j] == '('
}

// harmonyInTag handles a gpt-oss message header inside <tool_call>, as
// gpt-oss writes it when served with a Hermes template:
// <tool_call>assistant to=functions.NAME json\n{…}</tool_call>.
func (p *Parser) harmonyInTag(i, k int, eof bool, closer string) (int, status, error) {
	win, miss := p.ahead(k, eof)
	nl := bytes.IndexAny(win, "{\n")
	if nl < 0 {
		if bytes.Contains(win, []byte("to=")) {
			return 0, miss, nil
		}
		return 0, noMatch, nil
	}
	head := win[:nl]
	t := bytes.Index(head, []byte("to="))
	if t < 0 || len(bytes.Fields(head[:t])) > 2 {
		return 0, noMatch, nil // "assistant", "commentary" or nothing before it
	}
	name := head[t+len("to="):]
	if e := bytes.IndexAny(name, " <\t"); e >= 0 {
		name = name[:e]
	}
	name = bytes.TrimPrefix(name, []byte("functions."))
	if len(name) == 0 || !p.allowed(FormatHarmony) {
		return 0, noMatch, nil
	}
	b := p.skipSpace(k + nl)
	if b >= len(p.buf) {
		return needOrNot(eof)
	}
	if p.buf[b] != '{' {
		return 0, noMatch, nil
	}
	end, complete := p.jsonEnd(b, false)
	if !complete && !eof {
		return 0, needMore, nil
	}
	return p.namedJSON(i, b, end, complete, eof, string(name), FormatHarmony, closer)
}
