package parse

import (
	"bytes"
	"fmt"
)

// FormatTemplate is the format of calls read with a syntax learnt from a
// model's chat template that no built-in format matches.
const FormatTemplate = "template"

// Syntax is what a model's chat template says about its output, beyond
// the built-in formats: the control tokens it writes and, when no built-in
// format matches, how it writes a call. The parse/chattemplate package
// derives one from a template.
type Syntax struct {
	// Prompt is the end of the prompt the output continues: the tail
	// the template's generation prompt adds ("<|start|>assistant",
	// "<think>\n", ">>>"). The output is read as if it came right after
	// it, so a call or think block the prompt opened is read whole; no
	// event carries the prompt's own text.
	Prompt string
	// Skip lists control tokens that are never prose: end-of-turn
	// markers, call section markers.
	Skip []string
	// Reasoning lists the markers that open and close a think block.
	Reasoning [][2]string
	// Call is a call syntax of the template's own; nil when a built-in
	// format (Options.Format) reads the calls.
	Call *CallSyntax
	// Result is how the template writes a tool's result back, for its
	// spec (TemplateSpec); nil when it could not be told. Reading
	// ignores it.
	Result *ResultMarkers
}

// CallSyntax is one call written as
//
//	Open [id] NameAfter NAME ArgsAfter {arguments} Close
//
// when ArgsAfter is set, or as Open, a JSON call object or array of them
// ({"name": …, "arguments": {…}}), Close otherwise. Open must start with
// '<' or '['.
//
// With ParamOpen set, the arguments are tagged instead of a JSON object,
// each ParamOpen KEY> value ParamClose (or ParamOpen "KEY"> with
// AttrKeys), up to Close; values are typed as in the built-in tagged
// formats.
type CallSyntax struct {
	Open      string
	NameAfter string // text between Open (and any id) and the name
	ArgsAfter string // text between the name and the arguments
	Close     string // optional at the end of the output, except after tagged arguments
	ParamOpen string
	// ParamClose ends a tagged value.
	ParamClose string
	// AttrKeys: the key is a quoted attribute value, name="KEY">.
	AttrKeys bool
	// Pythonic: after Open come Python-style calls, [f(a=1), g(b="x")]
	// or one a line, up to Close.
	Pythonic bool
}

// validate reports what is wrong with a syntax a caller built.
func (s *Syntax) validate() error {
	tok := func(t string) error {
		if len(t) < 2 || t[0] != '<' && t[0] != '[' {
			return fmt.Errorf("template syntax: marker %q must start with '<' or '[' and be two bytes or longer", t)
		}
		return nil
	}
	for _, t := range s.Skip {
		if err := tok(t); err != nil {
			return err
		}
	}
	for _, r := range s.Reasoning {
		if err := tok(r[0]); err != nil {
			return err
		}
		if r[1] == "" {
			return fmt.Errorf("template syntax: think marker %q has no closing marker", r[0])
		}
	}
	if c := s.Call; c != nil {
		if err := tok(c.Open); err != nil {
			return err
		}
		if c.ParamOpen != "" && (c.ParamClose == "" || c.Close == "") {
			return fmt.Errorf("template syntax: tagged arguments need a closing tag for values and one for the call")
		}
		if c.ParamOpen == "" && c.ArgsAfter == "" && c.NameAfter != "" {
			return fmt.Errorf("template syntax: a call that names its tool needs the text between the name and the arguments")
		}
	}
	return nil
}

// syntaxMarkers appends the markers of a Syntax for a parser of format
// to ms. Tokens a built-in marker already handles, and that format leaves
// on, are left to it.
func syntaxMarkers(ms []marker, s *Syntax, format string) []marker {
	if c := s.Call; c != nil {
		ms = addMarker(ms, marker{tok: c.Open, h: templateCall(c)}, format, true)
		if c.Close != "" {
			// A closer that arrives after the call was emitted.
			ms = addMarker(ms, marker{tok: c.Close, h: lateCloser}, format, true)
		}
	}
	return controlMarkers(ms, s.Reasoning, s.Skip, format, nil)
}

// controlMarkers appends markers for think blocks and control tokens
// that are never prose.
func controlMarkers(ms []marker, reasoning [][2]string, skip []string, format string, after *bareReader) []marker {
	for _, r := range reasoning {
		closers := []string{r[1]}
		ms = addMarker(ms, marker{tok: r[0], h: func(p *Parser, i, j int, eof bool) (int, status, error) {
			end, st, err := p.openReasoning(j, "think", closers)
			if after != nil {
				p.afterThink = after
			}
			return end, st, err
		}}, format, false)
		ms = addMarker(ms, marker{tok: r[1], h: func(p *Parser, i, j int, eof bool) (int, status, error) { return p.strayCloser(i, j) }}, format, false)
	}
	for _, t := range skip {
		ms = addMarker(ms, marker{tok: t, h: func(p *Parser, i, j int, eof bool) (int, status, error) {
			if err := p.flushText(i); err != nil {
				return 0, 0, err
			}
			return j, matched, nil
		}}, format, false)
	}
	return ms
}

// addMarker appends m to ms unless a marker of the same text is there
// already. A call's own markers (own) win over a built-in token of the
// same text (Solar's <|call|>-like names); control tokens a built-in
// marker reads under format are left to it.
func addMarker(ms []marker, m marker, format string, own bool) []marker {
	if len(m.tok) < 2 || m.tok[0] != '<' && m.tok[0] != '[' {
		// Only '<' and '[' reach the markers (dispatch): an end marker
		// spelled otherwise is found by its reader alone.
		return ms
	}
	if !own && builtinMarker(m.tok, format) {
		return ms
	}
	for _, o := range ms {
		if o.tok == m.tok {
			return ms
		}
	}
	return append(ms, m)
}

