package parse

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/internal/editdist"
)

// Spec is one model family as data: its id, the models that write it, and
// the markers and body reader its calls are read with. Built-in families,
// the syntax a chat template shows (Syntax.Spec) and a user's format file
// (LoadFormatFile) are specs of the same kind; its JSON form is the format
// file's (docs/formats.md documents every field).
type Spec struct {
	// Format is the id every call read this way carries.
	Format string `json:"format"`
	// Models lists the models that write it.
	Models []string `json:"models,omitempty"`
	// Example is a short sample of the syntax; for a format file, what
	// the property tests render and read back.
	Example string `json:"example,omitempty"`
	// Section, when set, are markers around one or more calls.
	Section *Markers `json:"section,omitempty"`
	// Call are the markers of one call.
	Call CallMarkers `json:"call"`
	// Body is how what is inside a call is read: one of the Body…
	// constants.
	Body string `json:"body"`
	// NameKeys and ArgumentsKeys name the members of a json body's call
	// object that hold the tool's name and its arguments, the first
	// present winning; empty means DefaultNameKeys, DefaultArgumentsKeys.
	NameKeys      []string `json:"name_keys,omitempty"`
	ArgumentsKeys []string `json:"arguments_keys,omitempty"`
	// NameIsKey says a json body's call object may also be
	// {"NAME": {arguments}}, the tool's name its one key (Swiss AI
	// Apertus).
	NameIsKey bool `json:"name_is_key,omitempty"`
	// Fenced says a pythonic body's calls sit in a Markdown code fence
	// inside the call's markers, one a line (MiniCPM3's ```python); a
	// name_json body's arguments, after the name (DeepSeek R1's
	// NAME\n```json\n{…}\n```).
	Fenced bool `json:"fenced,omitempty"`
	// Param are the tags of one parameter of a params body.
	Param *ParamMarkers `json:"param,omitempty"`
	// Key and Value are the tags of a kv body's pairs.
	Key   *Markers `json:"key,omitempty"`
	Value *Markers `json:"value,omitempty"`
	// StringQuote is the token a brace body's strings are between, in
	// place of '"' (FunctionGemma's <escape>, Gemma 4's <|"|>).
	StringQuote string `json:"string_quote,omitempty"`
	// Reasoning lists markers around a think block: nothing inside one
	// is a call.
	Reasoning []Markers `json:"reasoning,omitempty"`
	// AfterReasoning says a call may follow the end of a think block
	// (Reasoning) without Call.Start, as Gemma 4 writes one after its
	// thought channel: <channel|>call:f{…}.
	AfterReasoning bool `json:"after_reasoning,omitempty"`
	// Skip lists control tokens that are never prose (end of turn).
	Skip []string `json:"skip,omitempty"`
	// Prompt is the end of the prompt the output continues (a chat
	// template's generation prompt): read as if the output came right
	// after it. It applies when --format names this format.
	Prompt string `json:"prompt,omitempty"`
	// Result is how the family's chat template writes each tool result
	// back into the conversation (AppendResult; run's resultAs template
	// function); nil when the spec does not say.
	Result *ResultMarkers `json:"result,omitempty"`
	// JSONArguments says a params body's arguments may instead be one
	// JSON object right after the call's opening tag (DeepSeek V3.2's
	// DSML writes either).
	JSONArguments bool `json:"json_arguments,omitempty"`
	// EmptyNeedsSection says a params call with no parameters is read
	// only inside the section: outside it, an opening and a closing tag
	// alone (MiniMax M2's <invoke name="x"></invoke> in prose) say too
	// little to be a call.
	EmptyNeedsSection bool `json:"empty_needs_section,omitempty"`
	// AlsoSpelled lists other spellings of the call markup: every
	// marker of the section, the call and its parameters is also read
	// with each pair's From written as To, in every combination of the
	// pairs (DSML's ASCII '|' for '｜', and V4's tool_calls for V3.2's
	// function_calls).
	AlsoSpelled []Spelling `json:"also_spelled,omitempty"`
	// JSONTags, when set, are the tags a params call's arguments may be
	// written in instead, as one JSON object: Start, attributes up to
	// the next '>', the object, End (Kimi K3's <|open|>json
	// type="object"<|sep|>{…}<|close|>json<|sep|>).
	JSONTags *Markers `json:"json_tags,omitempty"`
	// Escaped says attribute values (call.attribute's name,
	// param.attribute's key) are XML-escaped, &amp; for '&' (Kimi K3).
	Escaped bool `json:"escaped,omitempty"`
	// Lines says a json body is call objects one a line, up to
	// call.end (MiniMax M1's <tool_calls>\n{…}\n{…}\n</tool_calls>); a
	// body that does not start with an object is not the family's.
	Lines bool `json:"lines,omitempty"`
	// TagSuffix says the family also writes each of its markers that is
	// a tag with this text before the tag's '>' (Hunyuan Hy3's
	// tokenizer: <tool_call:opensource>, <arg_key:opensource>): those
	// markers are read as the plain ones are, and name the same format.
	TagSuffix string `json:"tag_suffix,omitempty"`

	// Source says where the spec comes from: "built-in", a format
	// file's path, or "template PATH".
	Source string `json:"-"`
	// Code, for a built-in family read by code of its own, says why no
	// generic body reader fits. Such a family may still have a file form
	// (Body set) that reads what its example shows.
	Code string `json:"-"`

	// own are the markers a built-in family's code reads, which
	// dispatch.go indexes; a family without them is read by its spec.
	own []marker
	// opens are the family's markers that open a call section, and so
	// end an open think block (sectionOpener).
	opens []string
	// endsInSection: the family's code reads its section, whose end
	// also ends a call in it that left its own end marker out
	// (sectionEnds), as a spec's section end does.
	endsInSection bool
	// try is where a built-in family is tried among the readings that
	// share its call's (or section's) start marker: lower first, then
	// by id (buildMarkers). A format file's spec is tried before them
	// all.
	try int
	// specToo: the family's own markers are beside its spec's, which
	// read its calls (poolside Laguna's <user> tags are code).
	specToo bool
	// shared: the family's start marker is shared (set by
	// buildMarkers): a marker with nothing after it, or a call cut off
	// in its header, is left to the next reading and the fallback.
	shared bool
}

