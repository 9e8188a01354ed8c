package parse

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/toolcall/toolcall/tools/event"
)

// handler parses the block that starts with a marker at buf[i]; j is just
// past the marker's fixed text. It returns where the block ends.
type handler func(p *Parser, i, j int, eof bool) (end int, st status, err error)

// marker is a fixed string that starts a block.
type marker struct {
	tok string
	h   handler
	// formats are those the block can produce; a forced --format turns
	// off markers that cannot produce it. Empty means always on
	// (reasoning, end-of-turn tokens).
	formats []string
}

// angleMarkers start with '<', bracketMarkers with '['. They are sorted
// longest first, so <tool_calls> wins over <tool_call>. Built from the
// control tokens below and each family's markers (register), once.
var angleMarkers, bracketMarkers []marker

// Handlers the control tokens and the families' markers share.

// reason opens a think block that one of closers ends.
func reason(closers ...string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		return p.openReasoning(j, "think", closers)
	}
}

// skip drops a control token that is never prose.
func skip(p *Parser, i, j int, eof bool) (int, status, error) { return j, matched, nil }

// closer drops the closing tag of a call block that came in a later piece
// of input than the call. Anywhere else the tag is prose.
func closer(tok string, formats ...string) marker { return marker{tok, lateCloser, formats} }

// sectionMarker opens a call section of format; also lists the other
// formats whose calls it may hold, for --format.
func sectionMarker(tok, format string, also ...string) marker {
	h := func(p *Parser, i, j int, eof bool) (int, status, error) {
		ok := p.allowed(format)
		for _, f := range also {
			ok = ok || p.allowed(f)
		}
		if !ok {
			return 0, noMatch, nil
		}
		if err := p.flushText(i); err != nil {
			return 0, 0, err
		}
		p.section = format
		return j, matched, nil
	}
	return marker{tok, h, append([]string{format}, also...)}
}

func endSection(p *Parser, i, j int, eof bool) (int, status, error) {
	if err := p.flushText(i); err != nil {
		return 0, 0, err
	}
	p.section = ""
	return j, matched, nil
}

// sectionEnd is the marker that ends a call section, which also ends a
// call in it that left its own end marker out (sectionEnds).
func sectionEnd(tok string) marker {
	sectionEnds = append(sectionEnds, tok)
	return marker{tok, endSection, nil}
}

func stray(p *Parser, i, j int, eof bool) (int, status, error) { return p.strayCloser(i, j) }

// answer opens an explicit final-answer block that one of closers ends.
func answer(closers ...string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		if err := p.flushText(i); err != nil {
			return 0, 0, err
		}
		p.mode, p.closers, p.reasonFormat = modeAnswer, closers, FormatCommandR7B
		return j, matched, nil
	}
}

