package editdist

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxSuggestions is how many "did you mean" names Suggest returns at most:
// enough to catch the intended tool, few enough for a model to read.
const maxSuggestions = 3

// How a candidate resembles the name asked for, best first.
const (
	likeSameWords  = iota // same words, other case or separators: getWeather, get-weather
	likeReordered         // same words in another order: weather.get
	likeTypo              // a few edits away: get_wether
	likeSharedWord        // shares a long enough word: weather
)

// Suggest returns up to three of names that the model probably meant when
// it called name: the same words written another way (get_weather for
// getWeather or weather.get), a small typo, or a shared word. The result
// is deterministic: best match first, ties by name. name itself is never
// suggested.
func Suggest(name string, names []string) []string {
	q := splitName(name)
	if q.joined == "" {
		return nil
	}
	type match struct {
		name  string
		class int
		dist  int
		share float64
	}
	var found []match
	for _, cand := range names {
		if cand == name {
			continue
		}
		c := splitName(cand)
		if c.joined == "" {
			continue
		}
		m := match{name: cand, class: -1}
		switch {
		case c.joined == q.joined:
			m.class = likeSameWords
		case c.sorted == q.sorted:
			m.class = likeReordered
		default:
			limit := max(1, utf8.RuneCountInString(q.joined)/4)
			if d := editDistance(q.joined, c.joined, limit); d <= limit && d < utf8.RuneCountInString(q.joined) {
				m.class, m.dist = likeTypo, d
			} else if s := sharedWords(q.words, c.words); s > 0 {
				m.class, m.share = likeSharedWord, s
				m.dist = editDistance(q.joined, c.joined, 1<<30)
			}
		}
		if m.class >= 0 {
			found = append(found, m)
		}
	}
	slices.SortFunc(found, func(a, b match) int {
		switch {
		case a.class != b.class:
			return a.class - b.class
		case a.share != b.share:
			if a.share > b.share {
				return -1
			}
			return 1
		case a.dist != b.dist:
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, m := range found {
		if len(out) == maxSuggestions {
			break
		}
		if !slices.Contains(out, m.name) {
			out = append(out, m.name)
		}
	}
	return out
}

// nameWords is a tool name taken apart: its lower-case words, those words
// run together, and sorted and joined with spaces (to compare word sets).
type nameWords struct {
	words          []string
	joined, sorted string
}

// splitName splits a name into lower-case words at any character that is
// not a letter or digit, and at camelCase boundaries (getWeather,
// HTTPServer -> http server).
func splitName(s string) nameWords {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	sorted := slices.Clone(words)
	slices.Sort(sorted)
	return nameWords{words: words, joined: strings.Join(words, ""), sorted: strings.Join(sorted, " ")}
}

// minSharedWords is the least share of letters in common words for names
// to count as related: "weather" links get_weather and weather_alerts, but
// a common "get" alone does not link get_weather and http_get.
const minSharedWords = 0.3

// sharedWords is the share of the letters of the two names' distinct words
// that are in words both have, so that long shared words count for more
// than short ones; 0 when it is below minSharedWords.
func sharedWords(a, b []string) float64 {
	seen := map[string]int{}
	for _, w := range a {
		seen[w] |= 1
	}
	for _, w := range b {
		seen[w] |= 2
	}
	shared, all := 0, 0
	for w, in := range seen {
		n := utf8.RuneCountInString(w)
		all += n
		if in == 3 {
			shared += n
		}
	}
	if all == 0 || float64(shared)/float64(all) < minSharedWords {
		return 0
	}
	return float64(shared) / float64(all)
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and swaps of neighbours), in
// runes. It gives up early and returns limit+1 once the distance must
// exceed limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
