package catalog

import (
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/toolcall/toolcall/tools"
)

// Ranking is BM25F: BM25 over a document split into weighted fields, each
// with its own length normalization. A tool's fields, and their weights:
const (
	fieldName    = iota // the name, split into words: 3
	fieldDesc           // the description: 1
	fieldTag            // the tags: 2
	fieldArg            // argument names, nested ones too: 1.5
	fieldArgDesc        // argument descriptions and enum values: 0.5
	numFields
)

var (
	fieldWeight = [numFields]float64{3, 1, 2, 1.5, 0.5}
	fieldLabel  = [numFields]string{"name", "description", "tag", "argument", "argument description"}
)

const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// schemaDepth is how deep the walk of an input schema's properties goes:
	// the top level and two levels of nested objects.
	schemaDepth = 3
	// parallelMin is the number of tools from which indexing is spread
	// over the CPUs.
	parallelMin = 2048
)

// errNoTerms: the query has no word left to rank by.
var errNoTerms = errors.New("query has no terms")

// rankBM25 scores every candidate for query. Both the query and the tools
// are tokenized the same way (see tokenizer): lower case, split on anything
// but letters and digits and also inside names (snake_case, kebab-case,
// dots, camelCase, letters|digits), plurals, -ing and -ed cut off by a
// light stemmer. English stop words are dropped from the query; in a tool
// they count toward the length of a field but match nothing.
//
// For each distinct query term t and tool d, with tf_f the count of t in
// field f, len_f its length in terms and avg_f the median over the
// candidates:
//
//	tf'     = Σ_f weight_f · tf_f / (1 − b + b · len_f / avg_f)
//	idf     = ln(1 + (N − df + 0.5) / (df + 0.5))
//	score   = Σ_t idf · tf' · (k1 + 1) / (k1 + tf')        k1 = 1.2, b = 0.75
//
// tf'·(k1+1)/(k1+tf') stays below k1+1, so no tool can score more than
// Σ idf·(k1+1) over the query terms that occur in at least one candidate
// (a word no tool has cannot be matched and counts for nobody). The score
// reported is the raw score divided by that maximum: 0..1, rounded to 4
// decimals so that it is the same on every machine.
//
// It returns the tools scoring at least minScore, best first (ties by
// name), at most limit of them (0: all); only those get a Reason.
func rankBM25(query string, cands []*tools.Tool, minScore float64, limit int) ([]Ranked, error) {
	q := newQuery(query)
	if len(q.terms) == 0 {
		return nil, errNoTerms
	}
	ix := indexTools(q, cands)

	n := float64(len(cands))
	avg := ix.typicalLengths()
	df := make([]int, len(q.terms))
	for i := range ix.hits {
		df[ix.hits[i].term]++
	}
	idf := make([]float64, len(q.terms))
	maxScore := 0.0
	for t, d := range df {
		if d == 0 {
			continue
		}
		idf[t] = math.Log(1 + (n-float64(d)+0.5)/(float64(d)+0.5))
		maxScore += idf[t] * (bm25K1 + 1)
	}

	// Score every tool; first[i]:last[i] are tool i's hits.
	out := make([]Ranked, len(cands))
	first := make([]int32, len(cands))
	last := make([]int32, len(cands))
	for i, t := range cands {
		out[i] = Ranked{Tool: t, Scored: true}
	}
	for k := 0; k < len(ix.hits); {
		doc := ix.hits[k].doc
		lens := &ix.lens[doc]
		raw := 0.0
		first[doc] = int32(k)
		for ; k < len(ix.hits) && ix.hits[k].doc == doc; k++ {
			h := &ix.hits[k]
			tf := 0.0
			for f := range numFields {
				if h.count[f] > 0 {
					norm := 1 - bm25B + bm25B*float64(lens[f])/avg[f]
					tf += fieldWeight[f] * float64(h.count[f]) / norm
				}
			}
			raw += idf[h.term] * tf * (bm25K1 + 1) / (bm25K1 + tf)
		}
		last[doc] = int32(k)
		out[doc].Score = math.Round(raw/maxScore*1e4) / 1e4
	}

	// Say why, for the tools kept only: building every reason would cost
	// more than the ranking.
	order := best(out, minScore, limit)
	kept := make([]Ranked, len(order))
	var reason strings.Builder
	for i, doc := range order {
		kept[i] = out[doc]
		kept[i].Reason = "no query terms matched"
		if first[doc] == last[doc] {
			continue
		}
		reason.Reset()
		reason.WriteString("matched ")
		for k, h := range ix.hits[first[doc]:last[doc]] {
			if k > 0 {
				reason.WriteString(", ")
			}
			reason.WriteString(q.surface[h.term])
			reason.WriteString(" (")
			sep := ""
			for f := range numFields {
				if h.count[f] > 0 {
					reason.WriteString(sep)
					reason.WriteString(fieldLabel[f])
					sep = ", "
				}
			}
			reason.WriteByte(')')
		}
		kept[i].Reason = reason.String()
	}
	return kept, nil
}

