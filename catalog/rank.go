package catalog

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

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
	fieldExample        // example values: "(e.g. Paris)", a property's "examples": 0.25
	fieldRequest        // the requests of the sidecar's examples: 0.25
	fieldOutput         // the output schema's property names and descriptions: 0.5
	numFields
)

var (
	// fieldRequest's weight was chosen on held-out data: BFCL's whole
	// data, one request for each tool that several need lent to it as
	// its example, the others ranked (TestRankExampleRequests). Of 0.1 to
	// 3, 0.25 did best (Recall@5 0.929, NDCG@10 0.885, from 0.889 and
	// 0.831 without); from 2 up, one example's incidental words drew
	// other requests to the tool and recall fell.
	//
	// fieldOutput, what a tool says it gives back (an MCP outputSchema),
	// meets a request that names what it wants: "the population, capital
	// and area of France". Its weight, that of an argument's description,
	// was chosen on Seal-Tools' dev requests, whose tools list their
	// outputs: Recall@5 0.9323 without the field, 0.9476 at 0.25, 0.9513
	// at 0.5, 0.9536 at 1 and 0.9490 at 2; NDCG@10 0.9445, 0.9562, 0.9552,
	// 0.9548, 0.9543. 0.5 kept the vendored subset's NDCG@10 highest
	// (TestRankVariants). BFCL's tools have no outputs.
	fieldWeight = [numFields]float64{3, 1, 2, 1.5, 0.5, 0.25, 0.25, 0.5}
	fieldLabel  = [numFields]string{"name", "description", "tag", "argument", "argument description", "example", "example request", "output"}
)

// The weight of a query word, beyond its idf.
const (
	// fillerWeight is for the words requests are phrased with that say
	// nothing of the tool wanted ("please provide the information").
	fillerWeight = 0.15
	// quotedWeight is for words only found inside quotes: a title or a
	// name the tool is to work on, rarely a word of what it does.
	quotedWeight = 0.3
	// commonShare is the share of a large catalog's tools a word may occur
	// in before it weighs less than its idf says ("get", "data"); see
	// commonPenalty.
	commonShare = 0.05
	// commonMinTools is the size from which a catalog is large enough to
	// say which words are common.
	commonMinTools = 20
)