// controlTokens are the markers no family owns: reasoning, looked for
// first (nothing inside it is ever a call), and the end-of-turn and other
// control tokens servers leave in the text when they do not skip special
// tokens. They are not prose.
var controlTokens = []marker{
	{"<think>", reason("</think>"), nil},
	{"<thinking>", reason("</thinking>"), nil},
	{"<seed:think>", reason("</seed:think>"), nil},
	{"<mm:think>", reason("</mm:think>"), nil},
	{"<think:opensource>", reason("</think:opensource>"), nil}, // Hunyuan Hy3
	{"<|START_THINKING|>", reason("<|END_THINKING|>"), nil},
	{"<|inner_prefix|>", reason("<|inner_suffix|>"), nil},
	{"<|channel>", (*Parser).gemmaChannel, nil},
	{"</think>", stray, nil},
	{"</thinking>", stray, nil},
	{"</seed:think>", stray, nil},
	{"</mm:think>", stray, nil},
	{"</think:opensource>", stray, nil},
	{"<|END_THINKING|>", stray, nil},
	{"<|inner_suffix|>", stray, nil},
	{"<channel|>", stray, nil},
	{"<|START_RESPONSE|>", answer("<|END_RESPONSE|>"), nil},
	{"<|END_RESPONSE|>", skip, nil},
	// Command A (cmd4) writes visible text between these; it stays
	// prose, and the tokens go.
	{"<|START_TEXT|>", skip, nil},
	{"<|END_TEXT|>", skip, nil},

	{"<|eot_id|>", skip, nil},
	{"<|eom_id|>", skip, nil},
	{"<|eot|>", skip, nil}, // Llama 4
	{"<|eom|>", skip, nil},
	{"<|im_end|>", skip, nil},
	{"<|im_start|>assistant\n", skip, nil},
	{"<|end|>", skip, nil},
	{"<|return|>", skip, nil},
	{"<|call|>", skip, nil},
	{"<|endoftext|>", skip, nil},
	{"<|end_of_text|>", skip, nil},
	{"<|END_OF_TURN_TOKEN|>", skip, nil},
	{"<|START_OF_TURN_TOKEN|>", skip, nil},
	{"<|CHATBOT_TOKEN|>", skip, nil},
	{"<|assistant_end|>", skip, nil},
	{"<|observation|>", skip, nil},
	{"<seed:eos>", skip, nil},
	{"<|message_sep|>", skip, nil},
	{"<end_of_turn>", skip, nil},
	// Where the template has a tool's response begin right after the
	// calls, the model stops by writing that token (Gemma 4's
	// <|tool_response>, FunctionGemma's <start_function_response>).
	{"<|tool_response>", skip, nil},
	{"<start_function_response>", skip, nil},
	{"</s>", skip, nil},
	{"<|plamo:tag|>", skip, nil}, // PLaMo 3's end of turn
	// Upstage Solar Open: reasoning, the answer and the calls each
	// after <|begin|>assistant.
	{"<|think|>", reason("<|end|>"), nil},
	{"<|begin|>assistant", skip, nil},
	{"<|content|>", skip, nil},
	{"<|flush|>", skip, nil},
	// Solar Open 2.
	{"<|think:start|>", reason("<|think:end|>"), nil},
	{"<|think:end|>", stray, nil},
	// Kimi K3's XTML: reasoning, the answer and the calls each in an
	// <|open|>…<|close|> block.
	{"<|open|>think<|sep|>", reason("<|close|>think<|sep|>"), nil},
	{"<|close|>think<|sep|>", stray, nil},
	{"<|open|>response<|sep|>", skip, nil},
	{"<|close|>response<|sep|>", skip, nil},
	{"<|close|>message<|sep|>", skip, nil},

	{"[THINK]", reason("[/THINK]"), nil},
	{"[/THINK]", stray, nil},
	// Apriel writes its reasoning steps, then the answer between
	// these: the opener closes the reasoning like a </think>.
	{"[BEGIN FINAL RESPONSE]", stray, nil},
	{"[END FINAL RESPONSE]", skip, nil},
}

// afterThink holds, by the format a built-in think block names, the
// calls that may follow its end without their start marker
// (Spec.AfterReasoning).
var afterThink = map[string]*bareReader{}

// sectionOpeners start a tool-call section; each ends an open think block
// (unless --format rules its format out). From the families' opens.
var sectionOpeners []struct{ tok, format string }

// buildMarkers sorts the families and builds the marker tables, on first
// use (NewParser, Formats, Specs): not at package init, which every
// toolcall process pays, whether it parses or not.
var buildMarkers = sync.OnceFunc(func() {
	// The families register as the package's variables are set, in an
	// order their dependencies decide: listed by id.
	slices.SortFunc(builtins, func(a, b *Spec) int { return strings.Compare(a.Format, b.Format) })
	// Readings that share a start marker are tried in the order the
	// markers are listed: the tags' readings that are no family's
	// (tagReadings), the families' in their declared order (Spec.try),
	// then, when none read the block, one fallback (sharedFallback).
	order := slices.Clone(builtins)
	slices.SortStableFunc(order, func(a, b *Spec) int { return cmp.Compare(a.try, b.try) })
	readers := map[string]int{}
	groups := map[string][]*Spec{}
	for _, m := range tagReadings {
		readers[m.tok]++
	}
	for _, s := range order {
		if s.own == nil && s.FileForm() || s.specToo {
			for _, t := range specStarts(s) {
				readers[t]++
				groups[t] = append(groups[t], s)
			}
		}
	}
	ms := append([]marker(nil), controlTokens...)
	ms = append(ms, tagReadings...)
	ms = append(ms, tagClosers...)
	for _, s := range order {
		if s.own != nil || !s.FileForm() {
			ms = append(ms, s.own...)
		}
		if s.own == nil && s.FileForm() || s.specToo {
			s.shared = readers[specStarts(s)[0]] > 1
			ms = specMarkers(ms, s, true) // read by its spec alone
		}
		if s.AfterReasoning {
			// The family's think block is a control token's, which
			// names the family (gemmaChannel).
			afterThink[s.Format] = newBareReader(s)
		}
		for _, t := range s.opens {
			sectionOpeners = append(sectionOpeners, struct{ tok, format string }{t, s.Format})
		}
	}
	ms = append(ms, fallbacks(ms, readers, groups)...)
	for _, m := range ms {
		switch m.tok[0] {
		case '<':
			angleMarkers = append(angleMarkers, m)
		case '[':
			bracketMarkers = append(bracketMarkers, m)
		default:
			wordMarkers = append(wordMarkers, m) // a word before '[' (wordAt)
		}
	}
	sort.SliceStable(wordMarkers, func(a, b int) bool { return len(wordMarkers[a].tok) > len(wordMarkers[b].tok) })
	for _, ms := range [][]marker{angleMarkers, bracketMarkers} {
		sort.SliceStable(ms, func(a, b int) bool { return len(ms[a].tok) > len(ms[b].tok) })
	}
	angleIndex = indexMarkers(angleMarkers)
	bracketIndex = indexMarkers(bracketMarkers)
})