// bm25Query is a tokenized query.
type bm25Query struct {
	terms   []string // distinct stemmed terms, in order of first appearance
	surface []string // each term as first written in the query, lower case
	index   map[string]int
	first   [256]bool // the first bytes of the terms
}

func newQuery(s string) *bm25Query {
	q := &bm25Query{index: make(map[string]int)}
	var z tokenizer
	var buf []byte
	z.each(s, func(word []byte) {
		if len(word) <= maxStopWord {
			if _, stop := stopWords[string(word)]; stop {
				return
			}
		}
		buf = append(buf[:0], word...)
		term := stem(buf)
		if _, ok := q.index[string(term)]; ok {
			return
		}
		q.index[string(term)] = len(q.terms)
		q.terms = append(q.terms, string(term))
		q.surface = append(q.surface, string(word))
		q.first[term[0]] = true
	})
	return q
}

// find returns the index of term in q, or -1. Queries are short, so a scan
// that compares lengths first beats hashing; long ones use the map.
func (q *bm25Query) find(term []byte) int {
	if len(q.terms) > 12 {
		if i, ok := q.index[string(term)]; ok {
			return i
		}
		return -1
	}
	for i, t := range q.terms {
		if len(t) == len(term) && t == string(term) {
			return i
		}
	}
	return -1
}

// termHit is one query term found in one tool.
type termHit struct {
	doc, term int32
	count     [numFields]uint16
}

// bm25Index holds what ranking needs from the tools: field lengths and the
// counts of the query's terms, nothing else.
type bm25Index struct {
	lens [][numFields]int32
	hits []termHit // by doc, then term
}

// indexTools reads every candidate's fields once. Large catalogs are split
// into one contiguous chunk per CPU; the chunks are joined in order, so the
// result does not depend on the number of CPUs.
func indexTools(q *bm25Query, cands []*tools.Tool) *bm25Index {
	ix := &bm25Index{lens: make([][numFields]int32, len(cands))}
	workers := runtime.GOMAXPROCS(0)
	if len(cands) < parallelMin || workers < 2 {
		ix.hits = indexRange(q, cands, 0, len(cands), ix.lens, nil)
	} else {
		chunk := (len(cands) + workers - 1) / workers
		parts := make([][]termHit, workers)
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := w*chunk, min((w+1)*chunk, len(cands))
			if lo >= hi {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				parts[w] = indexRange(q, cands, lo, hi, ix.lens, nil)
			}()
		}
		wg.Wait()
		for _, p := range parts {
			ix.hits = append(ix.hits, p...)
		}
	}
	return ix
}

// typicalLengths returns, for each field, the length a field is compared
// with in length normalization: the median over the tools (at least 1),
// where BM25 has the mean. One tool with a 5,000-word description would
// raise the mean so far that every short description outweighs a match in
// a name; the median does not move.
func (ix *bm25Index) typicalLengths() [numFields]float64 {
	var typical [numFields]float64
	ls := make([]int32, len(ix.lens))
	for f := range numFields {
		for i := range ix.lens {
			ls[i] = ix.lens[i][f]
		}
		slices.Sort(ls)
		typical[f] = max(float64(ls[len(ls)/2]), 1)
	}
	return typical
}

// indexRange indexes cands[lo:hi], writing lens[lo:hi] and appending the
// hits to dst.
func indexRange(q *bm25Query, cands []*tools.Tool, lo, hi int, lens [][numFields]int32, dst []termHit) []termHit {
	var d docScanner
	d.q = q
	d.counts = make([][numFields]uint16, len(q.terms))
	d.emit = d.term
	for i := lo; i < hi; i++ {
		t := cands[i]
		clear(d.counts)
		d.lens = [numFields]int32{}
		d.add(fieldName, t.Name)
		d.add(fieldDesc, t.Description)
		for _, tag := range t.Tags {
			d.add(fieldTag, tag)
		}
		if len(t.InputSchema) > 0 {
			// The schema is never changed once loaded, so reading it as a
			// string without a copy is safe.
			d.schema(unsafe.String(unsafe.SliceData(t.InputSchema), len(t.InputSchema)))
		}
		lens[i] = d.lens
		for term, c := range d.counts {
			if c != ([numFields]uint16{}) {
				dst = append(dst, termHit{doc: int32(i), term: int32(term), count: c})
			}
		}
	}
	return dst
}

// docScanner counts one tool's terms.
type docScanner struct {
	q      *bm25Query
	z      tokenizer
	field  int
	lens   [numFields]int32
	counts [][numFields]uint16
	stem   []byte
	emit   func([]byte) // d.term, made once
}