// Markers are a start and an end marker.
type Markers struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// Spelling is another way a family's markers are written: From as To.
type Spelling struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// spellings are s (without AlsoSpelled) and, for each combination of its AlsoSpelled pairs
// that changes a marker, a copy of s with the markers so written, each
// spelling once.
func (s *Spec) spellings() []*Spec {
	if len(s.AlsoSpelled) == 0 {
		return []*Spec{s}
	}
	base := *s
	base.AlsoSpelled = nil
	out := []*Spec{&base}
	for _, sp := range s.AlsoSpelled {
		for _, o := range out {
			c := o.respelled(sp)
			if !slices.ContainsFunc(out, func(x *Spec) bool { return x.sameMarkers(c) }) {
				out = append(out, c)
			}
		}
	}
	return out
}

// respelled is a copy of s with sp.From written as sp.To in the markers
// of its section, calls and parameters.
func (s *Spec) respelled(sp Spelling) *Spec {
	r := func(t string) string { return strings.ReplaceAll(t, sp.From, sp.To) }
	c := *s
	c.AlsoSpelled = nil
	m := func(ms *Markers) *Markers {
		if ms == nil {
			return nil
		}
		return &Markers{Start: r(ms.Start), End: r(ms.End)}
	}
	c.Section, c.Key, c.Value = m(s.Section), m(s.Key), m(s.Value)
	c.Call.Start, c.Call.NameStart, c.Call.NameEnd, c.Call.End = r(s.Call.Start), r(s.Call.NameStart), r(s.Call.NameEnd), r(s.Call.End)
	if s.Param != nil {
		p := *s.Param
		p.Start, p.KeyEnd, p.End = r(p.Start), r(p.KeyEnd), r(p.End)
		c.Param = &p
	}
	return &c
}

// sameMarkers reports whether s and o write their markup alike.
func (s *Spec) sameMarkers(o *Spec) bool {
	eq := func(a, b *Markers) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
	return s.Call == o.Call && eq(s.Section, o.Section) && eq(s.Key, o.Key) && eq(s.Value, o.Value) &&
		(s.Param == nil && o.Param == nil || s.Param != nil && o.Param != nil && *s.Param == *o.Param)
}