// specStarts are the markers a family read by its spec alone opens a
// call with, then its section, then those of its suffixed spelling
// (Spec.TagSuffix).
func specStarts(s *Spec) []string {
	start := s.Call.Start
	if s.Call.Spaced {
		start = tags(start)[0]
	}
	out := []string{start}
	if s.Section != nil {
		out = append(out, s.Section.Start)
	}
	if s.TagSuffix != "" {
		out = append(out, specStarts(s.suffixed())...)
	}
	return out
}

// fallbacks are the fallbacks of the start markers several readings
// share (readers counts them; groups are the families of each, in
// order), each on under the formats of the markers it follows.
func fallbacks(ms []marker, readers map[string]int, groups map[string][]*Spec) []marker {
	var out []marker
	toks := slices.Sorted(maps.Keys(readers))
	for _, tok := range toks {
		if readers[tok] < 2 || len(groups[tok]) == 0 {
			continue
		}
		s := groups[tok][0]
		format, howTo, on := s.Format, s.written(), []string(nil)
		// A header the output cuts off (a name) is told as the first
		// family whose call starts with a name writes one.
		cut := fallbackCut{format: format, howTo: howTo}
		for _, g := range groups[tok] {
			if g.Body != BodyJSON && g.Call.Start == tok {
				cut = fallbackCut{format: g.Format, howTo: g.written()}
				break
			}
		}
		if f, ok := tagFallbacks[tok]; ok {
			format, howTo, on = f.format, f.howTo, f.on
			cut = fallbackCut{format: format, howTo: howTo}
		}
		forced := map[string]string{}
		for _, g := range groups[tok] {
			if g.Call.Start == tok && g.Format != format {
				forced[g.Format] = g.written()
			}
		}
		end := s.Call.End
		if s.Section != nil && s.Section.Start == tok {
			end = s.Section.End
		}
		if on == nil {
			for _, m := range ms {
				if m.tok == tok {
					on = append(on, m.formats...)
				}
			}
			slices.Sort(on)
			on = slices.Compact(on)
		}
		out = append(out, marker{tok, sharedFallback(end, format, howTo, forced, cut), on})
	}
	return out
}

// markerIndex lists, for each possible second byte, the markers that have
// it, longest first, so a '<' in prose is checked against a few markers
// rather than all of them.
type markerIndex [256][]*marker

var angleIndex, bracketIndex *markerIndex

func indexMarkers(ms []marker) *markerIndex {
	var ix markerIndex
	for k := range ms {
		c := ms[k].tok[1]
		ix[c] = append(ix[c], &ms[k])
	}
	return &ix
}

// allowed reports whether format may be emitted under --format.
func (p *Parser) allowed(format string) bool {
	return p.opts.Format == "" || p.opts.Format == format
}

func (m *marker) on(p *Parser) bool {
	if p.opts.Format == "" || m.formats == nil {
		return true
	}
	for _, f := range m.formats {
		if f == p.opts.Format {
			return true
		}
	}
	return false
}

