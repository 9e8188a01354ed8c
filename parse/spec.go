package parse

import (
	"fmt"
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
	// inside the call's markers, one a line (MiniCPM3's ```python).
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
	// <|tool_call|>[…]): with a json body, the call ends where its JSON
	// does.
	NoEnd bool `json:"no_end,omitempty"`
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
	if err := opener("call.start", s.Call.Start); err != nil {
		return err
	}
	switch {
	case s.Call.NoEnd && s.Call.End != "":
		return specErr("call.no_end", "is true, and call.end is %q: drop one of them", s.Call.End)
	case s.Call.NoEnd && s.Body != BodyJSON:
		return specErr("call.no_end", "is read only with body %q, where the JSON's end ends the call: drop it, or set call.end", BodyJSON)
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
		{"param", s.Param != nil, BodyParams},
		{"key", s.Key != nil, BodyKV},
		{"value", s.Value != nil, BodyKV},
		{"string_quote", s.StringQuote != "", BodyBrace},
		{"fenced", s.Fenced, BodyPythonic},
		{"call.name_prefix", s.Call.NamePrefix != "", BodyNameJSON},
		{"call.index_sep", s.Call.IndexSep != "", BodyNameJSON},
		{"call.spaced", s.Call.Spaced, BodyNameJSON},
		{"call.name_end_exact", s.Call.NameEndExact, BodyKV},
	} {
		if err := only(o.field, o.set, o.body); err != nil {
			return err
		}
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
		marks := []string{s.Call.Start}
		if s.Section != nil {
			marks = append(marks, s.Section.Start)
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
