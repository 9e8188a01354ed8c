package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
)

// Formats that put each argument in tags of its own (Qwen3-Coder, GLM,
// MiniMax M2, Step3, DeepSeek DSML) write values as bare text. They are
// parsed here into a JSON object, each value typed as the chat templates
// write them: raw text for a string, JSON for anything else (docs/parse-rules.md).

// argsBuilder writes a JSON object one member at a time.
type argsBuilder struct {
	buf     []byte
	repairs repairSet
	exp     bool // a value had a number in exponent form (repairResult.exp)
}

func (a *argsBuilder) reset() { a.buf = append(a.buf[:0], '{'); a.repairs, a.exp = 0, false }

func (a *argsBuilder) key(k []byte) {
	if len(a.buf) > 1 {
		a.buf = append(a.buf, ',')
	}
	a.buf = jsonw.AppendBytes(a.buf, bytes.TrimSpace(k))
	a.buf = append(a.buf, ':')
}

func (a *argsBuilder) done() []byte { return append(a.buf, '}') }

// stringLiteral appends v when it is exactly one JSON string (space
// around it aside) and reports whether it did: a value its tag marks as
// JSON (string="false") is then the string, not its quoted text,
// whatever the schema says.
func (a *argsBuilder) stringLiteral(v []byte) bool {
	t := bytes.TrimSpace(v)
	if len(t) < 2 || t[0] != '"' || !json.Valid(t) {
		return false
	}
	a.buf = append(a.buf, t...)
	return true
}

// value appends a tagged value as the model wrote it. typ is the
// parameter's schema type when known; forceString is DSML's string="true";
// wrapped says the format puts the value on lines of its own (Qwen3-Coder:
// "<parameter=k>\nv\n</parameter>"), and only those two newlines are
// layout. Everything else is content: a file's trailing newline survives.
func (a *argsBuilder) value(v []byte, typ string, forceString, strict, wrapped bool) {
	if wrapped {
		if len(v) > 0 && v[0] == '\n' {
			v = v[1:]
		} else if len(v) > 1 && v[0] == '\r' && v[1] == '\n' {
			v = v[2:]
		}
		if n := len(v); n > 0 && v[n-1] == '\n' {
			v = v[:n-1]
			if n := len(v); n > 0 && v[n-1] == '\r' {
				v = v[:n-1]
			}
		}
	}
	t := bytes.TrimSpace(v)
	// CDATA (MiniCPM 5) says "text": it is a string whatever it holds.
	if c, ok := bytes.CutPrefix(t, []byte("<![CDATA[")); ok && bytes.HasSuffix(c, []byte("]]>")) {
		a.buf = jsonw.AppendBytes(a.buf, c[:len(c)-len("]]>")])
		return
	}
	if forceString || typ == "string" {
		a.buf = jsonw.AppendBytes(a.buf, v)
		return
	}
	// A schema that asks for a boolean or null settles Python's spelling.
	switch {
	case typ == "boolean" && string(t) == "True":
		a.buf = append(a.buf, "true"...)
		return
	case typ == "boolean" && string(t) == "False":
		a.buf = append(a.buf, "false"...)
		return
	}
	// A Python tuple where the schema asks for an array: the one reading.
	if typ == "array" && len(t) > 0 && t[0] == '(' {
		if out, res, err := appendJSON(a.buf, t, strict, true); err == nil && !res.Truncated && res.N == len(t) {
			a.buf = out
			a.repairs |= res.Repairs
			a.exp = a.exp || res.Exp
			return
		}
	}
	// A JSON number, literal, object or array when the text is exactly
	// one; Python-style containers too ({'a': 1}), which GLM and Qwen
	// models write. Anything else, a quoted JSON string included, is the
	// raw text.
	if len(t) > 0 && jsonStart[t[0]] && typ != "string" {
		if out, res, err := appendJSON(a.buf, t, true, false); err == nil && !res.Truncated && res.N == len(t) {
			a.buf = out
			a.exp = a.exp || res.Exp
			return
		}
		if t[0] == '{' || t[0] == '[' {
			if out, res, err := appendJSON(a.buf, t, strict, true); err == nil && !res.Truncated && res.N == len(t) {
				a.buf = out
				a.repairs |= res.Repairs
				a.exp = a.exp || res.Exp
				return
			}
			// Where the schema asks for an object or an array, JSON
			// escaped once more ([{\"a\": 1}], GLM's) has one reading:
			// unescaped (escaped_payload), which Python literals do not
			// allow for.
			if (typ == "object" && t[0] == '{' || typ == "array" && t[0] == '[') && !strict {
				if out, res, err := appendJSON(a.buf, t, false, false); err == nil && !res.Truncated && res.N == len(t) {
					a.buf = out
					a.repairs |= res.Repairs
					a.exp = a.exp || res.Exp
					return
				}
			}
		}
	}
	a.buf = jsonw.AppendBytes(a.buf, v)
}

