package parse

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// A spec is read by the generic body readers the built-in families share:
// markedJSON's reading of a JSON body, namedArgs for a name then JSON,
// taggedArgs for tagged parameters, glmCall for key/value tags,
// pythonicBlock for Python-style calls, braceCall for brace lists. A
// format file's markers go into the Parser's extra index (Parser.extra), looked at before the built-in
// ones, so its spelling of a marker wins over a built-in's; a built-in
// family read by its spec alone has them in dispatch.go's tables.

// specMarkers appends the markers of s to ms. A built-in family's
// section end is every section end's (sectionEnd): on whatever --format
// says, and ending a call in it that left its own end marker out; a
// format file's is its own.
func specMarkers(ms []marker, s *Spec, builtin bool) []marker {
	if s.TagSuffix != "" {
		ms = specMarkers(ms, s.suffixed(), builtin)
	}
	if len(s.AlsoSpelled) > 0 {
		// Each spelling's markers, each marker once; the control
		// tokens, which are not respelled, once below.
		seen := map[string]bool{}
		for _, sp := range s.spellings() {
			sp.Skip = nil
			for _, m := range specMarkers(nil, sp, builtin) {
				if !seen[m.tok] {
					seen[m.tok] = true
					ms = append(ms, m)
				}
			}
		}
		return specSkip(ms, s, builtin)
	}
	own := []string{s.Format}
	if s.Call.Word {
		// Looked for at each '[' (wordAt), the word right before it;
		// a list of call objects, so prose about the word (Python's
		// functools[0]) stays prose.
		return append(ms, marker{s.Call.Start, func(p *Parser, i, j int, eof bool) (int, status, error) {
			if j < len(p.buf) && p.buf[j] == '[' {
				k := p.skipSpace(j + 1)
				if k >= len(p.buf) {
					return needOrNot(eof)
				}
				if p.buf[k] != '{' {
					return 0, noMatch, nil
				}
			}
			return p.prefixedJSON(i, j, eof, s.Call.End, s.Format)
		}, own})
	}
	if s.Call.Spaced {
		// The first tag starts a call; each end tag may arrive after
		// the call was emitted.
		ms = append(ms, marker{tags(s.Call.Start)[0], specCall(s), own})
		for _, t := range tags(s.Call.End) {
			ms = append(ms, marker{t, lateCloser, own})
		}
	} else {
		ms = append(ms, marker{s.Call.Start, specCall(s), own})
		if s.Call.End != "" {
			// A call's end marker that arrives after the call was emitted.
			ms = append(ms, marker{s.Call.End, lateCloser, own})
		}
	}
	if sec := s.Section; sec != nil {
		end := marker{sec.End, endSection, own}
		if builtin {
			end.formats = nil
		}
		ms = append(ms, specSection(s), end)
	}
	return specSkip(ms, s, builtin)
}

// specSkip appends a built-in spec's control tokens that are never
// prose; a format file's are extraIndex's.
func specSkip(ms []marker, s *Spec, builtin bool) []marker {
	if builtin {
		for _, t := range s.Skip {
			ms = append(ms, marker{t, skip, []string{s.Format}})
		}
	}
	return ms
}

// wordMarkers are the built-in families' word starts (Call.Word), the
// longest first (buildMarkers); Parser.words a format file's.
var wordMarkers []marker

// fileWords are the markers of opts' format files whose calls start
// with a word, the longest first.
func fileWords(opts Options) []marker {
	var ms []marker
	for _, s := range opts.Formats {
		if s.Call.Word {
			ms = specMarkers(ms, s, false)
		}
	}
	sort.SliceStable(ms, func(a, b int) bool { return len(ms[a].tok) > len(ms[b].tok) })
	return ms
}

// wordAt runs the first word marker that ends right before the '[' at
// buf[i], a format file's before a built-in's, the longest first (a
// space before functools is FireFunction's): ok when one is there.
func (p *Parser) wordAt(i int, eof bool) (end int, st status, err error, ok bool) {
	for _, ws := range [2][]marker{p.words, wordMarkers} {
		for k := range ws {
			m := &ws[k]
			s := i - len(m.tok)
			if s < p.seg || string(p.buf[s:i]) != m.tok || !m.on(p) {
				continue
			}
			end, st, err = m.h(p, s, i, eof)
			return end, st, err, true
		}
	}
	return 0, noMatch, nil, false
}