const (
	// b, how much a long field's matches count less, is above its usual
	// 0.75: 0.9 did as well or better on both BFCL sets on every measure
	// (b 0.5 and 0.85 did not; b 1 gained NDCG@10 but lost Recall@5 on
	// the whole data). So long a field would leave a tool whose long
	// description says the word once far behind one with a short name
	// that does; BM25L's δ (Lv and Zhai 2011), added to tf' before it
	// saturates, keeps a match worth something however long its field.
	// δ 0.25 with k1 1.5 (from BM25's usual 1.2) was the one variant of
	// TestRankVariants that did better on every proxy set and fell on
	// none: Seal-Tools dev Recall@5 0.9122 to 0.9193, BFCL's whole data
	// 0.9059 to 0.9121, the Seal-Tools subset 0.9421 to 0.9558; δ alone
	// lost NDCG@10 on the BFCL subset, BM25+ (δ added after saturation)
	// did less, and so did b per field, other field weights and RM3.
	bm25K1    = 1.5
	bm25B     = 0.9
	bm25Delta = 0.25
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
// dots, camelCase, letters|digits), and English words reduced to their stem
// by the Snowball (Porter2) stemmer, so that "nutritional" meets
// "nutrition" and "charities" "charity". English stop words are dropped
// from the query; in a tool they count toward the length of a field but
// match nothing.
//
// For each distinct query term t and tool d, with tf_f the count of t in
// field f, len_f its length in terms and avg_f the median over the
// candidates:
//
//	tf'     = Σ_f weight_f · tf_f / (1 − b + b · len_f / avg_f) + δ   (a term the tool has)
//	idf     = ln(1 + (N − df + 0.5) / (df + 0.5)) · w_t
//	score   = Σ_t idf · tf' · (k1 + 1) / (k1 + tf')        k1 = 1.5, b = 0.9, δ = 0.25
//
// w_t is 1, less for a word of request phrasing (fillerWeight), a word
// found only inside quotes (quotedWeight), and a word common in a large
// catalog (commonPenalty). tf'·(k1+1)/(k1+tf') stays below k1+1, so no
// tool can score more than Σ idf·(k1+1) over the query terms that occur in
// at least one candidate (a word no tool has cannot be matched and counts
// for nobody). The score reported is the raw score divided by that
// maximum: 0..1, rounded to 4 decimals so that it is the same on every
// machine.
//
// A request that asks for several things ("Find the sum of the multiples
// of 3 and 5. Also find the product of the first five primes.") is split
// into its asks (see splitAsks) and each ask is ranked on its own, over
// the same index; the rankings are merged so that every ask's best tool
// comes before any ask's second best (round by round, each round best
// score first), and the reason says which ask a tool answers. A request of
// one ask ranks as a whole.
//
// It returns the tools scoring at least minScore, best first (ties by
// name), at most limit of them (0: all); only those get a Reason.
func rankBM25(query string, cands []*tools.Tool, minScore float64, limit int) ([]Ranked, error) {
	q := newQuery(query)
	if len(q.terms) == 0 {
		return nil, errNoTerms
	}
	kept, _ := q.rank(indexTools(q, cands), cands, minScore, limit)
	return kept, nil
}

// rank scores the tools of ix, indexed for q, and keeps the best, with
// the ask each answers and its index in cands.
func (q *bm25Query) rank(ix *bm25Index, cands []*tools.Tool, minScore float64, limit int) ([]Ranked, []pick) {
	avg := ix.typicalLengths()
	idf := q.idfs(ix, len(cands))
	// With several asks, the request as a whole is scored too, as one
	// more ask: it orders the tools within a round of the merge.
	nAsks := len(q.asks)
	if nAsks > 1 {
		nAsks++
	}
	maxScore := make([]float64, nAsks)
	for a, ask := range q.asks {
		for _, t := range ask.terms {
			maxScore[a] += idf[t] * bm25.ceiling()
		}
	}
	if nAsks > len(q.asks) {
		for t := range q.terms {
			maxScore[len(q.asks)] += idf[t] * bm25.ceiling()
		}
	}

	// Score every tool for every ask; first[i]:last[i] are tool i's hits.
	scores := make([][]Ranked, nAsks)
	for a := range scores {
		scores[a] = make([]Ranked, len(cands))
		for i, t := range cands {
			scores[a][i] = Ranked{Tool: t, Scored: true}
		}
	}
	first := make([]int32, len(cands))
	last := make([]int32, len(cands))
	raw := make([]float64, nAsks)
	for k := 0; k < len(ix.hits); {
		doc := ix.hits[k].doc
		lens := &ix.lens[doc]
		clear(raw)
		first[doc] = int32(k)
		for ; k < len(ix.hits) && ix.hits[k].doc == doc; k++ {
			h := &ix.hits[k]
			tf := 0.0
			for f := range numFields {
				if h.count[f] > 0 {
					tf += fieldTF(f, h.count[f], lens[f], avg[f])
				}
			}
			v := idf[h.term] * bm25.saturate(tf)
			for _, a := range q.termAsks[h.term] {
				raw[a] += v
			}
			if nAsks > len(q.asks) {
				raw[len(q.asks)] += v
			}
		}
		last[doc] = int32(k)
		for a := range nAsks {
			if maxScore[a] > 0 {
				scores[a][doc].Score = math.Round(raw[a]/maxScore[a]*1e4) / 1e4
			}
		}
	}

	// Say why, for the tools kept only: building every reason would cost
	// more than the ranking.
	picks := mergeAsks(scores, minScore, limit)
	kept := make([]Ranked, len(picks))
	for i, p := range picks {
		kept[i] = scores[p.ask][p.doc]
		kept[i].Reason = q.reason(p.ask, ix.hits[first[p.doc]:last[p.doc]], idf)
	}
	return kept, picks
}

// idfs returns each query term's idf over n tools, times its weight.
func (q *bm25Query) idfs(ix *bm25Index, n int) []float64 {
	df := make([]int, len(q.terms))
	for i := range ix.hits {
		df[ix.hits[i].term]++
	}
	idf := make([]float64, len(q.terms))
	for t, d := range df {
		if d == 0 {
			continue
		}
		idf[t] = math.Log(1+(float64(n)-float64(d)+0.5)/(float64(d)+0.5)) * q.weight[t] * commonPenalty(d, n)
	}
	return idf
}

// fieldTF is what count matches in field f, of length n where the typical
// length is avg, add to a term's tf'.
func fieldTF(f int, count uint16, n int32, avg float64) float64 {
	b := bm25.b[f]
	tf := float64(count) / (1 - b + b*float64(n)/avg)
	if bm25.perField {
		tf += bm25.delta
	}
	return bm25.weight[f] * tf
}

// bm25Params are the ranking's parameters; bm25 holds the ones it uses.
// The tests measure others in their place (TestRankVariants).
type bm25Params struct {
	k1     float64
	b      [numFields]float64 // per field: how much a long field's matches count less
	weight [numFields]float64
	// delta is BM25+'s δ, added to the score of every term a tool
	// matches however long its fields, or with lower BM25L's, added to
	// tf' before it saturates; 0 is BM25.
	delta float64
	lower bool
	// perField adds BM25L's δ to each field's tf, before the field's
	// weight, rather than once to their sum.
	perField bool
	// statements are the first words of a sentence that tells rather
	// than asks (isStatement); nil: none.
	statements map[string]bool
	// shareTaken: an ask whose next best tool another ask has taken
	// has had its pick for the round (see mergeAsks).
	shareTaken bool
	// helpOpens: a first ask that asks for help joins the next one (see
	// newQuery).
	helpOpens bool
}

// statementStarts begin a sentence that tells: "The book is titled
// 'Dune'.", "He has been coughing lately." Joining such a sentence to the
// ask before it took Seal-Tools dev's Recall@5 from 0.9193 to 0.9263 and
// BFCL's whole data's from 0.9121 to 0.9142 (TestRankVariants); the
// Seal-Tools subset lost one request's tool (0.9558 to 0.9524). "my" and
// "our" as well did no better.
var statementStarts = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("the this these those it he she they his her its their") {
		m[w] = true
	}
	return m
}()

