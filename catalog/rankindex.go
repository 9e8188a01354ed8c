package catalog

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/unsafestr"
	"github.com/toolcall/toolcall/tools"
)

// The tool side of ranking: every candidate's fields read once, counting
// only the query's terms, with each field's length and the lengths a
// field is compared with.

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
	// typical, when set, is typicalLengths, as a catalog read once for
	// many requests keeps it.
	typical *[numFields]float64
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
	if ix.typical != nil {
		return *ix.typical
	}
	var typical [numFields]float64
	ls := make([]int32, 0, len(ix.lens))
	for f := range numFields {
		ls = ls[:0]
		for i := range ix.lens {
			// Few tools have example requests or an output schema: the
			// typical length of theirs is that of the tools that have
			// some, or every one would count as far longer than usual.
			if f != fieldRequest && f != fieldOutput || ix.lens[i][f] > 0 {
				ls = append(ls, ix.lens[i][f])
			}
		}
		if len(ls) == 0 {
			typical[f] = 1
			continue
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
		d.tool(t)
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
	stems  stemmer
	emit   func([]byte) // d.term, made once
}

// tool reads every field of t, from the start.
func (d *docScanner) tool(t *tools.Tool) {
	d.lens = [numFields]int32{}
	d.add(fieldName, t.Name)
	d.addText(fieldDesc, t.Description)
	for _, tag := range t.Tags {
		d.add(fieldTag, tag)
	}
	for _, r := range t.ExampleRequests {
		d.add(fieldRequest, r)
	}
	if len(t.InputSchema) > 0 {
		// The schema is never changed once loaded, so reading it as a
		// string without a copy is safe.
		d.schema(unsafestr.String(t.InputSchema))
	}
	if len(t.OutputSchema) > 0 {
		d.output(gjson.Get(unsafestr.String(t.OutputSchema), "properties"), 1)
	}
}

func (d *docScanner) add(field int, s string) {
	d.field = field
	d.z.each(s, d.emit)
}

// addText adds a description to field, and the example values in it, such
// as "(e.g. Paris, London)", to fieldExample: a request about chicken is
// not about a recipe tool because chicken is one of its examples.
func (d *docScanner) addText(field int, s string) {
	eachExample(s, func(part string, example bool) {
		if example {
			d.add(fieldExample, part)
		} else {
			d.add(field, part)
		}
	})
}

// term counts a word of a tool. Stop words count toward the length of
// the field but cannot match, since the query has none; words whose first
// letter starts no query term are not even stemmed (a stem keeps its
// word's first letter). Numbers among example values match nothing: a
// year or a count in a request says nothing of the tool.
func (d *docScanner) term(word []byte) {
	d.lens[d.field]++
	if !d.q.first[word[0]] || d.field == fieldExample && word[0] < utf8.RuneSelf && asciiKind[word[0]] == kindDigit {
		return
	}
	if i := d.q.find(d.stems.stem(word)); i >= 0 && d.counts[i][d.field] < math.MaxUint16 {
		d.counts[i][d.field]++
	}
}

// schema adds the argument names of a JSON Schema (the keys of its
// "properties", and of nested objects' and array items' "properties" down
// to schemaDepth), their descriptions, string enum values and string
// "examples".
func (d *docScanner) schema(s string) {
	d.props(gjson.Get(s, "properties"), 1)
}

// props reads a "properties" object.
func (d *docScanner) props(props gjson.Result, depth int) {
	if !props.IsObject() {
		return
	}
	props.ForEach(func(key, prop gjson.Result) bool {
		d.add(fieldArg, key.String())
		d.property(prop, depth)
		return true
	})
}

// output reads the properties of an output schema, names and
// descriptions, into fieldOutput.
func (d *docScanner) output(props gjson.Result, depth int) {
	if !props.IsObject() {
		return
	}
	props.ForEach(func(key, prop gjson.Result) bool {
		d.add(fieldOutput, key.String())
		if desc := prop.Get("description"); desc.Type == gjson.String {
			d.add(fieldOutput, desc.Str)
		}
		if depth < schemaDepth {
			d.output(prop.Get("properties"), depth+1)
			d.output(prop.Get("items.properties"), depth+1)
		}
		return true
	})
}

// property reads one property's schema.
func (d *docScanner) property(prop gjson.Result, depth int) {
	if !prop.IsObject() {
		return
	}
	prop.ForEach(func(key, v gjson.Result) bool {
		switch k := key.String(); {
		case k == "description" && v.Type == gjson.String:
			d.addText(fieldArgDesc, v.Str)
		case k == "examples" && v.IsArray():
			v.ForEach(func(_, e gjson.Result) bool {
				if e.Type == gjson.String {
					d.add(fieldExample, e.Str)
				}
				return true
			})
		case k == "enum" && v.IsArray():
			v.ForEach(func(_, e gjson.Result) bool {
				if e.Type == gjson.String {
					d.add(fieldArgDesc, e.Str)
				}
				return true
			})
		case k == "properties" && depth < schemaDepth:
			d.props(v, depth+1)
		case k == "items" && depth < schemaDepth && v.IsObject():
			d.props(v.Get("properties"), depth+1)
		}
		return true
	})
}