func (d *docScanner) add(field int, s string) {
	d.field = field
	d.z.each(s, d.emit)
}

// term counts a word of a tool. Stop words count toward the length of
// the field but cannot match, since the query has none; words whose first
// letter starts no query term are not even stemmed.
func (d *docScanner) term(word []byte) {
	d.lens[d.field]++
	if !d.q.first[word[0]] {
		return
	}
	d.stem = append(d.stem[:0], word...)
	if i := d.q.find(stem(d.stem)); i >= 0 && d.counts[i][d.field] < math.MaxUint16 {
		d.counts[i][d.field]++
	}
}

// schema adds the argument names of a JSON Schema (the keys of its
// "properties", and of nested objects' and array items' "properties" down
// to schemaDepth) and their descriptions and string enum values.
//
// It reads the schema in one pass with the small scanner below rather than
// gjson, which would go over each property several times: ranking reads
// every schema of the catalog for each query. The loader has checked that
// the schema is valid JSON; on anything else the scanner stops early and
// never reads past the end.
func (d *docScanner) schema(s string) {
	members(s, skipSpace(s, 0), func(key string, v int) int {
		if key == "properties" {
			return d.props(s, v, 1)
		}
		return skipValue(s, v)
	})
}

// props reads the "properties" object at s[i].
func (d *docScanner) props(s string, i, depth int) int {
	end := members(s, i, func(key string, v int) int {
		d.add(fieldArg, key)
		return d.property(s, v, depth)
	})
	if end < 0 {
		return skipValue(s, i)
	}
	return end
}

// property reads one property's schema at s[i].
func (d *docScanner) property(s string, i, depth int) int {
	end := members(s, i, func(key string, v int) int {
		switch {
		case key == "description" && s[v] == '"':
			text, end := jsonString(s, v)
			d.add(fieldArgDesc, text)
			return end
		case key == "enum" && s[v] == '[':
			return elements(s, v, func(e int) int {
				if s[e] != '"' {
					return skipValue(s, e)
				}
				text, end := jsonString(s, e)
				d.add(fieldArgDesc, text)
				return end
			})
		case key == "properties" && depth < schemaDepth:
			return d.props(s, v, depth+1)
		case key == "items" && depth < schemaDepth && s[v] == '{':
			return members(s, v, func(key string, w int) int {
				if key == "properties" {
					return d.props(s, w, depth+1)
				}
				return skipValue(s, w)
			})
		}
		return skipValue(s, v)
	})
	if end < 0 {
		return skipValue(s, i)
	}
	return end
}

// members calls fn for each member of the JSON object at s[i] with its key
// and the offset of its value; fn returns the offset just past the value.
// members returns the offset just past the object, len(s) if it is
// malformed, or -1 if s[i] does not start an object.
func members(s string, i int, fn func(key string, v int) int) int {
	if i >= len(s) || s[i] != '{' {
		return -1
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	for i < len(s) && s[i] == '"' {
		key, j := jsonString(s, i)
		j = skipSpace(s, j)
		if j >= len(s) || s[j] != ':' {
			break
		}
		if j = skipSpace(s, j+1); j >= len(s) {
			break
		}
		if j = skipSpace(s, max(fn(key, j), j+1)); j >= len(s) {
			break
		}
		if s[j] == '}' {
			return j + 1
		}
		if s[j] != ',' {
			break
		}
		i = skipSpace(s, j+1)
	}
	return len(s)
}

// elements is members for the JSON array at s[i].
func elements(s string, i int, fn func(v int) int) int {
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return i + 1
	}
	for i < len(s) {
		j := skipSpace(s, max(fn(i), i+1))
		if j >= len(s) {
			break
		}
		if s[j] == ']' {
			return j + 1
		}
		if s[j] != ',' {
			break
		}
		i = skipSpace(s, j+1)
	}
	return len(s)
}

// skipValue returns the offset just past the JSON value at s[i] (at least
// i+1, at most len(s)).
func skipValue(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = stringEnd(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	j := i + 1
	for j < len(s) && !strings.ContainsRune(",}] \t\n\r", rune(s[j])) {
		j++
	}
	return j
}

// stringEnd returns the offset just past the JSON string at s[i].
func stringEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}

