package catalog

import (
	"slices"
	"strings"
)

// The query side of ranking: a request tokenized as the tools are, ask by
// ask, each term weighted (weaker for request phrasing, quotes, filler).

// bm25Query is a tokenized query.
type bm25Query struct {
	terms    []string  // distinct stemmed terms, in order of first appearance
	surface  []string  // each term as first written in the query, lower case
	weight   []float64 // each term's weight: 1, or less for a weak word
	weakWhy  []string  // why a term is weak: "request phrasing", "quoted"
	termAsks [][]int   // the asks each term is part of
	asks     []askTerms
	index    map[string]int
	first    [256]bool // the first bytes of the terms
	stems    stemmer
}

// askTerms is one ask of a request and its terms.
type askTerms struct {
	text  string
	terms []int
}

// newQuery tokenizes a request, ask by ask.
func newQuery(s string) *bm25Query {
	q := &bm25Query{index: make(map[string]int)}
	var z tokenizer
	quotedOnly := map[int]bool{}
	literal := map[int]bool{} // terms the request says, not only a concept
	concepts := map[int]string{}
	stops := stopWords()
	for _, text := range splitAsks(s) {
		ask := askTerms{text: text}
		strong := false
		found, words := findConcepts(text)
		eachQuoted(words, func(part string, quoted bool) {
			z.each(part, func(word []byte) {
				if len(word) <= maxStopWord {
					if _, stop := stops[string(word)]; stop {
						return
					}
				}
				term := q.stems.stem(word)
				i, added := q.add(term, string(word))
				if added {
					quotedOnly[i] = quoted
				} else if !quoted {
					quotedOnly[i] = false
				}
				literal[i] = true
				if !slices.Contains(ask.terms, i) {
					ask.terms = append(ask.terms, i)
				}
				if _, filler := fillerWords()[term]; !filler && !quoted {
					strong = true
				}
			})
		})
		// A concept's words join the ask, but do not make it one.
		for _, c := range found {
			for _, w := range c.expand {
				i, added := q.add(q.stems.stem([]byte(w)), w)
				if added {
					concepts[i] = c.name
				}
				if !slices.Contains(ask.terms, i) {
					ask.terms = append(ask.terms, i)
				}
			}
		}
		// An ask of filler alone ("Thanks!", "Please help.") is no ask;
		// its words stay in the request. Nor is a sentence that tells
		// rather than asks ("The book is titled 'Dune'.", "He has been
		// coughing."): it says more of the ask before it.
		if strong && (len(q.asks) == 0 || !isStatement(text)) || len(q.asks) == 0 {
			q.asks = append(q.asks, ask)
		} else {
			prev := &q.asks[len(q.asks)-1]
			for _, t := range ask.terms {
				if !slices.Contains(prev.terms, t) {
					prev.terms = append(prev.terms, t)
				}
			}
		}
	}
	// A first ask of filler alone joins the next one, and so does one
	// that asks for help ("I need your help with a few things.", "Can
	// you help me plan a trip?"): it says what the asks after it are
	// about, and is rarely one itself.
	if len(q.asks) > 1 && (!q.strong(q.asks[0]) || bm25.helpOpens && q.asksForHelp(q.asks[0])) {
		for _, t := range q.asks[0].terms {
			if !slices.Contains(q.asks[1].terms, t) {
				q.asks[1].terms = append(q.asks[1].terms, t)
			}
		}
		q.asks = q.asks[1:]
	}
	if len(q.asks) == 1 {
		q.asks[0].text = strings.TrimSpace(s)
	}
	for a, ask := range q.asks {
		for _, t := range ask.terms {
			q.termAsks[t] = append(q.termAsks[t], a)
		}
	}
	q.weight = make([]float64, len(q.terms))
	q.weakWhy = make([]string, len(q.terms))
	for i, term := range q.terms {
		q.weight[i] = 1
		if !literal[i] {
			q.weight[i], q.weakWhy[i] = conceptWeight, "concept "+concepts[i]
		} else if _, filler := fillerWords()[term]; filler {
			q.weight[i], q.weakWhy[i] = fillerWeight, "request phrasing"
		} else if quotedOnly[i] {
			q.weight[i], q.weakWhy[i] = quotedWeight, "quoted"
		}
	}
	return q
}

// add returns the index of term, adding it, as first written surface,
// if q does not have it yet.
func (q *bm25Query) add(term, surface string) (i int, added bool) {
	if i, ok := q.index[term]; ok {
		return i, false
	}
	i = len(q.terms)
	q.index[term] = i
	q.terms = append(q.terms, term)
	q.surface = append(q.surface, surface)
	q.termAsks = append(q.termAsks, nil)
	q.first[term[0]] = true
	return i, true
}

// isStatement reports whether a sentence starts as one that tells
// something rather than asks for it: with a word of bm25.statements.
func isStatement(text string) bool {
	if bm25.statements == nil {
		return false
	}
	i := 0
	for i < len(text) && i < 8 && (text[i] >= 'a' && text[i] <= 'z' || text[i] >= 'A' && text[i] <= 'Z') {
		i++
	}
	return i < len(text) && text[i] == ' ' && bm25.statements[strings.ToLower(text[:i])]
}

// helpStems are the stems of the words that ask for help: "help",
// "helping", "assist", "assistance".
var helpStems = []string{"help", "assist"}

// asksForHelp reports whether an ask has a word of helpStems.
func (q *bm25Query) asksForHelp(a askTerms) bool {
	for _, t := range a.terms {
		if slices.Contains(helpStems, q.terms[t]) {
			return true
		}
	}
	return false
}

// strong reports whether an ask has a word that is not filler.
func (q *bm25Query) strong(a askTerms) bool {
	for _, t := range a.terms {
		if _, filler := fillerWords()[q.terms[t]]; !filler {
			return true
		}
	}
	return false
}

// find returns the index of term in q, or -1. Queries are short, so a scan
// that compares lengths first beats hashing; long ones use the map.
func (q *bm25Query) find(term string) int {
	if len(q.terms) > 12 {
		if i, ok := q.index[term]; ok {
			return i
		}
		return -1
	}
	for i, t := range q.terms {
		if len(t) == len(term) && t == term {
			return i
		}
	}
	return -1
}