// dispatch decides what the trigger byte at buf[i] starts.
func (p *Parser) dispatch(i int, eof bool) (int, status, error) {
	p.closerRepairs = 0
	if i == p.bareCallAt {
		end, st, err := p.bareCall.read(p, i, eof)
		if st != needMore {
			p.bareCallAt = -1
		}
		if st != noMatch || err != nil || !bytes.ContainsRune([]byte(triggers), rune(p.buf[i])) {
			return end, st, err
		}
	}
	if p.extra != nil && (p.buf[i] == '<' || p.buf[i] == '[') {
		end, st, err := p.matchMarker(p.extra, i, eof)
		if st != noMatch || err != nil {
			return end, st, err
		}
	}
	switch p.buf[i] {
	case '<':
		// A Hermes block as json.dumps writes it is read in one pass
		// (hermesblock.go); its first bytes are compared here, inline.
		if b := p.buf[i:]; len(b) >= len(hermesOpen) && string(b[:16]) == hermesOpen16 {
			if end, ok, err := p.hermesCall(i); ok {
				return end, matched, err
			}
		}
		// orGeneric (generic_block.go): with known tools, markup no
		// family reads may still be a call in a common shape.
		end, st, err := p.matchMarker(angleIndex, i, eof)
		return p.orGeneric(i, eof, end, st, err)
	case '[':
		end, st, err := p.matchMarker(bracketIndex, i, eof)
		if st != noMatch || err != nil {
			return end, st, err
		}
		end, st, err = p.bracket(i, eof)
		return p.orGeneric(i, eof, end, st, err)
	case '{':
		if p.section == "" && p.opts.KnownTool == nil && p.atLineStart(i) {
			if end, ok, err := p.protocolCall(i); ok {
				return end, matched, err
			}
		}
		if p.opts.KnownTool != nil && p.section == "" {
			if end, st, err := p.knownJSONCall(i, eof); st != noMatch || err != nil {
				return end, st, err
			}
		}
		if p.section != "" || p.atLineStart(i) {
			return p.bareJSON(i, eof)
		}
	case '>':
		if i > p.seg && p.buf[i-1] == '-' {
			return p.clovaCall(i-1, eof)
		}
		return p.functionary(i, eof)
	case '`':
		return p.backtick(i, eof)
	case '(':
		if p.allowed(FormatPythonic) {
			return p.knownPyCall(i, eof)
		}
	case 0xe2:
		// '‹' (generic_block.go); any other character is prose.
		return p.orGeneric(i, eof, 0, noMatch, nil)
	}
	return 0, noMatch, nil
}

// matchMarker finds the longest marker at buf[i] and runs its handler. A
// prefix of a marker at the end of the input so far waits for more.
func (p *Parser) matchMarker(ix *markerIndex, i int, eof bool) (int, status, error) {
	rest := p.buf[i:]
	if len(rest) < 2 {
		if eof {
			return 0, noMatch, nil
		}
		return 0, needMore, nil
	}
	partial := false
	for _, m := range ix[rest[1]] {
		if n := len(m.tok); len(rest) >= n {
			// The last bytes first: the markers that share a second
			// byte share more (<tool_call>, <tool_calls>, <tool_call|>,
			// <tool_call:opensource>), and most differ in length.
			if rest[n-1] != m.tok[n-1] || string(rest[:n]) != m.tok || !m.on(p) {
				continue
			}
			end, st, err := m.h(p, i, i+len(m.tok), eof)
			if st == noMatch && err == nil {
				continue
			}
			return end, st, err
		} else if !eof && string(rest) == m.tok[:len(rest)] {
			partial = true
		}
	}
	if partial {
		return 0, needMore, nil
	}
	return 0, noMatch, nil
}

// atLineStart reports whether only spaces (and one ';' or ',') separate buf[i] from the start
// of its line, the start of the input, or the end of the last block.
func (p *Parser) atLineStart(i int) bool {
	semicolon := false
	for j := i - 1; ; j-- {
		if j < p.lineAt {
			return true
		}
		switch p.buf[j] {
		case ' ', '\t':
			continue
		case ';', ',':
			// Llama 3 separates parallel calls with ';'; models that
			// write several values in a row, with ','.
			if semicolon {
				return false
			}
			semicolon = true
			continue
		case '\n', '\r':
			return true
		}
		return false
	}
}

// openReasoning starts a think block after flushing the prose before it.
func (p *Parser) openReasoning(j int, format string, closers []string) (int, status, error) {
	if err := p.flushText(p.pos); err != nil {
		return 0, 0, err
	}
	p.mode, p.closers, p.reasonFormat = modeReasoning, closers, format
	p.afterThink = afterThink[format]
	return j, matched, nil
}