// jsonStart marks the bytes a JSON value can start with, to skip trying
// to read plain text as JSON.
var jsonStart = [256]bool{'{': true, '[': true, '-': true, 't': true, 'f': true, 'n': true,
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true}

// paramType asks the schema lookup for a parameter's type.
//
// The answers for the tool asked about last are kept: a call arriving a
// token at a time is read again as it grows, asking for the same names
// each time, and making each name a string to ask with was most of such
// a stream's allocations.
func (p *Parser) paramType(tool string, param []byte) string {
	if p.opts.ParamType == nil {
		return ""
	}
	param = bytes.TrimSpace(param)
	if tool != p.typesOf {
		p.typesOf = tool
		p.paramTypes = p.paramTypes[:0]
	}
	for _, t := range p.paramTypes {
		if t.param == string(param) {
			return t.typ
		}
	}
	name := string(param)
	t := p.opts.ParamType(tool, name)
	if len(p.paramTypes) < maxKeptTypes {
		p.paramTypes = append(p.paramTypes, keptType{name, t})
	}
	return t
}

// keptType is one of ParamType's answers paramType keeps.
type keptType struct{ param, typ string }

// maxKeptTypes bounds paramTypes, looked through in turn: a tool has a
// few parameters, and a model inventing names must not grow it.
const maxKeptTypes = 16

