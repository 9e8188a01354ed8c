package catalog

import (
	"context"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

// TypeExplain is the type of the events Explain's result is written as.
const TypeExplain = "explain"

// Explained says how BM25 scored one candidate tool for a request, so
// that a tool's author can see why it was, or was not, offered.
type Explained struct {
	Tool *tools.Tool
	// Rank is the tool's place among those Select offers (1 is first),
	// or 0 when it is not offered.
	Rank int
	// Score is the whole request's score, 0..1: with one ask, the score
	// Select reports.
	Score float64
	// Matched are the request's words the tool has, in request order.
	Matched []TermMatch
	// Unmatched are the request's words it does not have, as written.
	Unmatched []string
}

// TermMatch is one request word found in a tool.
type TermMatch struct {
	Word string // as first written in the request, or the concept's word
	// Weight is the word's weight beyond its idf: 1, or less for a weak
	// word, and Weak says why.
	Weight float64
	Weak   string
	// IDF is the word's idf times Weight and, for a word common in a
	// large catalog, a penalty (see commonPenalty).
	IDF    float64
	Fields []FieldMatch
	// Score is what the word adds to the tool's score (0..1): the
	// tool's Score is the sum of its words'.
	Score float64
}

// FieldMatch is a word's matches in one field of a tool.
type FieldMatch struct {
	Field  string  // "name", "description", ...
	Count  int     // how many times
	Weight float64 // the field's weight
	// TF is what the field adds to the word's tf': Weight·Count over the
	// field's length normalization.
	TF float64
}

// Explain scores every candidate of sel for sel.Query with BM25, as
// Select does, and says why: the tools Select offers first, in its order,
// then the others, best score first, ties by name. A request without a
// word to rank by explains nothing. sel.Scorer is not run: Explain says
// how BM25 sees the tools.
func (c *Catalog) Explain(ctx context.Context, sel Selection) ([]Explained, error) {
	sel.Scorer = nil
	offered, err := c.Select(ctx, sel)
	if err != nil {
		return nil, err
	}
	cands := c.filter(&sel)
	q := newQuery(sel.Query)
	if len(q.terms) == 0 || len(cands) == 0 {
		return nil, nil
	}
	ix := indexTools(q, cands)
	avg := ix.typicalLengths()
	idf := q.idfs(ix, len(cands))
	maxScore := 0.0
	for t := range q.terms {
		maxScore += idf[t] * bm25.ceiling()
	}
	out := make([]Explained, len(cands))
	for i, t := range cands {
		out[i] = Explained{Tool: t}
	}
	rank := make(map[*tools.Tool]int, len(offered))
	for i, r := range offered {
		rank[r.Tool] = i + 1
	}
	for k := 0; k < len(ix.hits); k++ {
		h := &ix.hits[k]
		e := &out[h.doc]
		m := TermMatch{Word: q.surface[h.term], Weight: q.weight[h.term], Weak: q.weakWhy[h.term], IDF: round4(idf[h.term])}
		tf := 0.0
		for f := range numFields {
			if h.count[f] > 0 {
				ftf := fieldTF(f, h.count[f], ix.lens[h.doc][f], avg[f])
				tf += ftf
				m.Fields = append(m.Fields, FieldMatch{Field: fieldLabel[f], Count: int(h.count[f]), Weight: bm25.weight[f], TF: round4(ftf)})
			}
		}
		if maxScore > 0 {
			m.Score = idf[h.term] * bm25.saturate(tf) / maxScore
			e.Score += m.Score
			m.Score = round4(m.Score)
		}
		e.Matched = append(e.Matched, m)
	}
	for i := range out {
		e := &out[i]
		e.Score = round4(e.Score)
		e.Rank = rank[e.Tool]
		for t, surface := range q.surface {
			if q.weight[t] == 1 && !slices.ContainsFunc(e.Matched, func(m TermMatch) bool { return m.Word == surface }) {
				e.Unmatched = append(e.Unmatched, surface)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Explained) int {
		switch {
		case a.Rank > 0 && b.Rank > 0:
			return a.Rank - b.Rank
		case a.Rank > 0:
			return -1
		case b.Rank > 0:
			return 1
		case a.Score != b.Score:
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Tool.Name, b.Tool.Name)
	})
	return out, nil
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// WriteExplained writes each explanation as an explain event:
//
//	{"type":"explain","name","offered","rank","score","matched":[{"word",
//	 "weight","weak","idf","score","fields":[{"field","count","weight","tf"}]}],
//	 "unmatched":[…]}
//
// rank only when offered, weak only for a weak word.
func WriteExplained(w io.Writer, es []Explained) error {
	var b []byte
	for _, e := range es {
		b = append(b[:0], `{"type":"explain","name":`...)
		b = jsonw.AppendString(b, e.Tool.Name)
		b = append(b, `,"offered":`...)
		b = strconv.AppendBool(b, e.Rank > 0)
		if e.Rank > 0 {
			b = append(b, `,"rank":`...)
			b = strconv.AppendInt(b, int64(e.Rank), 10)
		}
		b = append(b, `,"score":`...)
		b = appendFloat(b, e.Score)
		b = append(b, `,"matched":[`...)
		for i, m := range e.Matched {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"word":`...)
			b = jsonw.AppendString(b, m.Word)
			b = append(b, `,"weight":`...)
			b = appendFloat(b, m.Weight)
			if m.Weak != "" {
				b = append(b, `,"weak":`...)
				b = jsonw.AppendString(b, m.Weak)
			}
			b = append(b, `,"idf":`...)
			b = appendFloat(b, m.IDF)
			b = append(b, `,"score":`...)
			b = appendFloat(b, m.Score)
			b = append(b, `,"fields":[`...)
			for j, f := range m.Fields {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"field":`...)
				b = jsonw.AppendString(b, f.Field)
				b = append(b, `,"count":`...)
				b = strconv.AppendInt(b, int64(f.Count), 10)
				b = append(b, `,"weight":`...)
				b = appendFloat(b, f.Weight)
				b = append(b, `,"tf":`...)
				b = appendFloat(b, f.TF)
				b = append(b, '}')
			}
			b = append(b, "]}"...)
		}
		b = append(b, `],"unmatched":[`...)
		for i, u := range e.Unmatched {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, u)
		}
		b = append(b, "]}\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func appendFloat(b []byte, x float64) []byte { return strconv.AppendFloat(b, x, 'f', -1, 64) }