// builtinMarker reports whether a built-in marker reads t under format.
func builtinMarker(t, format string) bool {
	buildMarkers()
	probe := &Parser{opts: Options{Format: format}}
	ix := angleIndex
	if t[0] == '[' {
		ix = bracketIndex
	}
	for _, m := range ix[t[1]] {
		if m.tok == t && m.on(probe) {
			return true
		}
	}
	return false
}

// extraIndex builds the markers of Options.Formats and Options.Syntax,
// which the Parser looks at before the built-in ones; nil when there are
// none.
func extraIndex(opts Options) *markerIndex {
	var ms []marker
	if s := opts.Syntax; s != nil {
		ms = syntaxMarkers(ms, s, opts.Format)
	}
	for _, s := range opts.Formats {
		for _, m := range specMarkers(nil, s, false) {
			ms = addMarker(ms, m, opts.Format, true)
		}
	}
	for _, s := range opts.Formats {
		var reasoning [][2]string
		for _, r := range s.Reasoning {
			reasoning = append(reasoning, [2]string{r.Start, r.End})
		}
		var after *bareReader
		if s.AfterReasoning {
			after = newBareReader(s)
		}
		ms = controlMarkers(ms, reasoning, s.Skip, opts.Format, after)
	}
	if len(ms) == 0 {
		return nil
	}
	// Longest first, so the longer of two tokens with a common start wins.
	for a := 1; a < len(ms); a++ {
		for b := a; b > 0 && len(ms[b].tok) > len(ms[b-1].tok); b-- {
			ms[b], ms[b-1] = ms[b-1], ms[b]
		}
	}
	return indexMarkers(ms)
}

// templateCall reads one call of a template's own syntax.
func templateCall(c *CallSyntax) handler {
	if c.Pythonic {
		return pythonicBlock(c.Close, FormatTemplate)
	}
	if c.ArgsAfter == "" && c.ParamOpen == "" {
		return jsonBlock(c.Close, FormatTemplate)
	}
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := j
		if c.NameAfter != "" {
			n := p.indexWithin(j, c.NameAfter, lookAhead)
			if n < 0 {
				return needOrNot(eof || len(p.buf)-j > lookAhead+len(c.NameAfter))
			}
			k = n + len(c.NameAfter)
		}
		// The name ends where ArgsAfter starts, or the first tagged
		// parameter when nothing else ends it.
		stop := c.ArgsAfter
		if stop == "" {
			stop = c.ParamOpen
		}
		e := p.indexWithin(k, stop, lookAhead)
		if e < 0 {
			return needOrNot(eof || len(p.buf)-k > lookAhead+len(stop))
		}
		name := bytes.TrimSpace(p.buf[k:e])
		if len(name) == 0 || bytes.ContainsAny(name, "<>{}\n") {
			return 0, noMatch, nil
		}
		if c.ParamOpen != "" {
			d := &xmlDialect{format: FormatTemplate, paramOpen: c.ParamOpen, paramClose: c.ParamClose, close: c.Close, attrs: c.AttrKeys}
			return p.taggedArgs(i, e+len(c.ArgsAfter), eof, string(name), FormatTemplate, d)
		}
		return p.namedArgs(i, e+len(c.ArgsAfter), eof, string(name), FormatTemplate, c.Close)
	}
}

// TemplateSpec is the family a chat template shows, as a spec: its own
// call syntax (format FormatTemplate), or the built-in family format it
// writes, each with the template's control tokens, think markers and
// prompt tail. source says where it came from, for --list-formats.
func TemplateSpec(format string, s *Syntax, source string) (*Spec, error) {
	var spec Spec
	if c := s.Call; c != nil {
		spec = Spec{Format: FormatTemplate, Call: CallMarkers{Start: c.Open, NameStart: c.NameAfter, NameEnd: c.ArgsAfter, End: c.Close}}
		switch {
		case c.Pythonic:
			spec.Body = BodyPythonic
		case c.ParamOpen != "":
			spec.Body = BodyParams
			spec.Param = &ParamMarkers{Start: c.ParamOpen, KeyEnd: ">", End: c.ParamClose}
			if c.AttrKeys {
				spec.Param.Start += `"`
				spec.Param.KeyEnd = `">`
			}
		case c.ArgsAfter != "":
			spec.Body = BodyNameJSON
		default:
			spec.Body = BodyJSON
		}
	} else {
		b := BuiltinSpec(format)
		if b == nil {
			return nil, fmt.Errorf("the template's calls are in format %q, which parse does not know", format)
		}
		if !b.FileForm() {
			return nil, fmt.Errorf("the template's calls are in format %q, which is read by code of its own (%s), not by a spec: give --format %s", format, b.Code, format)
		}
		spec = *b
		spec.Reasoning, spec.Skip = append([]Markers(nil), b.Reasoning...), append([]string(nil), b.Skip...)
	}
	for _, r := range s.Reasoning {
		spec.Reasoning = append(spec.Reasoning, Markers{Start: r[0], End: r[1]})
	}
	spec.Skip = append(spec.Skip, s.Skip...)
	spec.Prompt = s.Prompt
	// The template's results, not the family's: where it writes them
	// otherwise, or not as markers can say, it is what it writes.
	spec.Result = s.Result
	spec.Source = source
	if spec.Call.End == "" {
		// A template's JSON call may end with the output; a spec's call
		// needs an end marker, and the end of turn is one.
		return nil, fmt.Errorf("the template's calls have no end marker of their own, which a format file needs")
	}
	return &spec, nil
}