// qwenFunction parses a Qwen3-Coder function block after "<function=":
// NAME>, then <parameter=KEY>value</parameter> pairs, then </function>. A
// JSON body instead of parameters is the Functionary v3.1 form.
// outer is the wrapper's end marker (</tool_call>), "" for none.
func (p *Parser) qwenFunction(i, j int, eof bool, format, outer string) (int, status, error) {
	win, miss := p.ahead(j, eof)
	gt := bytes.IndexByte(win, '>')
	if gt < 0 {
		if miss == needMore {
			p.waitForWithin(">", len(p.buf), j+lookAhead)
		}
		return 0, miss, nil
	}
	name := bytes.TrimSpace(p.buf[j : j+gt])
	if len(name) == 0 || bytes.ContainsAny(name, "<\n") {
		return 0, noMatch, nil
	}
	k := p.skipSpace(j + gt + 1)
	if k < len(p.buf) && p.buf[k] == '{' {
		if !p.allowed(FormatFunctionTag) {
			return 0, noMatch, nil
		}
		end, complete := p.jsonEnd(k, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		return p.namedJSON(i, k, end, complete, eof, string(name), FormatFunctionTag, "</function>")
	}
	if !p.allowed(format) {
		return 0, noMatch, nil
	}
	d := &xmlDialect{paramOpen: "<parameter=", paramClose: "</parameter>", close: "</function>", outer: outer, wrapped: format == FormatQwen3Coder}
	return p.taggedArgs(i, k, eof, p.intern(name), format, d) // read again a token at a time
}

// namedJSON emits a call whose name came from a tag and whose arguments are
// the JSON value at buf[k:end].
// complete is jsonEnd's; text between the value and closer is read as
// markedJSON reads it.
func (p *Parser) namedJSON(i, k, end int, complete, eof bool, name, format, closer string) (int, status, error) {
	body, after, msg, st := p.bodyOf(k, end, complete, eof, closer)
	if st == needMore {
		return 0, needMore, nil
	}
	if msg != "" {
		return after, matched, p.fail(i, after, format, fmt.Sprintf("call to %q: %s", name, msg))
	}
	if after == end {
		after = p.closeBlock(end, closer)
	}
	return after, matched, p.namedCall(i, k, body, name, format)
}

// namedCall emits the call whose arguments are the JSON value at
// buf[k:end], or its parse_error.
func (p *Parser) namedCall(i, k, end int, name, format string) error {
	out, res, err := p.decodeJSON(k, end)
	switch {
	case err != nil:
		return p.fail(i, end, format, fmt.Sprintf("call to %q: %s", name, p.jsonErrorMessage(err, k)))
	case res.Truncated:
		return p.fail(i, end, format, fmt.Sprintf("call to %q was cut off: its arguments end before they are complete; send the whole call again", name))
	}
	p.noExp = !res.Exp
	return p.emitCall("", name, out, format, res.Repairs, p.base+int64(i), p.buf[i:end])
}

// namedArgs handles what follows a call's name in the formats that write
// it before a JSON object of arguments: space, then the object. Nothing
// after the name at the end of the output is a cut-off call; anything but
// an object means the marker was prose after all.
func (p *Parser) namedArgs(i, b int, eof bool, name, format, closer string) (int, status, error) {
	b = p.skipSpace(b)
	if b >= len(p.buf) {
		if !eof {
			return 0, needMore, nil
		}
		return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q has no arguments: the output ended after its name; send the whole call again", name))
	}
	if p.buf[b] != '{' {
		return 0, noMatch, nil
	}
	end, complete := p.jsonEnd(b, false)
	if !complete && !eof {
		return 0, needMore, nil
	}
	return p.namedJSON(i, b, end, complete, eof, name, format, closer)
}

// xmlDialect names the tags of one tagged-arguments format.
type xmlDialect struct {
	format     string
	paramOpen  string // up to the parameter name
	paramClose string
	close      string // ends the call
	outer      string // ends the wrapper the call is in, when there is one
	attrs      bool   // name="k" attributes, as opposed to <parameter=k>
	keyEnd     string // a spec's end of the key, in place of attrs' and '>'s
	wrapped    bool   // the value sits on lines of its own (see argsBuilder.value)
	// invokeBlock's: the arguments may be one JSON object instead
	// (Spec.JSONArguments), in tags of their own when jsonTags is set
	// (Spec.JSONTags); an empty call outside the section is none
	// (Spec.EmptyNeedsSection).
	jsonArgs, emptyNeedsSection bool
	jsonTags                    *Markers
	// escaped: attribute values are XML-escaped (Spec.Escaped);
	// typeAttr, the attribute that says a value's type
	// (ParamMarkers.TypeAttribute).
	escaped  bool
	typeAttr string
	// nameTagEnd and keyTagEnd end the call's and a parameter's
	// attribute tags; "" is '>' (CallMarkers.TagEnd, ParamMarkers.TagEnd).
	nameTagEnd, keyTagEnd string
}

// taggedArgs parses parameters from buf[k] until the dialect's closing tag
// and emits the call. A value is cut off when the input ends inside it: that
// is a parse_error, never a guessed value. A missing closing tag at the end
// of the input only loses the envelope, and the call stands.
func (p *Parser) taggedArgs(i, k int, eof bool, name, format string, d *xmlDialect) (int, status, error) {
	r := &p.tagged
	mine := r.kept && !noWaitFor && r.at == p.base+int64(i) && r.from == p.base+int64(k) && r.name == name && r.format == format && r.d == *d
	p.args.reset()
	from := k
	if mine && !eof {
		// The parameters read before, and the next one's start.
		p.args.buf = append(p.args.buf[:0], r.args...)
		p.args.repairs, p.args.exp = r.repairs, r.exp
		from = int(r.next - p.base)
	}
	end, st, err := p.taggedParams(i, from, eof, name, format, d)
	switch {
	case st == needMore && !eof:
		if !mine {
			r.kept, r.at, r.from, r.name, r.format, r.d = true, p.base+int64(i), p.base+int64(k), name, format, *d
			r.next = r.from - 1
		}
		if top := p.base + int64(r.top); top != r.next {
			r.next = top
			r.args = append(r.args[:0], p.args.buf...)
			r.repairs, r.exp = p.args.repairs, p.args.exp
		}
	case mine:
		r.kept = false // the call is read, or the input ended
	}
	return end, st, err
}

// taggedResume is what taggedArgs has read of a call still arriving: a
// call fed a token at a time is read again on each piece, and each
// reading went back over every parameter before the one arriving. A
// parameter read to its closing tag reads the same whatever follows
// (each test it passed looked only at bytes already there, and the
// arguments written are a function of them), so carrying on from the
// next one reads as starting over would. Offsets are the output's, and
// the reading is only carried on for the same block, parameters' start,
// name and dialect, never at the end of the input.
type taggedResume struct {
	kept     bool  // a reading is kept
	at, from int64 // the block and its first parameter
	next     int64 // where the first parameter not yet read starts
	top      int   // buf offset of the parameter taggedParams was reading when it stopped
	name     string
	format   string
	d        xmlDialect
	args     []byte // p.args.buf up to next
	repairs  repairSet
	exp      bool
}

// taggedParams is taggedArgs' reading from buf[k], the start of a
// parameter, with p.args holding the parameters before it.
func (p *Parser) taggedParams(i, k int, eof bool, name, format string, d *xmlDialect) (int, status, error) {
	a := &p.args
	for {
		k = p.skipSpace(k)
		// Nothing below writes to a before this parameter is read.
		p.tagged.top = k
		if k >= len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
			// Without its closing tag nothing says the argument list was
			// complete, and a cut-off payload is never completed.
			return k, matched, p.fail(i, k, format, fmt.Sprintf("call to %q was cut off before %s: its arguments may be incomplete; send the whole call again", name, d.close))
		}
		if ok, partial := p.hasPrefixAt(k, d.close); ok {
			end := k + len(d.close)
			if d.outer != "" {
				// Text between the call and its wrapper's end is the
				// call's, and it cannot be read as an argument.
				body, after, st := p.bodyEnd(end, d.outer, eof)
				if st == needMore {
					return 0, needMore, nil
				}
				if body != end {
					return after, matched, p.fail(i, after, format, fmt.Sprintf("call to %q: text %q after %s, before %s; write only the call between them", name, clip.Prefix(bytes.TrimSpace(p.buf[end:body]), 64), d.close, d.outer))
				}
			}
			p.noExp = !a.exp
			return end, matched, p.emitCall("", name, a.done(), format, a.repairs, p.base+int64(i), p.buf[i:end])
		} else if partial && !eof {
			p.waitForPrefix(d.close, k)
			return 0, needMore, nil
		}
		ok, partial := p.hasPrefixAt(k, d.paramOpen)
		if partial {
			if !eof {
				p.waitForPrefix(d.paramOpen, k)
				return 0, needMore, nil
			}
			return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off before %s: its arguments may be incomplete; send the whole call again", name, d.close))
		}
		if !ok {
			// A tag that starts neither parameters nor a closing tag is
			// prose that mentions it: "<function=name> followed by JSON".
			if len(a.buf) == 1 {
				return 0, noMatch, nil
			}
			// Anything else ends the call: a closer of the wrapper or
			// the next call. Missing </function> is repaired.
			// Only a tag parse knows (the wrapper's end, the next call)
			// shows where it ends; other markup is the call's text.
			marker, undecided := p.markerAt(k, eof)
			if undecided {
				return 0, needMore, nil
			}
			if eof || marker {
				if p.opts.NoRepair {
					return k, matched, p.fail(i, k, format, fmt.Sprintf("call to %q has no %s", name, d.close))
				}
				return k, matched, p.emitCall("", name, a.done(), format, a.repairs|repairMissingClosingTag, p.base+int64(i), p.buf[i:k])
			}
			return p.failThrough(i, k, d.outer, eof, format, fmt.Sprintf("call to %q: unexpected text %q between parameters; write each argument as %s…%s", name, firstChar(p.buf[k:]), d.paramOpen, d.paramClose))
		}
		k += len(d.paramOpen)
		ps := k
		var key []byte
		forceString, mark, typ := false, markNone, ""
		if d.attrs {
			v, after, st := p.attrValue(k, eof)
			if st != matched {
				if st == noMatch && eof {
					return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off inside a parameter tag; send the whole call again", name))
				}
				return 0, st, nil
			}
			key = v
			if d.escaped {
				key = unescapeAttr(key)
			}
			win, _ := p.ahead(after, eof)
			gt, n := tagEnd(win, d.keyTagEnd)
			if gt < 0 {
				if !eof {
					return 0, needMore, nil
				}
				return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off inside a parameter tag; send the whole call again", name))
			}
			mark = tagMark(p.buf[after : after+gt])
			forceString = mark == markString
			if d.typeAttr != "" {
				typ = attrNamed(p.buf[after:after+gt], d.typeAttr)
			}
			k = after + gt + n
		} else if d.keyEnd != "" {
			// A spec's key ends at its own marker (specCall).
			e := p.indexWithin(k, d.keyEnd, lookAhead)
			if e < 0 {
				if !eof && len(p.buf)-k <= lookAhead+len(d.keyEnd) {
					return 0, needMore, nil
				}
				return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off inside a parameter tag; send the whole call again", name))
			}
			key = p.buf[k:e]
			k = e + len(d.keyEnd)
		} else {
			win, _ := p.ahead(k, eof)
			gt := bytes.IndexByte(win, '>')
			if gt < 0 {
				if !eof {
					// Only a '>' in the window ends the parameter's tag.
					p.waitForWithin(">", len(p.buf), k+lookAhead)
					return 0, needMore, nil
				}
				return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off inside a parameter tag; send the whole call again", name))
			}
			key = trimKey(p.buf[k : k+gt])
			k += gt + 1
		}
		if holdsMarkup(key) {
			// A parameter name never holds markup: its tag was not closed
			// (a '>' or a quote missing), and the call ends at its own end
			// tag, never in the next call.
			tag := d.paramOpen + "NAME>"
			if d.attrs {
				tag = d.paramOpen + `"NAME">`
			} else if d.keyEnd != "" {
				tag = d.paramOpen + "NAME" + d.keyEnd
			}
			return p.failThrough(i, ps, d.close, eof, format, fmt.Sprintf("call to %q: a parameter tag is not closed before the next tag; write each argument as %s…%s", name, tag, d.paramClose))
		}
		// The value runs to its closing tag. A model that forgot it is
		// saved by a next parameter or the end of the call on a line of
		// its own, before any closing tag.
		e, st := p.closingTag(k, d.paramClose, eof)
		if st == needMore {
			if e < 0 {
				// Nothing is read until the value's closing tag comes.
				p.waitForTag(d.paramClose, k)
			}
			return 0, needMore, nil
		}
		if m, _ := p.firstOf(k, "\n"+d.paramOpen, "\n"+d.close); m >= 0 && (st != matched || m < e) {
			if p.opts.NoRepair {
				return m, matched, p.fail(i, m, format, fmt.Sprintf("call to %q: the value of %q has no %s", name, key, d.paramClose))
			}
			a.key(key)
			// The newline before the next tag is layout, unless the
			// format's own newline before a closing tag was it.
			vend := m
			if d.wrapped {
				vend = m + 1
			}
			a.value(p.buf[k:vend], p.tagType(name, key, typ), forceString, p.opts.NoRepair, d.wrapped)
			a.repairs |= repairMissingClosingTag
			k = m + 1
			continue
		}
		if st != matched {
			return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off in the value of %q: the output ended before %s; send the whole call again", name, key, d.paramClose))
		}
		a.key(key)
		if mark != markJSON || !a.stringLiteral(p.buf[k:e]) {
			a.value(p.buf[k:e], p.tagType(name, key, typ), forceString, p.opts.NoRepair, d.wrapped)
		}
		k = e + len(d.paramClose)
	}
}