var bm25 = bm25Params{
	k1:         bm25K1,
	b:          [numFields]float64{bm25B, bm25B, bm25B, bm25B, bm25B, bm25B, bm25B, bm25B},
	weight:     fieldWeight,
	delta:      bm25Delta,
	lower:      true,
	statements: statementStarts,
	shareTaken: true,
	helpOpens:  true,
}

// saturate is what a matched term of tf' (above 0) scores, times its idf.
func (p *bm25Params) saturate(tf float64) float64 {
	if p.lower {
		if !p.perField {
			tf += p.delta
		}
		return tf * (p.k1 + 1) / (p.k1 + tf)
	}
	return tf*(p.k1+1)/(p.k1+tf) + p.delta
}

// ceiling is the most saturate can return.
func (p *bm25Params) ceiling() float64 {
	if p.lower {
		return p.k1 + 1
	}
	return p.k1 + 1 + p.delta
}

// commonPenalty is the weight of a word found in df of n tools: 1, or
// less when the catalog is large and the word is in more than commonShare
// of it. BM25's idf already makes such a word weak; this keeps it from
// winning at a name's triple weight against a rarer word in a
// description.
func commonPenalty(df, n int) float64 {
	if n < commonMinTools {
		return 1
	}
	share := float64(df) / float64(n)
	if share <= commonShare {
		return 1
	}
	return math.Sqrt(commonShare / share)
}

// pick is one tool kept by mergeAsks: the ask it answers and the tool.
type pick struct{ ask, doc int }

// mergeAsks keeps the tools scoring at least minScore for some ask, at
// most limit (0: all): round by round, each ask's best tool not yet kept,
// and within a round the tool the whole request scores best first (ties by
// name). A tool that several asks rank next is kept once and is each of
// those asks' pick for the round: two asks that want the same tool are
// one need said twice ("I need the weather. What is the forecast in
// Paris?"), and the second does not get a round's place for its runner-up.
// scores holds one ranking per ask and, with several asks, the ranking of
// the whole request last. With one ask it is that ask's ranking.
func mergeAsks(scores [][]Ranked, minScore float64, limit int) []pick {
	if len(scores) == 1 {
		order := best(scores[0], minScore, limit)
		out := make([]pick, len(order))
		for i, doc := range order {
			out[i] = pick{0, doc}
		}
		return out
	}
	whole := scores[len(scores)-1]
	scores = scores[:len(scores)-1]
	orders := make([][]int, len(scores))
	for a := range scores {
		orders[a] = best(scores[a], minScore, limit)
	}
	taken := map[int]bool{}
	next := make([]int, len(scores))
	var out []pick
	for {
		var round []pick
		shared := false // an ask's pick this round was taken by another
		for a, order := range orders {
			if bm25.shareTaken && next[a] < len(order) && taken[order[next[a]]] {
				next[a]++
				shared = shared || next[a] < len(order)
				continue
			}
			for next[a] < len(order) && taken[order[next[a]]] {
				next[a]++
			}
			if next[a] < len(order) {
				doc := order[next[a]]
				next[a]++
				taken[doc] = true
				round = append(round, pick{a, doc})
			}
		}
		if len(round) == 0 && !shared {
			return out
		}
		slices.SortStableFunc(round, func(x, y pick) int {
			sx, sy := whole[x.doc], whole[y.doc]
			if sx.Score != sy.Score {
				if sx.Score > sy.Score {
					return -1
				}
				return 1
			}
			return strings.Compare(sx.Tool.Name, sy.Tool.Name)
		})
		for _, p := range round {
			if limit > 0 && len(out) == limit {
				return out
			}
			out = append(out, p)
		}
	}
}

// reason says why a tool scored for ask a: the ask, when the request has
// several, and each matched word with the fields it was found in, weak
// words marked so.
func (q *bm25Query) reason(a int, hits []termHit, idf []float64) string {
	var b strings.Builder
	if len(q.asks) > 1 {
		fmt.Fprintf(&b, "for ask %d of %d (%q): ", a+1, len(q.asks), q.asks[a].text)
	}
	n := 0
	for _, h := range hits {
		if !slices.Contains(q.termAsks[h.term], a) {
			continue
		}
		if n == 0 {
			b.WriteString("matched ")
		} else {
			b.WriteString(", ")
		}
		n++
		b.WriteString(q.surface[h.term])
		b.WriteString(" (")
		sep := ""
		for f := range numFields {
			if h.count[f] > 0 {
				b.WriteString(sep)
				b.WriteString(fieldLabel[f])
				sep = ", "
			}
		}
		if q.weight[h.term] < 1 {
			b.WriteString("; weak: ")
			b.WriteString(q.weakWhy[h.term])
		}
		b.WriteByte(')')
	}
	if n == 0 {
		b.WriteString("no query terms matched")
	}
	return b.String()
}