// CallMarkers are the markers of one call: Start, then (after NameStart,
// when set) the tool's name up to NameEnd, then the body, then End.
type CallMarkers struct {
	Start string `json:"start"`
	// NameStart, when set, is where the name begins: anything between
	// Start and it (a call id) is skipped.
	NameStart string `json:"name_start,omitempty"`
	NameEnd   string `json:"name_end,omitempty"`
	// NamePrefix and IndexSep say the name is written as an id,
	// NamePrefix NAME IndexSep INDEX (Kimi K2's functions.f:0): the
	// prefix, when there, and the index are dropped, and an id that is
	// an index alone names no tool.
	NamePrefix string `json:"name_prefix,omitempty"`
	IndexSep   string `json:"index_sep,omitempty"`
	End        string `json:"end,omitempty"`
	// Spaced says space may come between the tags Start, NameEnd and
	// End are made of (PLaMo 3), and that a call whose name is not
	// followed by all of NameEnd's tags is told it has no arguments.
	Spaced bool `json:"spaced,omitempty"`
	// NoEnd says the family writes no end marker (IBM Granite's
	// <|tool_call|>[…], Mistral's [TOOL_CALLS]): with a json or
	// name_json body, the call ends where its JSON does; a pythonic
	// body is then one call, NAME(…), that ends at its ')'.
	NoEnd bool `json:"no_end,omitempty"`
	// Attribute says a params body's name is an attribute value right
	// after Start (<invoke name=), or NameStart when set: quoted with '"' or '\'' or bare, the
	// tag running to the next '>', other attributes aside (MiniMax M2).
	Attribute bool `json:"attribute,omitempty"`
	// TagEnd, with Attribute, ends the call's opening tag after its
	// attributes in place of '>' (Kimi K3's <|sep|>).
	TagEnd string `json:"tag_end,omitempty"`
	// IDStart, for a name_json body, is where a call id written after
	// the name begins, when there: the id, up to NameEnd, is skipped
	// (Mistral's NAME[CALL_ID]ID[ARGS]{…}).
	IDStart string `json:"id_start,omitempty"`
	// NameEndOptional says a name_json call may leave NameEnd out: its
	// name is then followed by its arguments' '{' (Mistral's NAME{…}
	// beside NAME[ARGS]{…}).
	NameEndOptional bool `json:"name_end_optional,omitempty"`
	// NameSuffix, for a pythonic body with NoEnd, is dropped from the
	// end of the call's name when there (Llama 3's built-in tools,
	// <|python_tag|>brave_search.call(…)).
	NameSuffix string `json:"name_suffix,omitempty"`
	// Word says Start is a word right before the '[' of a JSON list of
	// calls, not a tag (Phi-4-mini's functools[…]): found at that '[',
	// the word the call's, not prose.
	Word bool `json:"word,omitempty"`
	// NameEndExact says a kv body's name is followed by NameEnd and by
	// nothing else, or, when NameEnd is empty, right by the first key
	// tag or End: a call laid out otherwise is not this family's, and
	// the next that shares Start reads it (GLM 4.7 writes
	// NAME<arg_key>, GLM 4.5 NAME\n<arg_key>). A NameEnd of white
	// space is also space before the first key tag (GLM 4.5 Air writes
	// NAME <arg_key>).
	NameEndExact bool `json:"name_end_exact,omitempty"`
}

// ParamMarkers are the tags of one parameter of a params body:
// Start KEY KeyEnd VALUE End.
type ParamMarkers struct {
	Start  string `json:"start"`
	KeyEnd string `json:"key_end,omitempty"`
	End    string `json:"end"`
	// Wrapped says the value sits on lines of its own (Qwen3-Coder's
	// "<parameter=k>\nv\n</parameter>"): the one newline after the key
	// and the one before End are layout, not the value's.
	Wrapped bool `json:"wrapped,omitempty"`
	// Attribute says the key is an attribute value right after Start
	// (<parameter name=), quoted either way or bare, the tag running to
	// the next '>'; a string="true" attribute in it says the value is
	// text, string="false" that it is JSON (DeepSeek's DSML).
	Attribute bool `json:"attribute,omitempty"`
	// TypeAttribute, with Attribute, is the attribute of the tag that
	// says the value's type (Kimi K3's type="number"): it wins over the
	// schema's.
	TypeAttribute string `json:"type_attribute,omitempty"`
	// TagEnd, with Attribute, ends the key's tag after its attributes
	// in place of '>' (Kimi K3's <|sep|>).
	TagEnd string `json:"tag_end,omitempty"`
}