// trimKey is a parameter name without the quotes and spaces around it
// (<parameter="k">, <parameter= k>).
func trimKey(b []byte) []byte {
	for len(b) > 0 && (b[0] == '"' || b[0] == '\'' || b[0] == ' ') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == '"' || b[len(b)-1] == '\'' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// holdsMarkup reports whether a parameter name holds '<', '>' or a
// newline: its tag was not closed.
func holdsMarkup(b []byte) bool {
	for _, c := range b {
		if c == '<' || c == '>' || c == '\n' {
			return true
		}
	}
	return false
}

// failThrough reports the call at buf[i:k] as a parse_error that takes
// in the text up to the wrapper's end marker outer, when that follows
// within leftoverWindow: everything inside a call's markers is the
// call's, and none of it is left over as prose.
func (p *Parser) failThrough(i, k int, outer string, eof bool, format, msg string) (int, status, error) {
	end := k
	if outer != "" {
		m := p.indexWithin(k, outer, leftoverWindow)
		if m < 0 && !eof && len(p.buf)-k < leftoverWindow {
			return 0, needMore, nil
		}
		if m >= 0 {
			end = m + len(outer)
		}
	}
	return end, matched, p.fail(i, end, format, msg)
}

// closingTag finds the tag that closes a tagged value starting at k: the
// first occurrence followed by nothing but space before the next tag (or
// the end of the input), so a value may contain the tag's text, as code
// that writes this very format does. At the end of the input, the first
// occurrence stands when none is followed by a tag: text after it is then
// reported as such, not as a value cut off. Waiting for more, it returns
// -1 while no closing tag has come that the next bytes could make the one.
func (p *Parser) closingTag(k int, tag string, eof bool) (int, status) {
	first := -1
	for {
		e := p.indexAt(k, tag)
		if first < 0 {
			first = e
		}
		if e < 0 {
			if !eof {
				return -1, needMore // no closing tag yet: see waitFor
			}
			if first >= 0 {
				return first, matched
			}
			return 0, noMatch
		}
		n := p.skipSpace(e + len(tag))
		if n == len(p.buf) {
			if !eof {
				return 0, needMore
			}
			return e, matched
		}
		// A tag starts the next one: '<', or '[' in a format whose tags
		// are bracketed (a format file's).
		if c := p.buf[n]; c == '<' || c == '[' && tag[0] == '[' {
			return e, matched
		}
		k = e + 1
	}
}

// glmCall parses GLM's NAME<arg_key>k</arg_key><arg_value>v</arg_value>…
// body inside <tool_call>.
func (p *Parser) glmCall(i, k int, eof bool, closer string, t *glmTags) (int, status, error) {
	toks := [...]string{t.key, closer, "\n", t.sep}
	n := len(toks)
	if t.sep == "" {
		n--
	}
	e, which := p.firstOf(k, toks[:n]...)
	if e < 0 {
		_, miss := p.ahead(k, eof)
		return 0, miss, nil
	}
	// The name is one word, in any script (获取天气), with nothing but
	// a line break or <arg_key> after it (GLM 4.5 Air writes "ls
	// <arg_key>"): "<tool_call> and </tool_call> tags" in prose is not a
	// call to "and".
	name := p.buf[k:e]
	if which == 0 || which == 3 {
		name = bytes.TrimRight(name, " \t")
	}
	if len(name) == 0 || len(name) > 128 || !isIdentByte(name[0], true) && name[0] < utf8.RuneSelf {
		return 0, noMatch, nil
	}
	for _, c := range name {
		if !isIdentByte(c, false) && c < utf8.RuneSelf {
			return 0, noMatch, nil
		}
	}
	if t.exact && !t.laidOut(which, k+len(name) < e) {
		return 0, noMatch, nil // another family's layout (Spec.Call.NameEndExact)
	}
	if which == 3 {
		e += len(t.sep)
	}
	format := t.format
	name = bytes.TrimPrefix(name, []byte("functions."))
	if b := p.skipSpace(e); which == 2 && t.nameJSON && b < len(p.buf) && p.buf[b] == '{' && p.allowed(FormatLaguna) {
		// poolside Laguna: the name on its line, then the arguments as
		// one JSON object.
		return p.namedArgs(i, b, eof, string(name), FormatLaguna, closer)
	}
	if !p.allowed(format) {
		return 0, noMatch, nil
	}
	a := &p.args
	a.reset()
	j := e
	for {
		j = p.skipSpace(j)
		if j >= len(p.buf) {
			if !eof {
				return 0, needMore, nil
			}
			return j, matched, p.fail(i, j, format, fmt.Sprintf("call to %q was cut off before %s: its arguments may be incomplete; send the whole call again", name, closer))
		}
		if ok, partial := p.hasPrefixAt(j, closer); ok {
			end := j + len(closer)
			p.noExp = !a.exp
			return end, matched, p.emitCall("", string(name), a.done(), format, a.repairs, p.base+int64(i), p.buf[i:end])
		} else if partial && !eof {
			return 0, needMore, nil
		}
		ok, partial := p.hasPrefixAt(j, t.key)
		if partial && !eof {
			return 0, needMore, nil
		}
		if !ok {
			if len(a.buf) == 1 {
				return 0, noMatch, nil
			}
			// Text before the call's end marker is the call's, and is
			// not an argument.
			body, after, st := p.bodyEnd(j, closer, eof)
			if st == needMore {
				return 0, needMore, nil
			}
			marker, undecided := p.markerAt(j, eof)
			if undecided {
				return 0, needMore, nil
			}
			if body != j || p.buf[j] == '<' && !marker {
				if after == j {
					after = body
				}
				return after, matched, p.fail(i, after, format, fmt.Sprintf("call to %q: text %q where an <arg_key> or %s belongs; write each argument as <arg_key>k</arg_key><arg_value>v</arg_value>", name, firstChar(p.buf[j:]), closer))
			}
			if p.opts.NoRepair {
				return j, matched, p.fail(i, j, format, fmt.Sprintf("call to %q has no %s", name, closer))
			}
			return j, matched, p.emitCall("", string(name), a.done(), format, a.repairs|repairMissingClosingTag, p.base+int64(i), p.buf[i:j])
		}
		ke := p.indexAt(j+len(t.key), t.keyEnd) // after the key's own tag, which may be spelt as its end
		if ke < 0 || bytes.IndexByte(p.buf[j+len(t.key):ke], '<') >= 0 || bytes.Contains(p.buf[j+len(t.key):ke], []byte(closer)) {
			// An argument name never holds markup, the call's own end
			// marker least of all (whatever its brackets): its closing
			// tag is missing, and the call ends at its own end marker
			// (the calls after it stand), never at a later call's
			// </arg_key>; read whole or in pieces, the same.
			noEnd := fmt.Sprintf("call to %q: an argument name has no %s; write each argument as %sk%s%sv%s", name, t.keyEnd, t.key, t.keyEnd, t.val, t.valEnd)
			if c := p.indexWithin(j, closer, maxBlock); c >= 0 && (ke < 0 || c < ke) {
				return c + len(closer), matched, p.fail(i, c+len(closer), format, noEnd)
			}
			if !eof {
				return 0, needMore, nil
			}
			if ke < 0 {
				noEnd = fmt.Sprintf("call to %q was cut off in an argument name; send the whole call again", name)
			}
			return len(p.buf), matched, p.fail(i, len(p.buf), format, noEnd)
		}
		key := p.buf[j+len(t.key) : ke]
		vs := ke + len(t.keyEnd)
		if t.val != "" {
			vs = p.skipSpace(vs)
			ok, partial = p.hasPrefixAt(vs, t.val)
			if !ok {
				if partial || vs >= len(p.buf) {
					if !eof {
						return 0, needMore, nil
					}
				}
				return vs, matched, p.fail(i, vs, format, fmt.Sprintf("call to %q: argument %q has no %s; write %s%s%s%s…%s", name, key, t.val, t.key, key, t.keyEnd, t.val, t.valEnd))
			}
			vs += len(t.val)
		}
		ve, st := p.closingTag(vs, t.valEnd, eof)
		if st == needMore {
			return 0, needMore, nil
		}
		if st != matched {
			ve = len(p.buf) // no </arg_value> at all: read on below
		}
		if c := bytes.Index(p.buf[vs:ve], []byte(closer)); c >= 0 && !p.opts.NoRepair && !bytes.Contains(p.buf[vs:vs+c], []byte(t.key)) && (st != matched || bytes.Contains(p.buf[vs+c:ve], []byte(t.key))) {
			// The value's </arg_value> left out right before the call's
			// end marker (the one found is a later call's, or there is
			// none): one reading, the value runs to the marker.
			a.key(key)
			a.value(p.buf[vs:vs+c], p.paramType(string(name), key), false, p.opts.NoRepair, false)
			a.repairs |= repairMissingClosingTag
			j = vs + c
			continue
		}
		if st != matched {
			return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off in the value of %q: the output ended before </arg_value>; send the whole call again", name, key))
		}
		if m := bytes.Index(p.buf[vs:ve], []byte(t.key)); m >= 0 {
			// The value ran into the next argument's markup: its
			// </arg_value> is missing, and which text is the value's is
			// not for parse to guess.
			return p.failThrough(i, vs+m, closer, eof, format, fmt.Sprintf("call to %q: the value of %q has no </arg_value> before the next <arg_key>; close each value: <arg_value>…</arg_value>", name, key))
		}
		a.key(key)
		a.value(p.buf[vs:ve], p.paramType(string(name), key), false, p.opts.NoRepair, false)
		j = ve + len(t.valEnd)
	}
}

// glmTags are the tags of a kv body's pairs (GLM's <arg_key>, and the
// same in other spellings) and what comes between the name and them.
type glmTags struct {
	key, keyEnd, val, valEnd string
	sep                      string // after the name: Hunyuan's <tool_sep>
	format                   string // the format of the calls
	// exact: the name is followed by sep and nothing else
	// (Spec.Call.NameEndExact), as laidOut says.
	exact bool
	// nameJSON: a JSON object of arguments may follow the name's line
	// instead of the pairs (poolside Laguna in <user> tags).
	nameJSON bool
}

// laidOut reports whether a name that glmCall's toks[which] ended, with
// space before it when spaced, is followed by t.sep alone: by sep's tag
// itself; for a sep of white space, by a line break or space before
// the first key (GLM 4.5, 4.5 Air); for none, right by the first key
// or the call's end (GLM 4.7).
func (t *glmTags) laidOut(which int, spaced bool) bool {
	switch {
	case t.sep == "":
		return (which == 0 || which == 1) && !spaced
	case strings.TrimSpace(t.sep) == "":
		return which == 2 || which == 0 && spaced
	}
	return which == 3
}

// functionTag handles <function=NAME> and <function name="NAME"> with no
// wrapper: Functionary v3.1 JSON bodies, or Qwen3-Coder parameters whose
// <tool_call> the model left out.
func (p *Parser) functionTag(i, j int, eof bool) (int, status, error) {
	if bytes.HasPrefix(p.buf[i:], []byte("<function name=")) {
		name, k, st := p.attrValue(j, eof)
		if st != matched {
			return 0, st, nil
		}
		if k >= len(p.buf) {
			if eof {
				return 0, noMatch, nil
			}
			return 0, needMore, nil
		}
		if p.buf[k] != '>' {
			return 0, noMatch, nil
		}
		b := p.skipSpace(k + 1)
		if b >= len(p.buf) {
			return needOrNot(eof)
		}
		if p.buf[b] != '{' {
			// MiniCPM 5: <param name="k">v</param> … </function>.
			ok, partial := p.hasPrefixAt(b, xmlMiniCPM5.paramOpen)
			if !ok {
				ok2, partial2 := p.hasPrefixAt(b, xmlMiniCPM5.close)
				ok, partial = ok2, partial || partial2
			}
			if partial && !eof {
				return 0, needMore, nil
			}
			if !ok || !p.allowed(FormatMiniCPM5) {
				return 0, noMatch, nil
			}
			return p.taggedArgs(i, b, eof, string(name), FormatMiniCPM5, xmlMiniCPM5)
		}
		if !p.allowed(FormatFunctionTag) {
			return 0, noMatch, nil
		}
		return p.namedArgs(i, k+1, eof, string(name), FormatFunctionTag, "</function>")
	}
	end, st, err := p.qwenFunction(i, j, eof, FormatQwen3Coder, "")
	if st == matched && err == nil {
		end = p.closeBlock(end, "</tool_call>")
	}
	return end, st, err
}

// firstChar is the character at the start of b, for "found …" in messages:
// one character, so the message does not depend on how much input has
// arrived.
func firstChar(b []byte) string {
	if len(b) == 0 || b[0] >= utf8.RuneSelf {
		return "a non-ASCII character" // which may not have arrived whole
	}
	return string(b[:1])
}
