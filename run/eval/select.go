package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Selection is which of the cases to run, for a quick look.
type Selection struct {
	// Categories keeps the cases of these categories. A name matches its
	// category exactly or, when no case has it exactly, every category it
	// begins, up to an underscore: "simple" is simple_python, simple_java
	// and simple_javascript.
	Categories []string
	// Sample keeps this many cases at random, drawn with Seed (the same
	// seed, the same cases).
	Sample int
	Seed   uint64
	// Limit keeps at most this many cases, taken in turn from each
	// category, so a short run still meets every one.
	Limit int
}

// Select returns the cases s keeps, in their order. A category no case
// has is an error that lists the ones there are.
func Select(cases []*Case, s Selection) ([]*Case, error) {
	if s.Sample < 0 || s.Limit < 0 {
		return nil, fmt.Errorf("--sample and --limit take a count of cases, not %d", min(s.Sample, s.Limit))
	}
	kept := cases
	if len(s.Categories) > 0 {
		var err error
		if kept, err = byCategory(cases, s.Categories); err != nil {
			return nil, err
		}
	}
	if s.Sample > 0 && s.Sample < len(kept) {
		r := rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))
		picked := r.Perm(len(kept))[:s.Sample]
		slices.Sort(picked)
		sample := make([]*Case, len(picked))
		for i, p := range picked {
			sample[i] = kept[p]
		}
		kept = sample
	}
	if s.Limit > 0 && s.Limit < len(kept) {
		kept = inTurn(kept, s.Limit)
	}
	return kept, nil
}

func byCategory(cases []*Case, names []string) ([]*Case, error) {
	have := map[string]bool{}
	for _, c := range cases {
		have[c.Category] = true
	}
	want := map[string]bool{}
	for _, name := range names {
		if have[name] {
			want[name] = true
			continue
		}
		found := false
		for cat := range have {
			if strings.HasPrefix(cat, name+"_") {
				want[cat], found = true, true
			}
		}
		if !found {
			all := make([]string, 0, len(have))
			for cat := range have {
				all = append(all, cat)
			}
			slices.Sort(all)
			return nil, fmt.Errorf("--category %s: no case has it; the cases' categories are %s", name, strings.Join(all, ", "))
		}
	}
	var kept []*Case
	for _, c := range cases {
		if want[c.Category] {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// inTurn takes n cases, one from each category in turn (categories in
// the order they first appear, each category's cases in order), and
// returns them in their original order.
func inTurn(cases []*Case, n int) []*Case {
	var order []string
	queues := map[string][]int{}
	for i, c := range cases {
		if _, ok := queues[c.Category]; !ok {
			order = append(order, c.Category)
		}
		queues[c.Category] = append(queues[c.Category], i)
	}
	var picked []int
	for len(picked) < n {
		for _, cat := range order {
			if q := queues[cat]; len(q) > 0 && len(picked) < n {
				picked = append(picked, q[0])
				queues[cat] = q[1:]
			}
		}
	}
	slices.Sort(picked)
	kept := make([]*Case, len(picked))
	for i, p := range picked {
		kept[i] = cases[p]
	}
	return kept
}