// key is k as a parameter's tag writes it, up to its value: an
// attribute value in quotes and the tag's '>', or k and KeyEnd.
func (m *ParamMarkers) key(k string) string {
	switch {
	case m.Attribute:
		return `"` + k + `"` + orTagEnd(m.TagEnd)
	case m.KeyEnd == "":
		return k + ">"
	}
	return k + m.KeyEnd
}

// orTagEnd is an attribute tag's end: t, or '>'.
func orTagEnd(t string) string {
	if t == "" {
		return ">"
	}
	return t
}

// The body readers.
const (
	// BodyJSON: a JSON call object holding the name and the arguments,
	// or an array of them.
	BodyJSON = "json"
	// BodyNameJSON: the name, then a JSON object of arguments.
	BodyNameJSON = "name_json"
	// BodyParams: the name, then parameters each in tags of their own.
	BodyParams = "params"
	// BodyKV: the name, then key and value each in a tag of its own.
	BodyKV = "kv"
	// BodyPythonic: Python-style calls, f(a=1), one or a list of them.
	BodyPythonic = "pythonic"
	// BodyBrace: one or more calls NAME_START NAME{k:QvQ,n:3}, each's
	// arguments an object with bare keys and strings between the
	// spec's StringQuote (FunctionGemma, Gemma 4).
	BodyBrace = "brace"
)

// Bodies lists the body readers a spec may name.
var Bodies = []string{BodyJSON, BodyNameJSON, BodyParams, BodyKV, BodyPythonic, BodyBrace}

// The members a json body's call object names its tool and arguments with
// when the spec does not say.
var (
	DefaultNameKeys      = []string{"name"}
	DefaultArgumentsKeys = []string{"arguments", "parameters"}
)

// SpecError is what is wrong with a spec: the field, and how to fix it.
type SpecError struct {
	Field string // "call.end"
	Msg   string // what is wrong and the fix
}

func (e *SpecError) Error() string { return e.Field + ": " + e.Msg }