// bareReader reads a call of a spec whose calls may follow the end of
// its think block without their start marker (Spec.AfterReasoning).
type bareReader struct {
	format string
	call   handler
	prefix string // a brace body's name_start, which must be there
}

func newBareReader(s *Spec) *bareReader {
	b := &bareReader{format: s.Format, call: specCall(s)}
	if s.Body == BodyBrace {
		b.prefix = s.Call.NameStart
	}
	return b
}

// read reads the call at buf[i], where the think block ended: after
// space, as if the start marker had been there; a brace body's calls
// must begin right there (Gemma 4's <channel|>call:f{…}).
func (b *bareReader) read(p *Parser, i int, eof bool) (int, status, error) {
	k := p.skipSpace(i)
	if b.prefix != "" {
		ok, partial := p.hasPrefixAt(k, b.prefix)
		if k >= len(p.buf) || partial {
			return needOrNot(eof)
		}
		if !ok {
			return 0, noMatch, nil
		}
	}
	return b.call(p, i, k, eof)
}

// lateCloser drops the closing tag of a call block that came in a later
// piece of input than the call. Anywhere else the tag is prose.
func lateCloser(p *Parser, i, j int, eof bool) (int, status, error) {
	if p.afterCall != p.lineAt || p.lineAt < 0 || len(bytes.TrimSpace(p.buf[p.lineAt:i])) > 0 {
		return 0, noMatch, nil
	}
	p.afterCall = j
	return j, matched, nil
}

// specCall reads one call of s after its start marker. When the marker
// is shared (Spec.shared), nothing after it is left to the next reading
// and the fallback (sharedFallback), as a call cut off in its header is:
// they tell prose from a call gone wrong for all the families alike.
func specCall(s *Spec) handler {
	h := specBody(s)
	if !s.shared {
		return h
	}
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		if p.skipSpace(j) == len(p.buf) {
			return needOrNot(eof)
		}
		return h(p, i, j, eof)
	}
}

func specBody(s *Spec) handler {
	c := s.Call
	switch s.Body {
	case BodyJSON:
		return specJSON(s)
	case BodyPythonic:
		if c.NoEnd {
			return pythonicCall(s.Format, c.NameSuffix)
		}
		if s.Fenced {
			return fencedPython(c.End, s.Format)
		}
		return pythonicBlock(c.End, s.Format)
	case BodyBrace:
		return braceCall(c.End, s.Format, c.NameStart, s.StringQuote)
	case BodyKV:
		t := &glmTags{key: s.Key.Start, keyEnd: s.Key.End, val: s.Value.Start, valEnd: s.Value.End, sep: c.NameEnd, format: s.Format,
			// A built-in family's layout tells it from the others
			// only where they share its start (a format file's may
			// share a built-in's).
			exact: c.NameEndExact && (s.shared || s.Source != "built-in")}
		cut := s.headerCut()
		return func(p *Parser, i, j int, eof bool) (int, status, error) {
			k, st := p.specNameStart(j, c.NameStart, eof)
			if st != matched {
				return p.headerEnded(i, st, s.Format, cut)
			}
			return p.glmCall(i, p.skipSpace(k), eof, c.End, t)
		}
	}
	if c.Spaced {
		return spacedCall(s)
	}
	var d *xmlDialect
	stop := c.NameEnd
	if s.Body == BodyParams {
		d = &xmlDialect{format: s.Format, paramOpen: s.Param.Start, keyEnd: s.Param.KeyEnd, paramClose: s.Param.End, close: c.End, wrapped: s.Param.Wrapped,
			attrs: s.Param.Attribute, jsonArgs: s.JSONArguments, emptyNeedsSection: s.EmptyNeedsSection,
			jsonTags: s.JSONTags, escaped: s.Escaped, typeAttr: s.Param.TypeAttribute, nameTagEnd: c.TagEnd, keyTagEnd: s.Param.TagEnd}
		if d.keyEnd == "" {
			d.keyEnd = ">"
		}
		if c.Attribute {
			// The name an attribute value (<invoke name="f">).
			invoke := invokeBlock(d)
			return func(p *Parser, i, j int, eof bool) (int, status, error) {
				k, st := p.specNameStart(j, c.NameStart, eof)
				if st != matched {
					return p.headerEnded(i, st, s.Format, s.headerCut())
				}
				return invoke(p, i, k, eof)
			}
		}
		if stop == "" {
			// The name ends at the first parameter, or the call's end
			// for a call without any.
			stop = s.Param.Start
		}
	}
	cut := s.headerCut()
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k, st := p.specNameStart(j, c.NameStart, eof)
		if st != matched {
			return p.headerEnded(i, st, s.Format, cut)
		}
		if c.IndexSep != "" {
			return p.idCall(i, k, eof, s)
		}
		var e int
		if s.Fenced {
			// The name ends at its line's end, or at the fence or the
			// arguments when the model did not break the line.
			win, _ := p.ahead(k, eof)
			e = bytes.Index(win, []byte(stop))
			if f := bytes.IndexAny(win, "`{"); f >= 0 && (e < 0 || f < e) {
				e = f
			}
			if e >= 0 {
				e += k
			}
		} else {
			e = p.indexWithin(k, stop, lookAhead)
		}
		if d != nil && c.NameEnd == "" {
			if f := p.indexWithin(k, c.End, lookAhead); f >= 0 && (e < 0 || f < e) {
				e = f
			}
		} else if d == nil && c.End != "" {
			if f := p.indexWithin(k, c.End, lookAhead); f >= 0 && (e < 0 || f < e) {
				// The call ends before its name does: no call of this
				// shape, or in a call section, one written wrong.
				return p.noNameEnd(i, k, f, s)
			}
		}
		b := -1 // where the arguments begin, when not after name_end at e
		if c.IDStart != "" || c.NameEndOptional {
			var st status
			if e, b, st = p.headerStop(k, e, &c, eof); st != matched {
				return p.headerEnded(i, st, s.Format, cut)
			}
		}
		if e < 0 {
			return p.headerEnded(i, p.headerMiss(k, stop, eof), s.Format, cut)
		}
		name := bytes.TrimSpace(p.buf[k:e])
		if len(name) == 0 || bytes.ContainsAny(name, "<>{}[]\n\t ") {
			return 0, noMatch, nil // a tool's name holds no markup or space
		}
		if b < 0 {
			b = e + len(c.NameEnd)
		}
		if d != nil {
			return p.taggedArgs(i, b, eof, string(name), s.Format, d)
		}
		if c.NamePrefix != "" {
			name = bytes.TrimPrefix(name, []byte(c.NamePrefix))
		}
		if s.Fenced {
			return p.fencedArgs(i, e, eof, string(name), s.Format)
		}
		return p.namedArgs(i, b, eof, string(name), s.Format, c.End)
	}
}

