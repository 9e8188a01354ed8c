package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// WriteTable writes the summaries as a table for a person: a row per
// category and one for all, a column per summary (a setting under
// --compare), then the misses by why. Scores are percentages of the
// category's cases.
func WriteTable(w io.Writer, sums []*Summary) error {
	if len(sums) == 0 {
		return nil
	}
	var cats []string
	for _, s := range sums {
		for _, c := range s.Categories() {
			if !slices.Contains(cats, c) {
				cats = append(cats, c)
			}
		}
	}
	slices.Sort(cats)
	header := []string{"category"}
	if len(sums) == 1 {
		header = append(header, "cases", "right", "score")
	} else {
		for _, s := range sums {
			header = append(header, s.label())
		}
	}
	rows := [][]string{header}
	row := func(name string, tally func(*Summary) Tally) {
		cells := []string{name}
		for _, s := range sums {
			t := tally(s)
			if len(sums) == 1 {
				cells = append(cells, fmt.Sprint(t.Cases), fmt.Sprint(t.Right))
			}
			if t.Cases == 0 {
				cells = append(cells, "-")
			} else {
				cells = append(cells, fmt.Sprintf("%.1f%%", 100*t.Score()))
			}
		}
		rows = append(rows, cells)
	}
	for _, c := range cats {
		row(c, func(s *Summary) Tally {
			if t := s.ByCategory[c]; t != nil {
				return *t
			}
			return Tally{}
		})
	}
	row("all", func(s *Summary) Tally { return Tally{s.Cases, s.Right} })
	if _, err := io.WriteString(w, alignRows(rows)); err != nil {
		return err
	}
	for _, s := range sums {
		if misses := s.misses(); misses != "" {
			prefix := "misses"
			if len(sums) > 1 {
				prefix = s.label() + " misses"
			}
			if _, err := fmt.Fprintf(w, "%s: %s\n", prefix, misses); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Summary) label() string {
	if s.Setting == "" {
		return "score"
	}
	return s.Setting
}

// misses says the misses by why, most first: "no_call 3, wrong_type 1".
func (s *Summary) misses() string {
	type count struct {
		why Why
		n   int
	}
	var counts []count
	for why, n := range s.ByWhy {
		counts = append(counts, count{why, n})
	}
	slices.SortFunc(counts, func(a, b count) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(string(a.why), string(b.why))
	})
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = fmt.Sprintf("%s %d", c.why, c.n)
	}
	return strings.Join(parts, ", ")
}

// Best is the summary to recommend among several runs of the same cases:
// the highest score; on a tie, fewer cases that could not run, then less
// time. Nil for none.
func Best(sums []*Summary) *Summary {
	var best *Summary
	for _, s := range sums {
		if best == nil || better(s, best) {
			best = s
		}
	}
	return best
}

func better(a, b *Summary) bool {
	if a.Score() != b.Score() {
		return a.Score() > b.Score()
	}
	if a.Failed != b.Failed {
		return a.Failed < b.Failed
	}
	return a.Duration < b.Duration
}

// alignRows lays rows out in columns two spaces apart: the first column
// (names) to the left, the others (numbers) to the right.
func alignRows(rows [][]string) string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
