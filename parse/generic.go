package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The generic body readers: the common shapes a tool call's body takes
// after its name, each a function of its markers, so that the syntaxes
// that only differ in those markers share one reader. Format files'
// body kinds (DESIGN.md §4a: params, kv, json, name_json) are these.
//
//   - readParams: parameters in repeated tags, the key in an attribute
//     or as the tag's own name (paramTags):
//     <parameter name="k">v</parameter>, <parameter=k>v</parameter>,
//     <k>v</k>.
//   - readKV: key/value pairs in alternating tags (kvTags):
//     <arg_key>k</arg_key><arg_value>v</arg_value>.
//   - readNameJSON: a JSON arguments object (after the name).
//   - readJSONCalls: a JSON object holding the name and the arguments
//     (name/function/tool/tool_name/recipient and
//     arguments/args/parameters/input/params), an array of them, or a
//     Python literal of either.
//
// Values read as text are typed by the tool's schema when it is known
// (Options.ParamType), else read as JSON when they are JSON, else kept
// as strings (argsBuilder.value).
//
// With Options.KnownTool, the same readers read markup no family claims
// (generic_block.go): markers are found by the words of their tags
// (generic_tag.go), and a call read that way says so in its format.

// The formats of calls read by the generic readers in unknown markup.
const (
	FormatGenericParams   = "generic_params"
	FormatGenericKV       = "generic_kv"
	FormatGenericJSON     = "generic_json"
	FormatGenericNameJSON = "generic_name_json"
)

// gcall is one call a generic reader read: its tool, its arguments as
// JSON (or a JSON string holding them), what reading them repaired,
// and where in the block it lies. msg, when set, says why a call to a
// known tool does not read: the span is then a parse_error.
type gcall struct {
	name       string
	args       []byte
	repairs    repairSet
	format     string
	start, end int
	msg        string
}

// paramTags are the markers of parameters in tags of their own. With
// keyIsTag the key is the tag's name (<k>v</k>) and Open is only the
// bracket; else the key follows Open and ends at KeyEnd.
type paramTags struct {
	Open, KeyEnd, Close string
	// TagEnd ends the opening tag when more may follow the key in it
	// (<parameter name="k" string="true">): KeyEnd is then the quote.
	TagEnd   string
	keyIsTag bool
}

// kvTags are the markers of key/value pairs in alternating tags.
type kvTags struct {
	Key, KeyEnd, Value, ValueEnd string
	// Type, TypeEnd, when set, mark a type between a key and its value
	// (K2 Horizon's <ifm|arg_type>integer</ifm|arg_type>), which is
	// skipped: the schema types values.
	Type, TypeEnd string
}

// readCtx is what the readers need besides the text: the tool's schema
// types and whether the user turned repair off.
type readCtx struct {
	tool     string
	ptype    func(tool, param string) string
	noRepair bool
}

func (c *readCtx) typ(key []byte) string {
	if c.ptype == nil {
		return ""
	}
	return c.ptype(c.tool, string(bytes.TrimSpace(key)))
}

// tagValue appends one value read as text. A value on lines of its own
// (<p>\nv\n</p>) loses those two newlines, as Qwen3-Coder's template
// writes them; any other whitespace is content.
func (c *readCtx) tagValue(a *argsBuilder, key, v []byte, mark valueMark) {
	a.key(key)
	if mark == markJSON && a.stringLiteral(v) {
		return
	}
	wrapped := len(v) > 0 && (v[0] == '\n' || len(v) > 1 && v[0] == '\r' && v[1] == '\n')
	a.value(v, c.typ(key), mark == markString, c.noRepair, wrapped)
}

// valueMark is what a parameter's tag says of its value: string="true"
// (a string, whatever it looks like) or string="false" (JSON), as DeepSeek
// DSML's and GigaChat 3.5's tags do.
type valueMark uint8

const (
	markNone valueMark = iota
	markString
	markJSON
)

// tagMark reads a parameter tag's string="…" attribute.
func tagMark(tag []byte) valueMark {
	switch {
	case bytes.Contains(tag, []byte(`string="true"`)):
		return markString
	case bytes.Contains(tag, []byte(`string="false"`)):
		return markJSON
	}
	return markNone
}