func specErr(field, format string, args ...any) error {
	return &SpecError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Check reports the first thing wrong with s as a *SpecError.
func (s *Spec) Check() error {
	if s.Format == "" {
		return specErr("format", `is required: the id every call read this way carries, such as "acme_xml"`)
	}
	if strings.Trim(s.Format, "abcdefghijklmnopqrstuvwxyz0123456789_.-") != "" {
		return specErr("format", "%q: use lower-case letters, digits, '_', '.' and '-' only", s.Format)
	}
	if err := s.Result.check(); err != nil {
		return err
	}
	if s.Code != "" && s.Body == "" {
		return nil // a built-in's own code reads it
	}
	for k, sp := range s.AlsoSpelled {
		field := fmt.Sprintf("also_spelled[%d]", k)
		switch {
		case sp.From == "":
			return specErr(field+".from", "is required: the text of a marker written another way")
		case sp.From == sp.To:
			return specErr(field+".to", "%q is from's text: give the other spelling, or drop the pair", sp.To)
		}
	}
	if len(s.AlsoSpelled) > 0 {
		for _, o := range s.spellings()[1:] {
			if err := o.Check(); err != nil {
				return specErr("also_spelled", "respells a marker so that %v: change the pair", err)
			}
		}
	}
	opener := func(field, t string) error {
		if len(t) < 2 || t[0] != '<' && t[0] != '[' {
			return specErr(field, "%q: a marker that starts a block must begin with '<' or '[' (the bytes parse stops at) and be two bytes or longer", t)
		}
		return nil
	}
	need := func(field, t, what string) error {
		if t == "" {
			return specErr(field, "is required: %s", what)
		}
		return nil
	}
	if s.Call.Word {
		// functools[…]: a word, found at the list's '[' after it.
		switch w := strings.TrimSpace(s.Call.Start); {
		case s.Body != BodyJSON || s.Lines || s.Section != nil:
			return specErr("call.word", "is read with body json, without lines or section: a word before a JSON list of calls; drop it, or change those")
		case strings.ContainsAny(s.Call.Start, "<[\n") || len(w) < 4:
			return specErr("call.start", "%q: with call.word, a word of four letters or more, with no '<', '[' or line break in it (Phi-4-mini's \"functools\")", s.Call.Start)
		}
	} else if err := opener("call.start", s.Call.Start); err != nil {
		return err
	}
	switch {
	case s.Call.NoEnd && s.Call.End != "":
		return specErr("call.no_end", "is true, and call.end is %q: drop one of them", s.Call.End)
	case s.Call.NoEnd && s.Body != BodyJSON && s.Body != BodyNameJSON && s.Body != BodyPythonic:
		return specErr("call.no_end", "is read only with body %q, %q or %q, where the JSON's or the call's end ends the call: drop it, or set call.end", BodyJSON, BodyNameJSON, BodyPythonic)
	case s.Call.NoEnd && s.Fenced:
		return specErr("call.no_end", "is read without fenced: a fence is read up to call.end; drop one of them")
	case s.Lines && s.Call.NoEnd:
		return specErr("lines", "is read up to call.end, and call.no_end is true: set call.end, or drop lines")
	case s.Call.NameSuffix != "" && !s.Call.NoEnd:
		return specErr("call.name_suffix", `is read with "no_end": true, one call after call.start: set it, or drop name_suffix`)
	case !s.Call.NoEnd:
		if err := need("call.end", s.Call.End, "the marker that ends a call (or \"no_end\": true, with body json, for a family that writes none)"); err != nil {
			return err
		}
	}
	if sec := s.Section; sec != nil {
		if err := opener("section.start", sec.Start); err != nil {
			return err
		}
		if err := need("section.end", sec.End, "the marker that ends the section"); err != nil {
			return err
		}
		if sec.Start == s.Call.Start {
			return specErr("section.start", "%q is also call.start: drop section, or give the section a marker of its own", sec.Start)
		}
	}
	for k, r := range s.Reasoning {
		if err := opener(fmt.Sprintf("reasoning[%d].start", k), r.Start); err != nil {
			return err
		}
		if err := need(fmt.Sprintf("reasoning[%d].end", k), r.End, "the marker that ends the think block"); err != nil {
			return err
		}
	}
	if s.AfterReasoning && len(s.Reasoning) == 0 {
		return specErr("after_reasoning", `is true, and the format has no reasoning markers: give "reasoning", or drop it`)
	}
	for k, t := range s.Skip {
		if err := opener(fmt.Sprintf("skip[%d]", k), t); err != nil {
			return err
		}
	}
	only := func(field string, set bool, body string) error {
		if set && s.Body != body {
			return specErr(field, "is read only with body %q, and this format's body is %q: drop it, or set body to %q", body, s.Body, body)
		}
		return nil
	}
	for _, o := range []struct {
		field string
		set   bool
		body  string
	}{
		{"name_keys", len(s.NameKeys) > 0, BodyJSON},
		{"arguments_keys", len(s.ArgumentsKeys) > 0, BodyJSON},
		{"name_is_key", s.NameIsKey, BodyJSON},
		{"lines", s.Lines, BodyJSON},
		{"param", s.Param != nil, BodyParams},
		{"key", s.Key != nil, BodyKV},
		{"value", s.Value != nil, BodyKV},
		{"string_quote", s.StringQuote != "", BodyBrace},
		{"call.name_prefix", s.Call.NamePrefix != "", BodyNameJSON},
		{"call.index_sep", s.Call.IndexSep != "", BodyNameJSON},
		{"call.spaced", s.Call.Spaced, BodyNameJSON},
		{"call.attribute", s.Call.Attribute, BodyParams},
		{"json_arguments", s.JSONArguments, BodyParams},
		{"empty_needs_section", s.EmptyNeedsSection, BodyParams},
		{"json_tags", s.JSONTags != nil, BodyParams},
		{"escaped", s.Escaped, BodyParams},
		{"call.id_start", s.Call.IDStart != "", BodyNameJSON},
		{"call.name_end_optional", s.Call.NameEndOptional, BodyNameJSON},
		{"call.name_suffix", s.Call.NameSuffix != "", BodyPythonic},
		{"call.name_end_exact", s.Call.NameEndExact, BodyKV},
	} {
		if err := only(o.field, o.set, o.body); err != nil {
			return err
		}
	}
	if s.Fenced && s.Body != BodyPythonic && s.Body != BodyNameJSON {
		return specErr("fenced", "is read only with body %q or %q, and this format's body is %q: drop it, or set body to %q or %q", BodyPythonic, BodyNameJSON, s.Body, BodyPythonic, BodyNameJSON)
	}
	if t := s.TagSuffix; t != "" {
		if strings.ContainsAny(t, "<>[] \t\r\n") {
			return specErr("tag_suffix", "%q: the text a tag has before its '>', such as \":opensource\", holds no brackets or space", t)
		}
		if !strings.HasSuffix(s.Call.Start, ">") {
			return specErr("tag_suffix", "is set, and call.start %q is not a tag ending in '>': drop tag_suffix, or write call.start as a tag", s.Call.Start)
		}
	}
	named := s.Call.NameStart != "" || s.Call.NameEnd != ""
	switch s.Body {
	case "":
		return specErr("body", "is required: one of %s", strings.Join(Bodies, ", "))
	case BodyJSON, BodyPythonic:
		if named {
			return specErr("call.name_end", "body %q reads no name before the body: drop call.name_start and call.name_end, or use body name_json, params or kv", s.Body)
		}
	case BodyBrace:
		if s.Call.NameStart == "" {
			return specErr("call.name_start", `is required with body brace: the text before each call's name ("call:")`)
		}
		if s.Call.NameEnd != "" {
			return specErr("call.name_end", "%q: with body brace the name ends at its arguments' '{': drop call.name_end", s.Call.NameEnd)
		}
		if err := need("string_quote", s.StringQuote, `the token a string is between, in place of '"' ("<escape>")`); err != nil {
			return err
		}
	case BodyNameJSON:
		if s.Call.NameEnd == "" {
			return specErr("call.name_end", `is required with body name_json: the text between the tool's name and its JSON arguments ("\n" for a name on a line of its own)`)
		}
		if (s.Call.IDStart != "" || s.Call.NameEndOptional) && (s.Call.Spaced || s.Call.IndexSep != "") {
			return specErr("call.id_start", "and call.name_end_optional are read without call.spaced and call.index_sep: drop one or the other")
		}
		if s.Call.Spaced {
			switch {
			case s.Call.NameStart != "" || s.Call.IndexSep != "" || s.Call.NamePrefix != "":
				return specErr("call.spaced", "is read without call.name_start, call.name_prefix and call.index_sep: drop them, or spaced")
			case s.Call.End == "":
				return specErr("call.spaced", "is read with call.end: set it")
			}
			for _, f := range []struct{ field, t string }{{"call.start", s.Call.Start}, {"call.name_end", s.Call.NameEnd}, {"call.end", s.Call.End}} {
				if tags(f.t) == nil {
					return specErr(f.field, "%q: with call.spaced a marker is one or more tags, each <…> or […]: write it so, or drop spaced", f.t)
				}
			}
		}
	case BodyParams:
		if s.Param == nil {
			return specErr("param", `is required with body params: {"start": …, "key_end": …, "end": …}, the tags of one parameter`)
		}
		if err := need("param.start", s.Param.Start, "the text before a parameter's key"); err != nil {
			return err
		}
		if err := need("param.end", s.Param.End, "the tag that ends a parameter's value"); err != nil {
			return err
		}
		if s.Param.Attribute && s.Param.KeyEnd != "" {
			return specErr("param.key_end", "%q: with param.attribute the key's tag ends at the next '>': drop key_end", s.Param.KeyEnd)
		}
		if s.Call.Attribute && s.Call.NameEnd != "" {
			return specErr("call.name_end", "%q: with call.attribute the name is an attribute value and its tag ends at the next '>': drop call.name_end", s.Call.NameEnd)
		}
		if s.Param.TagEnd != "" && !s.Param.Attribute {
			return specErr("param.tag_end", "ends a key's attribute tag, read with param.attribute: set it, or drop tag_end")
		}
		if s.Call.TagEnd != "" && !s.Call.Attribute {
			return specErr("call.tag_end", "ends the name's attribute tag, read with call.attribute: set it, or drop tag_end")
		}
		if s.Param.TypeAttribute != "" && !s.Param.Attribute {
			return specErr("param.type_attribute", "is read from a key's tag with param.attribute: set it, or drop type_attribute")
		}
		if s.Escaped && !s.Param.Attribute && !s.Call.Attribute {
			return specErr("escaped", "says attribute values are XML-escaped, and the format reads none (call.attribute, param.attribute): drop it")
		}
		if t := s.JSONTags; t != nil {
			if err := need("json_tags.start", t.Start, "the tag before the JSON arguments"); err != nil {
				return err
			}
			if err := need("json_tags.end", t.End, "the tag after the JSON arguments"); err != nil {
				return err
			}
		}
		if s.EmptyNeedsSection && s.Section == nil {
			return specErr("empty_needs_section", `is true, and the format has no section: give "section", or drop it`)
		}
	case BodyKV:
		if s.Key == nil || s.Value == nil {
			return specErr("key", `and value are required with body kv: "key": {"start": …, "end": …}, "value": {"start": …, "end": …}`)
		}
		if err := need("key.start", s.Key.Start, "the tag before a key"); err != nil {
			return err
		}
		if err := need("key.end", s.Key.End, "the tag after a key"); err != nil {
			return err
		}
		if err := need("value.end", s.Value.End, "the tag after a value"); err != nil {
			return err
		}
	default:
		return specErr("body", "%q is not a body reader; want one of %s%s", s.Body, strings.Join(Bodies, ", "), didYouMean(s.Body, Bodies))
	}
	return nil
}

// suffixed is s with TagSuffix before the '>' of each of its markers
// that is a tag, and no TagSuffix: the second spelling of its markers.
func (s *Spec) suffixed() *Spec {
	c := *s
	add := func(t string) string {
		if len(t) > 1 && t[0] == '<' && t[len(t)-1] == '>' {
			return t[:len(t)-1] + s.TagSuffix + ">"
		}
		return t
	}
	pair := func(m *Markers) *Markers {
		if m == nil {
			return nil
		}
		return &Markers{Start: add(m.Start), End: add(m.End)}
	}
	c.Call.Start, c.Call.NameStart, c.Call.NameEnd, c.Call.End = add(c.Call.Start), add(c.Call.NameStart), add(c.Call.NameEnd), add(c.Call.End)
	c.Section, c.Key, c.Value = pair(s.Section), pair(s.Key), pair(s.Value)
	if s.Param != nil {
		m := *s.Param
		m.Start, m.KeyEnd, m.End = add(m.Start), add(m.KeyEnd), add(m.End)
		c.Param = &m
	}
	c.TagSuffix, c.shared = "", false // its markers are its own
	return &c
}

// tags splits t into the tags it is made of, each <…> or […], or nil
// when it is not made of tags alone.
func tags(t string) []string {
	var out []string
	for t != "" {
		end := byte('>')
		switch t[0] {
		case '<':
		case '[':
			end = ']'
		default:
			return nil
		}
		n := strings.IndexByte(t, end)
		if n < 1 {
			return nil
		}
		out, t = append(out, t[:n+1]), t[n+1:]
	}
	return out
}

// nameKeys and argumentsKeys are the spec's, or the defaults.
func (s *Spec) nameKeys() []string {
	if len(s.NameKeys) > 0 {
		return s.NameKeys
	}
	return DefaultNameKeys
}

func (s *Spec) argumentsKeys() []string {
	if len(s.ArgumentsKeys) > 0 {
		return s.ArgumentsKeys
	}
	return DefaultArgumentsKeys
}

// FileForm reports whether s can be written as a format file: a built-in
// family read by code of its own that no spec describes cannot.
func (s *Spec) FileForm() bool { return s.Body != "" }

// didYouMean is ` (did you mean "x"?)` for the candidate closest to s,
// or "" when none is close.
func didYouMean(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range candidates {
		if d := editdist.Levenshtein(s, c); d < bestD || d == bestD && best == "" && d <= 2 {
			best, bestD = c, d
		}
	}
	if best == "" || best == s {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// CheckFormats reports what is wrong with specs read together: each
// must pass Check, and no two may share an id or a marker that starts a
// call or a section, for then which one reads it is not for parse to
// guess. A spec may reuse a built-in family's id and markers: its own
// are looked for first.
func CheckFormats(specs []*Spec) error {
	ids := map[string]*Spec{}
	starts := map[string]*Spec{}
	for _, s := range specs {
		if err := s.Check(); err != nil {
			return fmt.Errorf("format %q (%s): %w", s.Format, s.Source, err)
		}
		if o := ids[s.Format]; o != nil {
			return fmt.Errorf("format %q (%s) is also the format of %s; give each an id of its own", s.Format, s.Source, o.Source)
		}
		ids[s.Format] = s
		if !s.FileForm() {
			continue
		}
		var marks []string
		for _, sp := range s.spellings() {
			marks = append(marks, sp.Call.Start)
			if sp.Section != nil {
				marks = append(marks, sp.Section.Start)
			}
		}
		for _, m := range marks {
			if o := starts[m]; o != nil && o != s {
				return fmt.Errorf("format %q (%s) starts a block with %q, as %q (%s) does; give one of them a marker of its own", s.Format, s.Source, m, o.Format, o.Source)
			}
			starts[m] = s
		}
	}
	return nil
}
