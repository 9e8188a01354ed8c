package parse

// Reading JSON values for calls: decoding (with repair), and the call
// objects, arrays and envelopes a value may hold, whatever marker led to it.

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