// readParams reads parameters at b[k:] written with the markers m, up to
// the call's end marker end (also any of stops: the end of the section
// the call is in). It returns where it stopped (at end or a stop, not
// past it) and the arguments. A parameter whose own end marker is left
// out before the call's end, or before the next parameter, is read to
// there and marked missing_closing_tag; a value the input cuts off is
// an error.
func readParams(b []byte, k int, eof bool, m paramTags, end []string, c *readCtx, a *argsBuilder) (int, status, string) {
	for {
		var more bool
		var st status
		var msg string
		if k, st, msg, more = nextTag(b, k, eof, m.Open, end, c); !more {
			return k, st, msg
		}
		ks := k + len(m.Open)
		mark := markNone
		var key []byte
		var vs int
		if m.keyIsTag {
			e := bytes.IndexByte(b[ks:min(len(b), ks+maxTag)], '>')
			if e < 0 {
				return cutOrMore(b, eof, c, "in a parameter tag")
			}
			key, vs = b[ks:ks+e], ks+e+1
			if !identWord(string(key)) || markupWord(strings.ToLower(string(key))) {
				return k, matched, "" // not a parameter: the caller decides
			}
		} else {
			e := bytes.Index(b[ks:min(len(b), ks+maxTag)], []byte(m.KeyEnd))
			if e < 0 {
				return cutOrMore(b, eof, c, "in a parameter tag")
			}
			key, vs = trimKey(b[ks:ks+e]), ks+e+len(m.KeyEnd)
			if m.TagEnd != "" {
				te := bytes.Index(b[vs:min(len(b), vs+maxTag)], []byte(m.TagEnd))
				if te < 0 {
					return cutOrMore(b, eof, c, "in a parameter tag")
				}
				mark = tagMark(b[vs : vs+te])
				vs += te + len(m.TagEnd)
			}
		}
		if holdsMarkup(key) || len(key) == 0 {
			return ks, matched, fmt.Sprintf("call to %q: a parameter tag is not closed before the next tag; write each argument as %sNAME%s…%s", c.tool, m.Open, m.KeyEnd, m.Close)
		}
		closeTok := m.Close
		if m.keyIsTag {
			closeTok = "</" + string(key) + ">"
		}
		ve := bytes.Index(b[vs:], []byte(closeTok))
		// The value runs to its end marker; one left out ends at the
		// call's end marker or the next parameter, the one reading there.
		cut := -1
		for _, s := range append([]string{"\n" + m.Open}, end...) {
			if x := bytes.Index(b[vs:], []byte(s)); x >= 0 && (cut < 0 || x < cut) {
				cut = x
			}
		}
		if cut >= 0 && (ve < 0 || cut < ve) && bytes.Contains(b[vs:vs+cut], []byte(m.Open)) && !m.keyIsTag {
			// The value runs into another parameter's tag on its own
			// line: which text is the value's is not for parse to guess.
			return vs + cut, matched, fmt.Sprintf("call to %q: the value of %q has no %s before the next parameter; close each value", c.tool, key, closeTok)
		}
		if k, st, msg = c.endValue(a, b, vs, ve, cut, eof, key, closeTok, mark); st != matched || msg != "" {
			return k, st, msg
		}
	}
}

