package catalog

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// fillerWords are the stems of words that requests are phrased with and
// that say nothing of the tool wanted ("I need you to retrieve it,
// please"). They still match, at fillerWeight. "information", "info"
// and "details" are not among them: they name what a tool gives back
// (get_employee_details, an output "details"), and at full weight, their
// idf and commonPenalty weighing them, Seal-Tools dev's Recall@5 went
// from 0.9513 to 0.9519 (NDCG@10 0.9552 to 0.9586) and BFCL's whole
// data's from 0.9178 to 0.9207.
var fillerWords = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(`need want wish provide retrieve help assist
		assistance id like give tell know let thanks thank hello hey able
		specific specifically certain particular use using tool function hi ok okay sure thing
		things`) {
		m[english.Stem(w, true)] = struct{}{}
	}
	return m
})

// splitAsks splits a request into the things it asks for: its lines (a
// bullet or a number at the start of one dropped), their sentences, and the
// clauses a sentence chains with "and then", "also", "additionally" and
// the like, or numbers them with "(1) … (2) …". Pieces are trimmed and
// empty ones left out; a request of one piece is that piece.
func splitAsks(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = dropListMarker(strings.TrimSpace(line))
		for _, sentence := range sentences(line) {
			for _, clause := range clauses(sentence) {
				if c := strings.TrimSpace(clause); c != "" {
					out = append(out, c)
				}
			}
		}
	}
	if len(out) == 0 {
		return []string{strings.TrimSpace(s)}
	}
	return out
}

// dropListMarker removes a bullet ("-", "*", "•") or a number ("1.",
// "2)") at the start of a line.
func dropListMarker(line string) string {
	switch {
	case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "):
		return line[2:]
	case strings.HasPrefix(line, "• "):
		return line[len("• "):]
	}
	i := 0
	for i < len(line) && i < 3 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
		return line[i+2:]
	}
	return line
}

// abbreviations end in a full stop that does not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "mr": true, "mrs": true, "ms": true,
	"dr": true, "st": true, "no": true, "approx": true, "inc": true, "ltd": true, "jr": true, "sr": true,
}

// sentences splits s after each ".", "!", "?" or ";" followed by a space,
// unless the full stop ends an abbreviation or a single letter ("U.S.").
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' && c != ';' {
			continue
		}
		if i+1 < len(s) && s[i+1] != ' ' {
			continue
		}
		// A sentence starts with a capital, a digit or a quote: "sq ft. in
		// New York" and "how are you? from English" go on.
		if next := strings.TrimLeft(s[i+1:], " "); next != "" && !startsSentence(next) {
			continue
		}
		if c == '.' {
			w := i
			for w > start && s[w-1] != ' ' && s[w-1] != '(' {
				w--
			}
			// A number ends a sentence ("on May 3.", "a threshold of 0.5.").
			word := strings.ToLower(s[w:i])
			if !isNumber(word) && (abbreviations[word] || len(word) == 1 || strings.Count(word, ".") > 0 && len(word) <= 4) {
				continue
			}
		}
		out = append(out, s[start:i+1])
		start = i + 1
	}
	return append(out, s[start:])
}

// isNumber reports whether w is digits, with dots or commas between them.
func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; (c < '0' || c > '9') && (i == 0 || c != '.' && c != ',') {
			return false
		}
	}
	return w != ""
}

// startsSentence reports whether s, the text after a full stop, opens a
// sentence.
func startsSentence(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("\"'“‘(", r)
}

// connectors start a new ask when they open a clause: at the start of a
// sentence, or after a comma, a semicolon or "and".
var connectors = []string{"and then", "then", "and also", "also", "additionally", "in addition",
	"after that", "afterwards", "furthermore", "moreover", "finally", "lastly", "next"}

// clauses splits a sentence at its connectors and at an enumeration
// "(1) … (2) …" or "1) … 2) …" (numbered from 1, in order, at least two).
func clauses(s string) []string {
	lower := strings.ToLower(s)
	var cuts []int
	want := 1 // the number the next enumerator must have
	var numbered []int
	for i := 0; i < len(lower); i++ {
		if i > 0 && !isWordBreak(lower[i-1]) {
			continue
		}
		if n, num := enumerator(lower[i:]); n > 0 {
			if num == want {
				numbered = append(numbered, i)
				want++
			}
			i += n - 1
			continue
		}
		for _, c := range connectors {
			if strings.HasPrefix(lower[i:], c) && (i+len(c) == len(lower) || isWordBreak(lower[i+len(c)])) &&
				(i > 0 && strings.HasPrefix(c, "and ") || opensClause(lower, i)) {
				cuts = append(cuts, i)
				i += len(c) - 1
				break
			}
		}
	}
	if len(numbered) >= 2 {
		for _, at := range numbered {
			if at > 0 {
				cuts = append(cuts, at)
			}
		}
		slices.Sort(cuts)
	}
	if len(cuts) == 0 {
		return []string{s}
	}
	var out []string
	prev := 0
	for _, c := range cuts {
		out = append(out, s[prev:c])
		prev = c
	}
	return append(out, s[prev:])
}