// strayCloser handles a closing think tag with no opening one. Templates
// that open the think block in the prompt (Qwen3 thinking, DeepSeek R1)
// make the output start inside reasoning: when nothing but text came
// before, that text was reasoning. Otherwise the tag is dropped.
func (p *Parser) strayCloser(i, j int) (int, status, error) {
	if !p.written && p.mode == modeProse {
		text := p.buf[p.notPrompt(p.seg, i):i]
		p.seg = i
		if len(bytes.TrimSpace(text)) > 0 {
			if err := p.put(event.TypeReasoning, text, "think"); err != nil {
				return 0, 0, err
			}
		}
	} else if err := p.flushText(i); err != nil {
		return 0, 0, err
	}
	return j, matched, nil
}

// scanClosed scans reasoning or an answer block for its closer. It
// reports done when the block ended (or the input did).
func (p *Parser) scanClosed(eof bool) (bool, error) {
	for {
		first := p.closers[0][0]
		i := -1
		for _, c := range p.closers {
			if c[0] != first {
				first = 0
			}
		}
		if p.mode == modeReasoning && first != '<' {
			first = 0 // a section opener, which starts with '<', may end it
		}
		if first != 0 {
			i = p.indexFrom(first, p.pos)
		} else {
			i = p.nextTrigger(p.pos)
		}
		if i < 0 {
			p.pos = len(p.buf)
			return false, p.splitLongMode()
		}
		p.pos = i
		if err := p.splitLongMode(); err != nil {
			return false, err
		}
		rest := p.buf[i:]
		if p.mode == modeReasoning {
			at, partial := p.sectionOpener(i)
			if partial && !eof {
				return false, nil
			}
			if at >= 0 {
				// Kimi K2 Thinking opens its call section before
				// </think>: the reasoning ends there and the calls are
				// calls (a later </think> is dropped as stray).
				if err := p.flushMode(at, true); err != nil {
					return false, err
				}
				p.mode, p.closers = modeProse, nil
				p.pos, p.seg, p.lineAt = at, at, at
				return true, nil
			}
		}
		for _, c := range p.closers {
			if bytes.HasPrefix(rest, []byte(c)) {
				if err := p.flushMode(i, true); err != nil {
					return false, err
				}
				end := i + len(c)
				if a := p.afterThink; p.mode == modeReasoning && a != nil && p.allowed(a.format) {
					p.bareCallAt, p.bareCall = end, a // a call may follow with no start marker
				}
				p.mode, p.closers = modeProse, nil
				p.pos, p.seg, p.lineAt = end, end, end
				return true, nil
			}
			if !eof && len(rest) < len(c) && bytes.HasPrefix([]byte(c), rest) {
				return false, nil
			}
		}
		p.pos = i + 1
	}
}

// sectionOpener reports whether a section opener starts at buf[i], and
// where (MiniMax M3's token begins one byte earlier); partial when the
// input ends inside one.
func (p *Parser) sectionOpener(i int) (at int, partial bool) {
	for _, o := range sectionOpeners {
		if !p.allowed(o.format) {
			continue
		}
		t := o.tok
		ok, part := p.hasPrefixAt(i, t)
		if ok && t[1] == ']' {
			if i > p.seg && p.buf[i-1] == ']' {
				return i - 1, false
			}
			continue
		}
		if ok {
			return i, false
		}
		partial = partial || part
	}
	return -1, partial
}

func (p *Parser) splitLongMode() error {
	if p.mode == modeAnswer {
		return nil // one final_answer event; bounded by maxBlock below
	}
	return p.splitLong(p.mode)
}

// indexFrom finds byte c at or after from using the trigger cache when c is
// a trigger byte.
func (p *Parser) indexFrom(c byte, from int) int {
	if k := bytes.IndexByte([]byte(triggers), c); k >= 0 && k < p.ntrig {
		for {
			i := p.nextTrigger(from)
			if i < 0 || p.buf[i] == c {
				return i
			}
			from = i + 1
		}
	}
	if j := bytes.IndexByte(p.buf[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// gemmaChannel opens Gemma 4's thought channel: <|channel>thought\n…<channel|>.
func (p *Parser) gemmaChannel(i, j int, eof bool) (int, status, error) {
	rest := p.buf[j:]
	const label = "thought"
	if len(rest) < len(label)+1 && !eof && bytes.HasPrefix([]byte(label+"\n"), rest) {
		return 0, needMore, nil
	}
	if bytes.HasPrefix(rest, []byte(label)) {
		j += len(label)
		if j < len(p.buf) && p.buf[j] == '\n' {
			j++
		}
	}
	return p.openReasoning(j, FormatGemma4, []string{"<channel|>"})
}
