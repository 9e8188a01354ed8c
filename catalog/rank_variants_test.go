package catalog

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/tools"
)

// A variant of the ranking, measured by TestRankVariants.
type rankVariant struct {
	name string
	set  func(p *bm25Params)
	// rm3, when set, is pseudo-relevance feedback: the request is ranked
	// once, the words of its best tools join it, and it is ranked again.
	rm3 *rm3Params
	// query: the variant reads requests differently.
	query bool
}

// rm3Params: the words of the best docs tools of each ask, weighted by
// the tools' scores and their share of each tool's words, join that ask;
// the best terms of them, at most weight lambda (the best one) and less
// in proportion.
type rm3Params struct {
	docs, terms int
	lambda      float64
}

func rankVariants() []rankVariant {
	vs := []rankVariant{{name: "base", set: func(*bm25Params) {}},
		{name: "before: BM25 k1=1.2, statements are asks", query: true, set: func(p *bm25Params) {
			p.k1, p.delta, p.lower, p.statements, p.shareTaken, p.helpOpens = 1.2, 0, false, nil, false, false
		}},
		{name: "BM25 (δ=0)", set: func(p *bm25Params) { p.delta = 0 }},
	}
	for _, d := range []float64{0.25, 0.5, 1} {
		vs = append(vs, rankVariant{name: fmt.Sprintf("BM25+ δ=%g", d), set: func(p *bm25Params) { p.delta, p.lower = d, false }})
	}
	for _, d := range []float64{0.15, 0.5, 0.75} {
		vs = append(vs, rankVariant{name: fmt.Sprintf("BM25L δ=%g", d), set: func(p *bm25Params) { p.delta = d }})
	}
	for _, d := range []float64{0.25, 0.5, 1} {
		vs = append(vs, rankVariant{name: fmt.Sprintf("BM25L δ=%g per field", d), set: func(p *bm25Params) { p.delta, p.perField = d, true }})
	}
	for _, k := range []float64{1, 1.2} {
		vs = append(vs, rankVariant{name: fmt.Sprintf("k1=%g", k), set: func(p *bm25Params) { p.k1 = k }})
	}
	for _, fb := range []struct {
		f int
		b float64
	}{{fieldName, 0.5}, {fieldName, 0.3}, {fieldDesc, 0.75}, {fieldArg, 0.5}, {fieldArgDesc, 0.6}, {fieldArgDesc, 1}} {
		vs = append(vs, rankVariant{name: fmt.Sprintf("b[%s]=%g", fieldLabel[fb.f], fb.b), set: func(p *bm25Params) { p.b[fb.f] = fb.b }})
	}
	for _, fw := range []struct {
		f int
		w float64
	}{{fieldName, 2}, {fieldName, 4}, {fieldDesc, 1.5}, {fieldArg, 1}, {fieldArg, 2}, {fieldArgDesc, 0.25}, {fieldArgDesc, 1}} {
		vs = append(vs, rankVariant{name: fmt.Sprintf("w[%s]=%g", fieldLabel[fw.f], fw.w), set: func(p *bm25Params) { p.weight[fw.f] = fw.w }})
	}
	for _, w := range []float64{0.25, 1, 2} {
		vs = append(vs, rankVariant{name: fmt.Sprintf("w[output]=%g", w), set: func(p *bm25Params) { p.weight[fieldOutput] = w }})
	}
	vs = append(vs, rankVariant{name: "each ask its own pick", set: func(p *bm25Params) { p.shareTaken = false }})
	vs = append(vs, rankVariant{name: "help openers are asks", query: true, set: func(p *bm25Params) { p.helpOpens = false }})
	vs = append(vs, rankVariant{name: "statements are asks", query: true, set: func(p *bm25Params) { p.statements = nil }})
	for _, r := range []rm3Params{{3, 5, 0.2}, {3, 10, 0.3}, {5, 10, 0.5}} {
		vs = append(vs, rankVariant{name: fmt.Sprintf("RM3 %d docs %d terms λ=%g", r.docs, r.terms, r.lambda), set: func(*bm25Params) {}, rm3: &r})
	}
	return vs
}