// jsonString returns the JSON string at s[i], unquoted, and the offset
// just past it. Strings without escapes, nearly all of them, are not
// copied.
func jsonString(s string, i int) (string, int) {
	end := stringEnd(s, i)
	raw := s[i+1 : max(end-1, i+1)]
	if !strings.Contains(raw, `\`) {
		return raw, end
	}
	var text string
	if err := json.Unmarshal([]byte(s[i:end]), &text); err != nil {
		return raw, end
	}
	return text, end
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// tokenizer splits text into words. It reuses its buffer, so a word is
// only valid during the callback.
type tokenizer struct {
	buf []byte // the current word, lower case
}

// Kinds of character, for splitting words.
const (
	kindOther = iota
	kindLower
	kindUpper
	kindDigit
)

var asciiKind = func() (k [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		k[c] = kindLower
		k[c-'a'+'A'] = kindUpper
	}
	for c := '0'; c <= '9'; c++ {
		k[c] = kindDigit
	}
	return k
}()

// each calls fn with every word of s, in lower case.
//
// Words are runs of letters or of digits; a word also ends where a lower
// case letter is followed by an upper case one ("getWeather") and before
// the last of several capitals followed by a lower case letter
// ("HTTPServer" -> http, server). Single letters are dropped.
func (z *tokenizer) each(s string, fn func(word []byte)) {
	prev := uint8(kindOther)
	z.buf = z.buf[:0]
	for i := 0; i < len(s); {
		c := s[i]
		var r rune
		size := 1
		var kind uint8
		if c < utf8.RuneSelf {
			kind = asciiKind[c]
			if kind == kindUpper {
				c += 'a' - 'A'
			}
			r = rune(c)
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case unicode.IsUpper(r):
				kind = kindUpper
				r = unicode.ToLower(r)
			case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
				kind = kindLower
			case unicode.IsDigit(r):
				kind = kindDigit
			}
		}
		if kind != prev || kind == kindOther {
			if kind == kindOther || prev == kindOther || kind == kindDigit || prev == kindDigit ||
				prev == kindLower && kind == kindUpper {
				z.flush(fn)
			}
		} else if kind == kindUpper && nextIsLower(s, i+size) {
			// "HTTPServer": split before the S, the start of "Server".
			z.flush(fn)
		}
		prev = kind
		switch {
		case kind == kindOther:
			i += size
		case r >= utf8.RuneSelf:
			z.buf = utf8.AppendRune(z.buf, r)
			i += size
		default:
			z.buf = append(z.buf, byte(r))
			i++
			// The rest of a run of ASCII lower case letters or digits
			// cannot split: copy it whole.
			if kind != kindUpper {
				j := i
				for j < len(s) && s[j] < utf8.RuneSelf && asciiKind[s[j]] == kind {
					j++
				}
				z.buf = append(z.buf, s[i:j]...)
				i = j
			}
		}
	}
	z.flush(fn)
}

// nextIsLower reports whether a lower case letter starts s[i:].
func nextIsLower(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	if c := s[i]; c < utf8.RuneSelf {
		return asciiKind[c] == kindLower
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLower(r)
}

func (z *tokenizer) flush(fn func(word []byte)) {
	w := z.buf
	z.buf = z.buf[:0]
	if len(w) == 0 || len(w) == 1 && asciiKind[w[0]] != kindDigit || len(w) <= utf8.UTFMax && w[0] >= utf8.RuneSelf && utf8.RuneCount(w) == 1 {
		return // a single letter: "s" of "it's", "à"
	}
	fn(w)
}

const maxStopWord = 6

// stopWords are left out of queries: they match everything and mean
// nothing here.
var stopWords = func() map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(`a about all also an and any are as at be been but by can could
		did do does for from had has have he her his how i if in into is it its just me my no
		not of on or our please she should so some than that the their them then there these
		they this those to too up us was we were what when where which who why will with would
		you your`) {
		m[w] = struct{}{}
	}
	return m
}()

// stem cuts the common English endings off an ASCII word, in place:
// plurals (cities -> city, boxes -> box, files -> file), then -ing and -ed
// (with a doubled consonant undone: running -> run), then a final e (file
// -> fil, so that "file", "files" and "filed" meet). It is deliberately
// light: only the query and the tools have to agree, and a wrong merge
// costs less than a missed match. Words with digits or other scripts are
// left alone.
func stem(w []byte) []byte {
	if len(w) < 4 {
		return w
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return w
		}
	}
	n := len(w)
	switch {
	case n > 4 && hasSuffix(w, "ies"):
		w = append(w[:n-3], 'y')
	case hasSuffix(w, "sses"):
		w = w[:n-2]
	case hasSuffix(w, "ss"), hasSuffix(w, "us"), hasSuffix(w, "is"):
	case w[n-1] == 's':
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case n >= 6 && hasSuffix(w, "ing"):
		w = undouble(w[:n-3])
	case n >= 5 && hasSuffix(w, "ed") && w[n-3] != 'e':
		w = undouble(w[:n-2])
	}
	n = len(w)
	if n > 3 && w[n-1] == 'e' && w[n-2] != 'e' {
		w = w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

// undouble turns a doubled final consonant left by a cut suffix into one
// (stopp -> stop), except l, s and z (call, pass, buzz) and in short stems
// (add).
func undouble(w []byte) []byte {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}