// noNameEnd is a name_json call at i whose end marker, at f, comes
// before the end of its name: inside a call section, where everything
// is calls, a parse_error up to the end marker that says what is
// missing; elsewhere the start marker was prose.
func (p *Parser) noNameEnd(i, k, f int, s *Spec) (int, status, error) {
	if p.section == "" {
		return 0, noMatch, nil
	}
	c := s.Call
	name := bytes.TrimSpace(p.buf[k:f])
	if b := bytes.IndexAny(name, "{\n`"); b >= 0 {
		name = bytes.TrimSpace(name[:b])
	}
	if len(name) == 0 || len(name) > 64 {
		name = []byte("NAME")
	}
	end := f + len(c.End)
	return end, matched, p.fail(i, end, s.Format, fmt.Sprintf("call has no %s between its name and its arguments: write %s%s{arguments}%s", c.NameEnd, name, c.NameEnd, c.End))
}

// idCall reads a name_json call whose name is written as an id,
// NamePrefix NAME IndexSep INDEX, after its start marker at k: an id is
// whatever comes before name_end within idWindow, and a marker without
// one is prose. An id that is an index alone ("0", as a model writes
// after a history whose call ids were bare counters) names no tool, and
// no tool is guessed for it: the call is a parse_error up to its end
// marker.
func (p *Parser) idCall(i, k int, eof bool, s *Spec) (int, status, error) {
	c := s.Call
	e := p.indexWithin(k, c.NameEnd, idWindow)
	if e < 0 {
		if !eof && len(p.buf)-k < idWindow {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	b := e + len(c.NameEnd)
	name := bytes.TrimPrefix(bytes.TrimSpace(p.buf[k:e]), []byte(c.NamePrefix))
	if n := bytes.LastIndex(name, []byte(c.IndexSep)); n >= 0 {
		name = name[:n]
	}
	if !allDigits(name) {
		return p.namedArgs(i, b, eof, string(name), s.Format, c.End)
	}
	end := len(p.buf)
	if e := p.indexWithin(b, c.End, maxBlock); e >= 0 {
		end = e + len(c.End)
	} else if !eof {
		return 0, needMore, nil
	}
	return end, matched, p.fail(i, end, s.Format, fmt.Sprintf("the call's id %q names no tool: write %s%sNAME%s%s%s{arguments}%s", name, c.Start, c.NamePrefix, c.IndexSep, name, c.NameEnd, c.End))
}

// spacedCall reads a name_json call whose markers' tags may have space
// between them (Call.Spaced), after the first tag of its start marker:
// the rest of its tags, the name up to name_end's first tag, the rest of
// name_end's (without them, the call has no arguments: a parse_error),
// then the arguments up to end's first tag; end's other tags are dropped
// as they come (specMarkers).
func spacedCall(s *Spec) handler {
	start, nameEnd, end := tags(s.Call.Start)[1:], tags(s.Call.NameEnd), tags(s.Call.End)
	noArgs := strings.Join(nameEnd[1:], "") + "{…}" + end[0]
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := j
		for _, t := range start {
			k = p.skipSpace(k)
			ok, partial := p.hasPrefixAt(k, t)
			if !ok {
				if partial || k >= len(p.buf) {
					return needOrNot(eof)
				}
				return 0, noMatch, nil
			}
			k += len(t)
		}
		e := p.indexWithin(k, nameEnd[0], lookAhead)
		if e < 0 {
			if _, miss := p.ahead(k, eof); miss == needMore {
				return 0, needMore, nil
			}
			return 0, noMatch, nil
		}
		name := string(bytes.TrimSpace(p.buf[k:e]))
		b := e + len(nameEnd[0])
		for _, t := range nameEnd[1:] {
			b = p.skipSpace(b)
			ok, partial := p.hasPrefixAt(b, t)
			if !ok {
				if (partial || b >= len(p.buf)) && !eof {
					return 0, needMore, nil
				}
				return b, matched, p.fail(i, b, s.Format, fmt.Sprintf("call to %q has no arguments: write %s after its name", name, noArgs))
			}
			b += len(t)
		}
		return p.namedArgs(i, b, eof, name, s.Format, end[0])
	}
}

// headerStop finds where a name_json call's name ends after k when an
// id (Call.IDStart) or its arguments' '{' (Call.NameEndOptional) may end
// it before name_end, found at e (-1: not within lookAhead): the name's
// end, and where the arguments begin (-1: after name_end at e). An id
// runs to name_end; st is headerMiss's when that is not there.
func (p *Parser) headerStop(k, e int, c *CallMarkers, eof bool) (end, args int, st status) {
	win := p.buf[k:min(len(p.buf), k+lookAhead)]
	if e >= 0 {
		win = p.buf[k:e]
	}
	id, brace := -1, -1
	if c.IDStart != "" {
		id = bytes.Index(win, []byte(c.IDStart))
	}
	if c.NameEndOptional {
		brace = bytes.IndexByte(win, '{')
	}
	switch {
	case brace >= 0 && (id < 0 || brace < id):
		return k + brace, k + brace, matched
	case id >= 0:
		n := k + id + len(c.IDStart)
		a := p.indexWithin(n, c.NameEnd, lookAhead)
		if a >= 0 {
			a += len(c.NameEnd)
		}
		if c.NameEndOptional {
			if m := bytes.IndexByte(p.buf[n:min(len(p.buf), n+lookAhead)], '{'); m >= 0 && (a < 0 || n+m < a) {
				a = n + m
			}
		}
		if a < 0 {
			return 0, 0, p.headerMiss(n, c.NameEnd, eof)
		}
		return k + id, a, matched
	}
	return e, -1, matched
}

// idWindow bounds an id: the name, its prefix and index.
const idWindow = 2 * lookAhead

// allDigits reports whether b is a non-empty run of ASCII digits.
func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// specNameStart finds where a call's name begins after its start marker
// at j: right there, or after nameStart when the spec has one (with an id
// or other text between). st is headerMiss's when it is not there.
func (p *Parser) specNameStart(j int, nameStart string, eof bool) (int, status) {
	if nameStart == "" {
		return j, matched
	}
	n := p.indexWithin(j, nameStart, lookAhead)
	if n < 0 {
		return 0, p.headerMiss(j, nameStart, eof)
	}
	return n + len(nameStart), matched
}

// cutHeader is headerMiss's status for a header the output ended in.
const cutHeader status = -1

// headerMiss says why the header token tok is not within lookAhead of
// k: the text went on without it (noMatch), more input may bring it
// (needMore), or the output ended first (cutHeader), in a header's words
// (an id, a name). A sentence after the marker is prose that names it,
// and so are a marker the output ends on with nothing after it and one
// followed by what no header starts with (a list, JSON): only a call's
// shape that the output cuts off is a parse_error, whatever the family.
func (p *Parser) headerMiss(k int, tok string, eof bool) status {
	switch {
	case len(p.buf)-k > lookAhead+len(tok):
		return noMatch
	case !eof:
		return needMore
	}
	if rest := bytes.TrimSpace(p.buf[k:]); len(rest) == 0 || strings.IndexByte(`[{("'`, rest[0]) >= 0 || bytes.ContainsAny(rest, " \t\r\n") {
		return noMatch
	}
	return cutHeader
}

// headerEnded is what a spec's call returns when its header is not
// whole (st from headerMiss): a call the output cut off in its header
// is a parse_error with msg, as the rest of the output; with no msg (a
// shared marker's, headerCut), it is left to the fallback.
func (p *Parser) headerEnded(i int, st status, format, msg string) (int, status, error) {
	if st == cutHeader && msg == "" {
		return 0, noMatch, nil // a shared marker's: the fallback decides
	}
	if st != cutHeader {
		return 0, st, nil
	}
	return len(p.buf), matched, p.fail(i, len(p.buf), format, msg)
}

// headerCut is what a call cut off in its header is told: the call
// written whole with the spec's markers.
func (s *Spec) headerCut() string {
	if s.shared {
		return ""
	}
	return "tool call cut off in its header: write " + s.written()
}

// written is a call written whole with the spec's markers.
func (s *Spec) written() string {
	var b strings.Builder
	b.WriteString(s.Call.Start)
	switch {
	case s.Body == BodyJSON:
		fmt.Fprintf(&b, `{%q: "name", %q: {…}}`, s.nameKeys()[0], s.argumentsKeys()[0])
		return b.String() + s.Call.End
	case s.Body == BodyPythonic && s.Fenced:
		return b.String() + "```python\nname(…)\n```" + s.Call.End
	case s.Body == BodyPythonic:
		return b.String() + "[name(…)]" + s.Call.End
	case s.Body == BodyBrace:
		return b.String() + s.Call.NameStart + "name{…}" + s.Call.End
	}
	if s.Call.NameStart != "" {
		b.WriteString("id" + s.Call.NameStart)
	}
	if s.Call.Attribute {
		b.WriteString(`"name"` + orTagEnd(s.Call.TagEnd))
	} else {
		b.WriteString(s.Call.NamePrefix + "name")
	}
	if s.Call.IndexSep != "" {
		b.WriteString(s.Call.IndexSep + "0")
	}
	b.WriteString(s.Call.NameEnd)
	switch s.Body {
	case BodyParams:
		b.WriteString(s.Param.Start + s.Param.key("key") + "value" + s.Param.End)
	case BodyKV:
		b.WriteString(s.Key.Start + "key" + s.Key.End + s.Value.Start + "value" + s.Value.End)
	default:
		b.WriteString("{…}")
	}
	b.WriteString(s.Call.End)
	return b.String()
}

// specJSON reads a json body: a call object, or an array of them, with
// the name and the arguments under the spec's keys.
func specJSON(s *Spec) handler {
	closer := s.Call.End
	if s.Lines {
		return jsonLines(closer, s.Format)
	}
	if len(s.NameKeys) == 0 && len(s.ArgumentsKeys) == 0 {
		// The default keys are read as every call in markers is: the
		// name under "name" or "tool_name" (or in "function": {…}), the
		// arguments under "arguments" or "parameters".
		return jsonBlock(closer, s.Format)
	}
	names, argKeys := s.nameKeys(), s.argumentsKeys()
	example := fmt.Sprintf(`{%q: "TOOL", %q: {…}}`, names[0], argKeys[0])
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		if k == len(p.buf) {
			return needOrNot(eof) // as jsonBlock
		}
		if c := p.buf[k]; c != '{' && c != '[' {
			return 0, noMatch, nil
		}
		end, complete := p.jsonEnd(k, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		body, after, msg, st := p.bodyOf(k, end, complete, eof, closer)
		if st == needMore {
			return 0, needMore, nil
		}
		if msg != "" {
			return after, matched, p.fail(i, after, s.Format, msg)
		}
		if after == end {
			after = p.closeBlock(end, closer)
		}
		out, res, err := p.decodeJSON(k, body)
		switch {
		case err != nil:
			return after, matched, p.fail(i, after, s.Format, p.jsonErrorMessage(err, k))
		case res.Truncated:
			return after, matched, p.fail(i, after, s.Format, "tool call was cut off: its arguments end before they are complete; send the whole call again")
		}
		v := parseJSON(out)
		calls := []gjson.Result{v}
		if v.IsArray() {
			calls = v.Array()
		}
		raw := p.buf[i:after]
		for _, c := range calls {
			if !c.IsObject() {
				if err := p.fail(i, after, s.Format, fmt.Sprintf("expected a tool call object like %s, got %s", example, describeJSON([]byte(c.Raw)))); err != nil {
					return 0, 0, err
				}
				continue
			}
			name, args := specMembers(out, c, names, argKeys)
			if name == "" && args == nil && s.NameIsKey {
				// {"NAME": {arguments}}
				c.ForEach(func(k, v gjson.Result) bool {
					if v.IsObject() && len(c.Map()) == 1 {
						name, args = strings.Clone(k.Str), rawOf(out, v)
					}
					return false
				})
			}
			p.noExp = !res.Exp
			if err := p.emitCall("", name, args, s.Format, res.Repairs, p.base+int64(i), raw); err != nil {
				return 0, 0, err
			}
		}
		return after, matched, nil
	}
}

// specMembers finds the name and the arguments of a call object, the
// first of names and of argKeys present winning.
func specMembers(out []byte, c gjson.Result, names, argKeys []string) (name string, args []byte) {
	nameAt, argsAt := len(names), len(argKeys)
	c.ForEach(func(k, v gjson.Result) bool {
		if n := slices.Index(names[:nameAt], k.Str); n >= 0 && v.Type == gjson.String {
			name, nameAt = strings.Clone(v.Str), n
		}
		if a := slices.Index(argKeys[:argsAt], k.Str); a >= 0 {
			args, argsAt = rawOf(out, v), a
		}
		return true
	})
	return name, args
}

// checkOptions reports what is wrong with the formats and syntax opts
// names, and returns the prompt tail the output continues.
func checkOptions(opts Options) (prompt string, err error) {
	if s := opts.Syntax; s != nil {
		if err := s.validate(); err != nil {
			return "", err
		}
		if (s.Call != nil) != (opts.Format == FormatTemplate) {
			return "", fmt.Errorf("format %q needs a template call syntax, and a template call syntax needs format %q", FormatTemplate, FormatTemplate)
		}
		prompt = s.Prompt
	}
	if err := CheckFormats(opts.Formats); err != nil {
		return "", err
	}
	forced := false
	for _, s := range opts.Formats {
		if !s.FileForm() {
			return "", fmt.Errorf("format %q is read by code of its own, not by a spec", s.Format)
		}
		if s.Format == opts.Format {
			forced = true
			if s.Prompt != "" && prompt == "" {
				prompt = s.Prompt
			}
		}
	}
	if opts.Format != "" && !forced && !knownFormat(opts.Format) && !(opts.Format == FormatTemplate && opts.Syntax != nil) {
		return "", fmt.Errorf("unknown format %q: see --list-formats", opts.Format)
	}
	return prompt, nil
}

// specSection opens s's call section. Where another built-in family's
// call starts with the same marker, the section opens only when s's
// call starts after it (after space): Hunyuan's <tool_calls> holds
// <tool_call> calls, and the JSON that tool_calls_array's and MiniMax
// M1's specs read after the same marker is theirs.
func specSection(s *Spec) marker {
	m := sectionMarker(s.Section.Start, s.Format)
	open, call := m.h, s.Call.Start
	shared := false
	for _, o := range builtins {
		shared = shared || o.Format != s.Format && o.Call.Start == s.Section.Start
	}
	if !shared || s.Call.Word {
		return m
	}
	if s.Call.Spaced {
		call = tags(call)[0]
	}
	m.h = func(p *Parser, i, j int, eof bool) (int, status, error) {
		k := p.skipSpace(j)
		ok, partial := p.hasPrefixAt(k, call)
		if !ok {
			if (partial || k == len(p.buf)) && !eof {
				return 0, needMore, nil
			}
			return 0, noMatch, nil
		}
		return open(p, i, j, eof)
	}
	return m
}