// TestRankVariants measures variants of the ranking on every proxy set
// it finds and prints a table of Recall@5 and NDCG@10; it is not run
// unless TOOLCALL_RANK_VARIANTS is set (to a list of variant names
// separated by ";", or to "all"). The vendored subsets are always measured;
// TOOLCALL_RANK_EVAL (BFCL's whole data) and TOOLCALL_SEAL_EVAL (Seal-
// Tools' whole data) add the full sets.
func TestRankVariants(t *testing.T) {
	only, ok := os.LookupEnv("TOOLCALL_RANK_VARIANTS")
	if !ok {
		t.Skip("TOOLCALL_RANK_VARIANTS not set")
	}
	vs := rankVariants()
	if only != "all" {
		vs = slices.DeleteFunc(vs, func(v rankVariant) bool {
			return v.name != "base" && !slices.Contains(strings.Split(only, ";"), v.name)
		})
	}
	type set struct {
		name string
		ev   *rankEval
	}
	sets := []set{
		{"BFCL subset", readRankEval(t, "../testdata/bfcl")},
		{"Seal-Tools subset", readSealTools(t, "../testdata/sealtools", "test_in_domain", "test_out_domain")},
	}
	if dir := os.Getenv("TOOLCALL_RANK_EVAL"); dir != "" {
		sets = append(sets, set{"BFCL", readRankEval(t, dir)})
	}
	if dir := os.Getenv("TOOLCALL_SEAL_EVAL"); dir != "" {
		sets = append(sets, set{"Seal-Tools dev", readSealTools(t, dir, "dev")})
		// Tuning leaves the held-out requests alone.
		if os.Getenv("TOOLCALL_RANK_TUNE") == "" {
			sets = append(sets, set{"Seal-Tools test", readSealTools(t, dir, "test_in_domain", "test_out_domain")})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| variant |")
	for _, s := range sets {
		fmt.Fprintf(&b, " %s R@5 | NDCG@10 |", s.name)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|---|", len(sets)))
	results := make([][]evalScore, len(vs))
	for i := range vs {
		results[i] = make([]evalScore, len(sets))
	}
	for si, s := range sets {
		for i, m := range measureVariants(t, s.ev, vs) {
			results[i][si] = m
			t.Logf("%s: %s: Recall@5 %.4f, NDCG@10 %.4f", s.name, vs[i].name, m.at5, m.ndcg10)
		}
	}
	for i, v := range vs {
		fmt.Fprintf(&b, "\n| %s |", v.name)
		for si := range sets {
			r, base := results[i][si], results[0][si]
			fmt.Fprintf(&b, " %.4f%s | %.4f%s |", r.at5, mark(r.at5, base.at5, i), r.ndcg10, mark(r.ndcg10, base.ndcg10, i))
		}
	}
	t.Log(b.String())
}

// mark flags a figure above (+) or below (-) the base variant's.
func mark(x, base float64, variant int) string {
	switch {
	case variant == 0 || math.Abs(x-base) < 5e-5:
		return ""
	case x > base:
		return " +"
	default:
		return " -"
	}
}

// evalMinScore leaves out the tools that match no word of a request:
// ordered by name, they say nothing of a ranking, and sorting thousands
// of them for every ask of every request and variant took most of the
// time.
const evalMinScore = 1e-9

// evalScore is a variant's measure on one set.
type evalScore struct{ at5, at1single, ndcg10 float64 }

// measureVariants ranks every request of ev with each variant, indexing
// each request once for all of them.
func measureVariants(t testing.TB, ev *rankEval, vs []rankVariant) []evalScore {
	saved := bm25
	defer func() { bm25 = saved }()
	out := make([]evalScore, len(vs))
	n1 := 0
	e := newEvalIndex(ev.tools)
	for _, r := range ev.requests {
		bm25 = saved
		q := newQuery(r.query)
		if len(q.terms) == 0 {
			t.Fatalf("%s: no terms", r.id)
		}
		ix := e.index(q)
		if len(r.want) == 1 {
			n1++
		}
		for i, v := range vs {
			bm25 = saved
			v.set(&bm25)
			q, ix := q, ix
			if v.query {
				q = newQuery(r.query)
				ix = e.index(q)
			}
			kept, picks := q.rank(ix, ev.tools, evalMinScore, 10)
			if v.rm3 != nil {
				kept = rankRM3(q, e, ev.tools, kept, picks, *v.rm3)
			}
			a5, a1, nd := ev.measure(r, kept)
			out[i].at5 += a5
			out[i].at1single += a1
			out[i].ndcg10 += nd
		}
	}
	for i := range out {
		out[i].at5 /= float64(len(ev.requests))
		out[i].ndcg10 /= float64(len(ev.requests))
		out[i].at1single /= float64(max(n1, 1))
	}
	return out
}

// rankRM3 ranks q again with the words of each ask's best tools added.
func rankRM3(q *bm25Query, e *evalIndex, cands []*tools.Tool, kept []Ranked, picks []pick, p rm3Params) []Ranked {
	perAsk := map[int]map[string]float64{}
	seen := map[int]int{}
	for i, pk := range picks {
		if seen[pk.ask] >= p.docs || kept[i].Score <= 0 {
			continue
		}
		seen[pk.ask]++
		terms, n := toolTerms(cands[pk.doc])
		if perAsk[pk.ask] == nil {
			perAsk[pk.ask] = map[string]float64{}
		}
		for term, c := range terms {
			perAsk[pk.ask][term] += kept[i].Score * c / n
		}
	}
	x := q.clone()
	for a, ws := range perAsk {
		type tw struct {
			term string
			w    float64
		}
		var l []tw
		for term, w := range ws {
			if x.find(term) < 0 || !slices.Contains(x.asks[a].terms, x.find(term)) {
				l = append(l, tw{term, w})
			}
		}
		sort.Slice(l, func(i, j int) bool {
			if l[i].w != l[j].w {
				return l[i].w > l[j].w
			}
			return l[i].term < l[j].term
		})
		l = l[:min(len(l), p.terms)]
		for _, e := range l {
			x.addTerm(a, e.term, p.lambda*e.w/l[0].w)
		}
	}
	out, _ := x.rank(e.index(x), cands, evalMinScore, 10)
	return out
}

// toolTerms counts the stemmed words of a tool's name, description and
// argument names and descriptions, stop words left out, and their number.
func toolTerms(t *tools.Tool) (map[string]float64, float64) {
	var z tokenizer
	var st stemmer
	stops := stopWords()
	m := map[string]float64{}
	n := 0.0
	add := func(s string) {
		z.each(s, func(w []byte) {
			if _, stop := stops[string(w)]; stop {
				return
			}
			m[st.stem(w)]++
			n++
		})
	}
	add(t.Name)
	add(t.Description)
	add(string(t.InputSchema)) // keys, descriptions, and some JSON Schema words
	return m, max(n, 1)
}

// clone copies q deeply enough for addTerm.
func (q *bm25Query) clone() *bm25Query {
	x := *q
	x.terms = slices.Clone(q.terms)
	x.surface = slices.Clone(q.surface)
	x.weight = slices.Clone(q.weight)
	x.weakWhy = slices.Clone(q.weakWhy)
	x.termAsks = make([][]int, len(q.termAsks))
	for i := range q.termAsks {
		x.termAsks[i] = slices.Clone(q.termAsks[i])
	}
	x.asks = make([]askTerms, len(q.asks))
	for i := range q.asks {
		x.asks[i] = askTerms{text: q.asks[i].text, terms: slices.Clone(q.asks[i].terms)}
	}
	x.index = make(map[string]int, len(q.index))
	for k, v := range q.index {
		x.index[k] = v
	}
	return &x
}

// addTerm adds term to ask a at weight w.
func (q *bm25Query) addTerm(a int, term string, w float64) {
	i, added := q.add(term, term)
	if added {
		q.weight = append(q.weight, w)
		q.weakWhy = append(q.weakWhy, "feedback")
	}
	q.termAsks[i] = append(q.termAsks[i], a)
	q.asks[a].terms = append(q.asks[a].terms, i)
}

// evalIndex is every tool of a catalog read once: the lengths of its
// fields and the counts of each of its terms. indexTools reads the tools
// again for each request, counting only the request's terms, which a
// catalog that is loaded for one request must do; measuring thousands of
// requests on one catalog need not. index gives what indexTools would
// (TestEvalIndex).
type evalIndex struct {
	typical *[numFields]float64
	lens    [][numFields]int32
	terms   []map[string][numFields]uint16
}

func newEvalIndex(cands []*tools.Tool) *evalIndex {
	e := &evalIndex{lens: make([][numFields]int32, len(cands)), terms: make([]map[string][numFields]uint16, len(cands))}
	var d docScanner
	var m map[string][numFields]uint16
	d.emit = func(word []byte) {
		d.lens[d.field]++
		if d.field == fieldExample && word[0] < 0x80 && asciiKind[word[0]] == kindDigit {
			return
		}
		st := d.stems.stem(word)
		c := m[st]
		c[d.field]++
		m[st] = c
	}
	for i, t := range cands {
		m = map[string][numFields]uint16{}
		d.tool(t)
		e.lens[i], e.terms[i] = d.lens, m
	}
	typical := (&bm25Index{lens: e.lens}).typicalLengths()
	e.typical = &typical
	return e
}

// index is indexTools(q, the catalog).
func (e *evalIndex) index(q *bm25Query) *bm25Index {
	ix := &bm25Index{lens: e.lens, typical: e.typical}
	for doc, m := range e.terms {
		for term, s := range q.terms {
			if c, ok := m[s]; ok {
				ix.hits = append(ix.hits, termHit{doc: int32(doc), term: int32(term), count: c})
			}
		}
	}
	return ix
}

// TestEvalIndex: the evaluation's index is the ranking's.
func TestEvalIndex(t *testing.T) {
	for _, ev := range []*rankEval{readRankEval(t, "../testdata/bfcl"), readSealTools(t, "../testdata/sealtools", "test_in_domain", "test_out_domain")} {
		e := newEvalIndex(ev.tools)
		for _, r := range ev.requests {
			q := newQuery(r.query)
			want, got := indexTools(q, ev.tools), e.index(q)
			if !slices.Equal(want.lens, got.lens) || !slices.Equal(want.hits, got.hits) {
				t.Fatalf("%s: the evaluation's index differs from indexTools'", r.id)
			}
		}
	}
}