// readKV reads key/value pairs at b[k:] written with the markers m, up
// to the call's end marker end (or a stop). As readParams, a value whose
// end marker is left out before the call's end is read to there.
func readKV(b []byte, k int, eof bool, m kvTags, end []string, c *readCtx, a *argsBuilder) (int, status, string) {
	for {
		var more bool
		var st status
		var msg string
		if k, st, msg, more = nextTag(b, k, eof, m.Key, end, c); !more {
			return k, st, msg
		}
		ks := k + len(m.Key)
		ke := bytes.Index(b[ks:min(len(b), ks+maxTag)], []byte(m.KeyEnd))
		if ke < 0 {
			return cutOrMore(b, eof, c, "in an argument name")
		}
		key := b[ks : ks+ke]
		if bytes.IndexByte(key, '<') >= 0 {
			return ks, matched, fmt.Sprintf("call to %q: an argument name has no %s; write each argument as %sk%s%sv%s", c.tool, m.KeyEnd, m.Key, m.KeyEnd, m.Value, m.ValueEnd)
		}
		vs := skipWS(b, ks+ke+len(m.KeyEnd))
		if m.Type != "" && bytes.HasPrefix(b[vs:], []byte(m.Type)) {
			te := bytes.Index(b[vs:min(len(b), vs+maxTag)], []byte(m.TypeEnd))
			if te < 0 {
				return cutOrMore(b, eof, c, "in an argument's type")
			}
			vs = skipWS(b, vs+te+len(m.TypeEnd))
		}
		if vs >= len(b) || len(b)-vs < len(m.Value) && !eof {
			return cutOrMore(b, eof, c, "after an argument name")
		}
		if !bytes.HasPrefix(b[vs:], []byte(m.Value)) {
			return vs, matched, fmt.Sprintf("call to %q: argument %q has no %s; write %s%s%s%s…%s", c.tool, key, m.Value, m.Key, key, m.KeyEnd, m.Value, m.ValueEnd)
		}
		vs += len(m.Value)
		ve := bytes.Index(b[vs:], []byte(m.ValueEnd))
		cut := -1
		for _, s := range end {
			if x := bytes.Index(b[vs:], []byte(s)); x >= 0 && (cut < 0 || x < cut) {
				cut = x
			}
		}
		if x := bytes.Index(b[vs:], []byte(m.Key)); x >= 0 && (ve < 0 || x < ve) && (cut < 0 || x < cut) {
			// The value ran into the next key: its end marker is
			// missing, and which text is the value's is not for parse
			// to guess (as GLM's reader decides).
			return vs + x, matched, fmt.Sprintf("call to %q: the value of %q has no %s before the next %s; close each value", c.tool, key, m.ValueEnd, m.Key)
		}
		if k, st, msg = c.endValue(a, b, vs, ve, cut, eof, key, m.ValueEnd, markNone); st != matched || msg != "" {
			return k, st, msg
		}
	}
}

// nextTag is the head of readParams' and readKV's loop: past layout at
// b[k], whether the next tag opens with open (more, at the returned k),
// or where the arguments stop: at one of end, or at text that is not
// open (matched, for the caller to decide), or cut off by the end of
// the output (an error).
func nextTag(b []byte, k int, eof bool, open string, end []string, c *readCtx) (int, status, string, bool) {
	k = skipWS(b, k)
	if k >= len(b) {
		if !eof {
			return 0, needMore, "", false
		}
		return k, matched, fmt.Sprintf("call to %q was cut off before its end marker: its arguments may be incomplete; send the whole call again", c.tool), false
	}
	if !eof && (partialAny(b[k:], end) || len(b)-k < len(open) && bytes.HasPrefix([]byte(open), b[k:])) {
		return 0, needMore, "", false
	}
	if hasAny(b[k:], end) || !bytes.HasPrefix(b[k:], []byte(open)) {
		return k, matched, "", false
	}
	return k, matched, "", true
}

// endValue is the tail of readParams' and readKV's loop: the value at
// b[vs:] ends at its end marker closeTok, found at ve (-1: not found),
// or, left out, at cut (where the call's end or the next parameter
// starts; -1: none), read to there and marked missing_closing_tag. It
// appends the value and returns where the next tag may start; st other
// than matched, or a msg, ends the arguments there.
func (c *readCtx) endValue(a *argsBuilder, b []byte, vs, ve, cut int, eof bool, key []byte, closeTok string, mark valueMark) (int, status, string) {
	if cut >= 0 && (ve < 0 || cut < ve) {
		if !eof && ve < 0 && vs+cut+maxTag > len(b) {
			return 0, needMore, ""
		}
		if c.noRepair {
			return vs + cut, matched, fmt.Sprintf("call to %q: the value of %q has no %s", c.tool, key, closeTok)
		}
		c.tagValue(a, key, b[vs:vs+cut], mark)
		a.repairs |= repairMissingClosingTag
		return vs + cut, matched, ""
	}
	if ve < 0 {
		if !eof {
			return 0, needMore, ""
		}
		return len(b), matched, fmt.Sprintf("call to %q was cut off in the value of %q: the output ended before %s; send the whole call again", c.tool, key, closeTok)
	}
	c.tagValue(a, key, b[vs:vs+ve], mark)
	return vs + ve + len(closeTok), matched, ""
}

