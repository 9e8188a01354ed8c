package catalog

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// A request often names the kind of tool it wants in words or numbers the
// tool's author did not use: "What is 17 times 25?" wants a calculator
// that describes itself as evaluating arithmetic, and its "times" would
// stem to "time" and pick the clocks. The concept lexicon (concepts.txt)
// maps such wording, units next to numbers (25 km, 3pm, $40) and words
// between numbers to a concept, whose words are added to the request at
// conceptWeight: enough to pick the calculator out of a catalog that has
// nothing else to go by, too little to outweigh a word the request says.
//
//go:embed concepts.txt
var conceptsText string

// conceptWeight is the weight of a word a concept adds, beyond its idf.
const conceptWeight = 0.2

// concept is one entry of the lexicon.
type concept struct {
	name    string
	expand  []string
	words   map[string]bool // lower case, and stems
	units   map[string]bool
	symbols map[string]bool
	between map[string]bool
}

// lexicon is the parsed concepts.txt, in its order.
var lexicon = sync.OnceValue(func() []*concept {
	cs, err := parseConcepts(conceptsText)
	if err != nil {
		panic(err) // concepts.txt is part of the source; a test reads it
	}
	return cs
})

// parseConcepts reads the lexicon's lines, "concept key: words".
func parseConcepts(text string) ([]*concept, error) {
	var cs []*concept
	byName := map[string]*concept{}
	var st stemmer
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		head, words, ok := strings.Cut(line, ":")
		name, key, ok2 := strings.Cut(head, " ")
		if !ok || !ok2 || strings.ContainsAny(key, " \t") {
			return nil, fmt.Errorf("concepts.txt:%d: want \"concept key: words\", got %q", n+1, line)
		}
		c := byName[name]
		if c == nil {
			c = &concept{name: name, words: map[string]bool{}, units: map[string]bool{}, symbols: map[string]bool{}, between: map[string]bool{}}
			byName[name] = c
			cs = append(cs, c)
		}
		for _, w := range strings.Fields(strings.ToLower(words)) {
			switch key {
			case "expand":
				c.expand = append(c.expand, w)
			case "words":
				c.words[w] = true
				c.words[st.stem([]byte(w))] = true
			case "units":
				c.units[w] = true
			case "symbols":
				c.symbols[w] = true
			case "between":
				c.between[w] = true
			default:
				return nil, fmt.Errorf("concepts.txt:%d: unknown key %q (want expand, words, units, symbols or between)", n+1, key)
			}
		}
	}
	for _, c := range cs {
		if len(c.expand) == 0 {
			return nil, fmt.Errorf("concepts.txt: concept %s expands to nothing", c.name)
		}
	}
	return cs, nil
}

// conceptToken splits a request for the lexicon: numbers (17, 2.5,
// 1,000), words, and any other single character but space. Compiled on
// first use, not at start-up: only ranking needs it.
var conceptToken = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\d+(?:[.,]\d+)*|[\p{L}']+|[^\s\p{L}\d]`)
})

// findConcepts returns the concepts text points to, in lexicon order, and
// text with every word that stood between numbers as an operator blanked
// out.
func findConcepts(text string) ([]*concept, string) {
	type tok struct {
		s      string // lower case
		lo, hi int
		num    bool
	}
	var toks []tok
	for _, m := range conceptToken().FindAllStringIndex(text, -1) {
		s := strings.ToLower(text[m[0]:m[1]])
		r, _ := utf8.DecodeRuneInString(s)
		toks = append(toks, tok{s: s, lo: m[0], hi: m[1], num: r >= '0' && r <= '9'})
	}
	isNum := func(i int) bool { return i >= 0 && i < len(toks) && toks[i].num }
	var st stemmer
	found := map[*concept]bool{}
	var blank [][2]int
	for i, t := range toks {
		if t.num {
			continue
		}
		for _, c := range lexicon() {
			switch {
			case c.between[t.s] && isNum(i-1) && (isNum(i+1) || i+2 < len(toks) && toks[i+1].s == "by" && isNum(i+2)):
				found[c] = true
				blank = append(blank, [2]int{t.lo, t.hi})
			case c.units[t.s] && isNum(i-1):
				found[c] = true
			case c.symbols[t.s] && (isNum(i-1) || isNum(i+1)):
				found[c] = true
			case c.words[t.s] || c.words[st.stem([]byte(t.s))]:
				found[c] = true
			}
		}
	}
	var out []*concept
	for _, c := range lexicon() {
		if found[c] {
			out = append(out, c)
		}
	}
	if len(blank) == 0 {
		return out, text
	}
	b := []byte(text)
	for _, r := range blank {
		for k := r[0]; k < r[1]; k++ {
			b[k] = ' '
		}
	}
	return out, string(b)
}
