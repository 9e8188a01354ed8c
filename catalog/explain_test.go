package catalog

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// TestExplain: the explanation agrees with the ranking it explains, tool
// by tool, and says where each word matched.
func TestExplain(t *testing.T) {
	ctx := context.Background()
	c := New(rankTools())
	for _, q := range []string{"What's the weather like in Paris?", "forecast for the next 3 days", "convert 100 USD to EUR", "zebra"} {
		sel := Selection{Query: q, Max: DefaultMax, Cap: true, MinScore: DefaultMinScore}
		picked, err := c.Select(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		es, err := c.Explain(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 6 {
			t.Fatalf("%q: %d explained, want the 6 candidates", q, len(es))
		}
		for i, r := range picked {
			if es[i].Tool != r.Tool || es[i].Rank != i+1 || es[i].Score != r.Score {
				t.Errorf("%q: explained #%d is %s rank %d score %v; Select has %s %v", q, i, es[i].Tool.Name, es[i].Rank, es[i].Score, r.Tool.Name, r.Score)
			}
		}
		for _, e := range es[len(picked):] {
			if e.Rank != 0 {
				t.Errorf("%q: %s not offered but rank %d", q, e.Tool.Name, e.Rank)
			}
		}
		for _, e := range es {
			sum := 0.0
			for _, m := range e.Matched {
				sum += m.Score
			}
			if math.Abs(sum-e.Score) > 1e-3 {
				t.Errorf("%q: %s's words add to %v, its score is %v", q, e.Tool.Name, sum, e.Score)
			}
		}
	}

	es, _ := c.Explain(ctx, Selection{Query: "weather in a city", Max: 1, Cap: true, MinScore: DefaultMinScore})
	var out bytes.Buffer
	if err := WriteExplained(&out, es[:1]); err != nil {
		t.Fatal(err)
	}
	ev := gjson.Parse(out.String())
	if ev.Get("type").Str != TypeExplain || ev.Get("name").Str != "get_weather" || !ev.Get("offered").Bool() || ev.Get("rank").Int() != 1 {
		t.Errorf("event: %s", out.String())
	}
	var fields []string
	for _, f := range ev.Get(`matched.#(word=="weather").fields.#.field`).Array() {
		fields = append(fields, f.Str)
	}
	if diff := cmp.Diff([]string{"name", "description", "tag"}, fields); diff != "" {
		t.Errorf("weather's fields (-want +got):\n%s\n%s", diff, out.String())
	}
	if w := ev.Get(`matched.#(word=="weather").fields.#(field=="name").weight`).Float(); w != 3 {
		t.Errorf("the name's weight is %v, want 3", w)
	}
	if !strings.HasSuffix(out.String(), "}\n") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("not one line: %q", out.String())
	}

	// A tool not offered says which words it lacks.
	es, _ = c.Explain(ctx, Selection{Query: "weather in Paris", Max: 1, Cap: true, MinScore: DefaultMinScore})
	for _, e := range es {
		if e.Tool.Name == "read_file" && (e.Rank != 0 || !cmp.Equal(e.Unmatched, []string{"weather", "paris"})) {
			t.Errorf("read_file: rank %d, unmatched %q", e.Rank, e.Unmatched)
		}
	}
}