// opensClause reports whether the word at lower[i] starts a clause: it
// starts the sentence, or follows a comma, a semicolon, a colon or "and".
func opensClause(lower string, i int) bool {
	before := strings.TrimRight(lower[:i], " ")
	if before == "" {
		return i > 0 // the sentence's own first word is no cut
	}
	if strings.HasSuffix(before, ",") || strings.HasSuffix(before, ";") || strings.HasSuffix(before, ":") {
		return true
	}
	return strings.HasSuffix(before, " and") || before == "and"
}

// enumerator returns the length of "(N) " or "N) " at the start of s, N one
// or two digits, and N; or 0.
func enumerator(s string) (length, n int) {
	i := 0
	if i < len(s) && s[i] == '(' {
		i++
	}
	d := i
	for i < len(s) && i-d < 2 && s[i] >= '0' && s[i] <= '9' {
		n = n*10 + int(s[i]-'0')
		i++
	}
	if i == d || i >= len(s) || s[i] != ')' {
		return 0, 0
	}
	i++
	if i < len(s) && s[i] != ' ' {
		return 0, 0
	}
	return i, n
}

func isWordBreak(c byte) bool {
	return c == ' ' || c == ',' || c == ';' || c == ':' || c == '(' || c == ')' || c == '.' || c == '\t'
}

// eachQuoted calls fn with the parts of s in order, and whether each was
// inside quotes: "…", “…”, or '…' and ‘…’ when they open after a space
// and close before one (so that the apostrophe of "what's" quotes
// nothing). An unclosed quote quotes nothing.
func eachQuoted(s string, fn func(part string, quoted bool)) {
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		closer := rune(0)
		switch r {
		case '"':
			closer = '"'
		case '“':
			closer = '”'
		case '\'', '‘':
			if i == 0 || s[i-1] == ' ' || s[i-1] == '(' {
				closer = '’'
				if r == '\'' {
					closer = '\''
				}
			}
		}
		if closer == 0 {
			i += size
			continue
		}
		end := closingQuote(s, i+size, closer)
		if end < 0 {
			i += size
			continue
		}
		fn(s[start:i], false)
		fn(s[i+size:end], true)
		_, csize := utf8.DecodeRuneInString(s[end:])
		i = end + csize
		start = i
	}
	fn(s[start:], false)
}

// closingQuote returns the offset of the quote closer in s from i, which
// for a single quote must end a word; -1 when there is none.
func closingQuote(s string, i int, closer rune) int {
	for j := i; j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		if r == closer {
			if closer == '"' || closer == '”' {
				return j
			}
			next := j + size
			if next == len(s) {
				return j
			}
			nr, _ := utf8.DecodeRuneInString(s[next:])
			if !unicode.IsLetter(nr) && !unicode.IsDigit(nr) {
				return j
			}
		}
		j += size
	}
	return -1
}

// exampleMarkers introduce example values in a description.
var exampleMarkers = []string{"e.g.", "e.g,", "e.g ", "eg.", "eg,", "for example", "for instance", "such as", "example:", "examples:", "ex:"}

// eachExample calls fn with the parts of a description in order, and
// whether each gives example values: a parenthesis that opens with an
// example marker ("(e.g. Paris)"), or the rest of the sentence after a
// marker outside parentheses ("a city, for example Paris or Lyon.").
func eachExample(s string, fn func(part string, example bool)) {
	lower := ""
	for start := 0; start < len(s); {
		m := -1
		if lower == "" {
			if !mayHaveExample(s) {
				fn(s[start:], false)
				return
			}
			lower = strings.ToLower(s)
		}
		for _, marker := range exampleMarkers {
			if k := strings.Index(lower[start:], marker); k >= 0 && (m < 0 || start+k < m) {
				if start+k == 0 || isWordBreak(lower[start+k-1]) {
					m = start + k
				}
			}
		}
		if m < 0 {
			fn(s[start:], false)
			return
		}
		from, to := m, exampleEnd(lower, m)
		if open := strings.LastIndexByte(lower[start:m], '('); open >= 0 && !strings.Contains(lower[start+open:m], ")") {
			from = start + open
			to = strings.IndexByte(lower[m:], ')')
			if to < 0 {
				to = len(s)
			} else {
				to += m + 1
			}
		}
		fn(s[start:from], false)
		fn(s[from:to], true)
		start = to
	}
}

// mayHaveExample is a cheap test, in one pass, that most descriptions
// fail: whether s has anything like an example marker.
func mayHaveExample(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		switch s[i] {
		case 'e', 'E':
			switch s[i+1] {
			case '.', 'g', 'x':
				return true
			}
		case 'n':
			if strings.HasPrefix(s[i:], "nstance") {
				return true
			}
		case 'u':
			if strings.HasPrefix(s[i:], "uch as") {
				return true
			}
		}
	}
	return false
}

// exampleEnd is where examples that start at lower[m] outside parentheses
// end: at the end of the sentence or clause.
func exampleEnd(lower string, m int) int {
	for j := m + 4; j < len(lower); j++ {
		switch lower[j] {
		case ';', ')', '\n':
			return j
		case '.':
			if j+1 == len(lower) || lower[j+1] == ' ' {
				return j
			}
		}
	}
	return len(lower)
}
