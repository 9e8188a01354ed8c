package eval

import (
	"slices"
	"strings"
	"testing"
)

func ids(cases []*Case) []string {
	out := make([]string, len(cases))
	for i, c := range cases {
		out[i] = c.ID
	}
	return out
}

func categories(cases []*Case) []string {
	var out []string
	for _, c := range cases {
		if !slices.Contains(out, c.Category) {
			out = append(out, c.Category)
		}
	}
	slices.Sort(out)
	return out
}

// A category matches exactly, or as the start of several; one no case
// has is refused with the ones there are.
func TestSelectCategories(t *testing.T) {
	all, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Select(all, Selection{Categories: []string{"parallel"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := categories(got); !slices.Equal(c, []string{"parallel"}) || len(got) != 25 {
		t.Errorf("parallel: %d cases of %v, want the 25 of parallel only", len(got), c)
	}
	got, err = Select(all, Selection{Categories: []string{"simple"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := categories(got); !slices.Equal(c, []string{"simple_java", "simple_javascript", "simple_python"}) {
		t.Errorf("simple: %v", c)
	}
	_, err = Select(all, Selection{Categories: []string{"live_simple"}})
	if err == nil || !strings.Contains(err.Error(), "irrelevance, multiple") {
		t.Errorf("unknown category: %v, want the categories listed", err)
	}
}

// --limit takes cases from each category in turn; --sample is the same
// cases for the same seed, and others for another.
func TestSelectLimitAndSample(t *testing.T) {
	all, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Select(all, Selection{Limit: 14})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 14 || len(categories(got)) != 7 {
		t.Errorf("--limit 14: %d cases in %d categories, want 2 from each of 7: %v", len(got), len(categories(got)), ids(got))
	}
	a, _ := Select(all, Selection{Sample: 20, Seed: 7})
	b, _ := Select(all, Selection{Sample: 20, Seed: 7})
	c, _ := Select(all, Selection{Sample: 20, Seed: 8})
	if len(a) != 20 || !slices.Equal(ids(a), ids(b)) {
		t.Errorf("same seed, different samples:\n%v\n%v", ids(a), ids(b))
	}
	if slices.Equal(ids(a), ids(c)) {
		t.Errorf("seeds 7 and 8 drew the same sample")
	}
	if _, err := Select(all, Selection{Limit: -1}); err == nil {
		t.Error("--limit -1 accepted")
	}
}