// readNameJSON reads the JSON arguments object at b[k] (a Python
// literal too). It returns where the object ends.
func readNameJSON(b []byte, k int, eof bool, c *readCtx) ([]byte, int, repairSet, status, string) {
	out, res, err := appendJSON(nil, b[k:], c.noRepair, true)
	if err != nil || res.Truncated {
		if !eof {
			return nil, 0, 0, needMore, ""
		}
		return nil, len(b), 0, matched, fmt.Sprintf("call to %q: its arguments are not one JSON object: %v", c.tool, errOrCut(err))
	}
	if len(out) == 0 || out[0] != '{' {
		return nil, k + res.N, 0, matched, fmt.Sprintf("call to %q: its arguments are not a JSON object; write them as {\"name\": value, …}", c.tool)
	}
	return out, k + res.N, res.Repairs, matched, ""
}

func errOrCut(err error) error {
	if err == nil {
		return fmt.Errorf("the output ended before it was complete")
	}
	return err
}

// The member names a JSON call object may hold its tool's name and its
// arguments under.
var (
	jsonNameKeys = []string{"name", "function", "tool", "tool_name", "recipient"}
	jsonArgsKeys = []string{"arguments", "args", "parameters", "input", "params"}
)

// readJSONCalls reads the JSON value at b[k] (a Python literal too) as
// calls to known tools: a call object, an array of them, or Apertus'
// {"tool": {arguments}}. ok is false unless every call in it names a
// known tool.
func readJSONCalls(b []byte, k int, eof bool, known func(string) bool, noRepair bool) (calls []gcall, end int, st status, ok bool) {
	out, res, err := appendJSON(nil, b[k:], noRepair, true)
	if err != nil || res.Truncated {
		if !eof {
			return nil, 0, needMore, false
		}
		return nil, 0, noMatch, false
	}
	var items []json.RawMessage
	if out[0] == '[' {
		if json.Unmarshal(out, &items) != nil || len(items) == 0 {
			return nil, 0, noMatch, false
		}
	} else {
		items = []json.RawMessage{out}
	}
	for _, it := range items {
		name, args, okc := jsonCall(it, known)
		if !okc {
			return nil, 0, noMatch, false
		}
		calls = append(calls, gcall{name: name, args: args, repairs: res.Repairs, format: FormatGenericJSON, start: k, end: k + res.N})
	}
	return calls, k + res.N, matched, true
}

// jsonCall reads one call object naming a known tool.
func jsonCall(raw json.RawMessage, known func(string) bool) (string, []byte, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return "", nil, false
	}
	for _, nk := range jsonNameKeys {
		v, ok := obj[nk]
		if !ok {
			continue
		}
		var name string
		if json.Unmarshal(v, &name) != nil {
			// {"function": {"name": …, "arguments": …}}
			if n, a, ok := jsonCall(v, known); ok {
				return n, a, true
			}
			continue
		}
		name = strings.TrimPrefix(name, "functions.")
		if !known(name) {
			return "", nil, false
		}
		for _, ak := range jsonArgsKeys {
			if a, ok := obj[ak]; ok {
				return name, a, true
			}
		}
		if len(obj) == 1 {
			return name, []byte("{}"), true
		}
		return "", nil, false
	}
	if len(obj) == 1 {
		// Apertus: the tool's name is the key.
		for n, a := range obj {
			if known(n) && len(a) > 0 && a[0] == '{' {
				return n, a, true
			}
		}
	}
	return "", nil, false
}

func skipWS(b []byte, j int) int {
	for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
		j++
	}
	return j
}

func hasAny(b []byte, toks []string) bool {
	for _, t := range toks {
		if t != "" && bytes.HasPrefix(b, []byte(t)) {
			return true
		}
	}
	return false
}

// partialAny reports whether b, the end of the input so far, is a
// proper prefix of one of toks: what follows decides.
func partialAny(b []byte, toks []string) bool {
	for _, t := range toks {
		if len(b) < len(t) && bytes.HasPrefix([]byte(t), b) {
			return true
		}
	}
	return false
}

func cutOrMore(b []byte, eof bool, c *readCtx, where string) (int, status, string) {
	if !eof {
		return 0, needMore, ""
	}
	return len(b), matched, fmt.Sprintf("call to %q was cut off %s; send the whole call again", c.tool, where)
}
