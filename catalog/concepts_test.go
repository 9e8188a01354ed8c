package catalog

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/tools"
)

// conceptTools is a catalog whose tools describe themselves in words no
// request below uses: only a concept can lead to them.
func conceptTools() []*tools.Tool {
	return []*tools.Tool{
		{Name: "calculator", Description: "Evaluate an arithmetic expression.", Tags: []string{"math"}, Safe: true},
		{Name: "clock", Description: "The current date and time in a time zone.", Tags: []string{"time"}, Safe: true},
		{Name: "fx", Description: "Exchange rates between currencies.", Safe: true},
		{Name: "geo", Description: "The distance between two places, as the crow flies.", Safe: true},
		{Name: "meteo", Description: "Weather and temperature now.", Safe: true},
		{Name: "fs_read", Description: "Read a file at a path.", Safe: true},
		{Name: "browse", Description: "Fetch a web page by its URL.", Safe: true},
		{Name: "translate", Description: "Translate text between languages.", Safe: true},
	}
}

// TestConcepts: one request per concept of concepts.txt, worded so that
// only the concept can find the tool; and every concept has one.
func TestConcepts(t *testing.T) {
	cases := map[string]struct{ query, want string }{
		"arithmetic": {"What is 17 times 25?", "calculator"},
		"time":       {"Remind me: meeting at 3pm", "clock"},
		"money":      {"Is $40 enough?", "fx"},
		"distance":   {"Is 25 km a long walk?", "geo"},
		"weather":    {"Will it rain on Saturday in Oslo?", "meteo"},
		"files":      {"Show me notes.txt", "fs_read"},
		"web":        {"What does https://example.com say?", "browse"},
	}
	for _, c := range lexicon() {
		if _, ok := cases[c.name]; !ok {
			t.Errorf("concept %s has no test here", c.name)
		}
	}
	cat := New(conceptTools())
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := cat.Select(context.Background(), Selection{Query: tc.query, Max: 3, Cap: true, MinScore: DefaultMinScore})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || got[0].Tool.Name != tc.want {
				t.Fatalf("%q: got %v, want %s first", tc.query, describe(got), tc.want)
			}
			if !strings.Contains(got[0].Reason, "weak: concept "+name) {
				t.Errorf("reason %q does not name the concept", got[0].Reason)
			}
		})
	}
}

// TestConceptsBetweenNumbers: words that are operators between numbers
// are arithmetic, and do not count as the words they are elsewhere.
func TestConceptsBetweenNumbers(t *testing.T) {
	for _, tc := range []struct {
		query string
		ops   bool   // whether the request is arithmetic
		left  string // the request as ranked
	}{
		{"What is 17 times 25?", true, "What is 17       25?"},
		{"12 plus 30 minus 4", true, "12      30       4"},
		{"100 divided by 7", true, "100         by 7"},
		{"3.5 over 2", true, "3.5      2"},
		{"17 * 25", true, "17 * 25"},
		{"How many times did it rain in 2024?", false, "How many times did it rain in 2024?"},
		{"times of the trains to Lyon", false, "times of the trains to Lyon"},
		{"2 times a day", false, "2 times a day"},
	} {
		found, left := findConcepts(tc.query)
		arith := false
		for _, c := range found {
			arith = arith || c.name == "arithmetic"
		}
		if arith != tc.ops || left != tc.left {
			t.Errorf("%q: arithmetic %v, ranked as %q; want %v, %q", tc.query, arith, left, tc.ops, tc.left)
		}
	}
}

// TestConceptsSmallCatalog is the case of issue 30: among the example
// tools, a sum in words offers the calculator first, not the clocks.
func TestConceptsSmallCatalog(t *testing.T) {
	c := New([]*tools.Tool{
		{Name: "calculator", Description: "Evaluate an arithmetic expression: + - * / % ^ (power), parentheses, decimals.", Tags: []string{"math"}, Safe: true,
			InputSchema: []byte(`{"type":"object","properties":{"expression":{"type":"string"}}}`)},
		{Name: "current_time", Description: "The current date and time, in UTC.", Tags: []string{"time"}, Safe: true},
		{Name: "datetime", Description: "The current date and time in a time zone, or a wall clock time converted between time zones.", Tags: []string{"time"}, Safe: true},
		{Name: "get_weather", Description: "Current weather for a city: temperature and conditions.", Tags: []string{"weather"}, Safe: true},
	})
	for _, q := range []string{"What is 17 times 25?", "what's 3 plus 4", "144 divided by 12", "compute 2 x 8"} {
		got, err := c.Select(context.Background(), Selection{Query: q, Max: 1, MinScore: DefaultMinScore})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"calculator"}, names(got)); diff != "" {
			t.Errorf("%q (-want +got):\n%s%s", q, diff, describe(got))
		}
	}
}

// TestConceptsParse: the lexicon's format errors name the line.
func TestConceptsParse(t *testing.T) {
	for text, want := range map[string]string{
		"arithmetic expand calculator":        `concepts.txt:1: want "concept key: words"`,
		"# c\narithmetic colour: red":         `concepts.txt:2: unknown key "colour"`,
		"arithmetic words: sum":               "concept arithmetic expands to nothing",
		"arithmetic expand words: calculator": `concepts.txt:1: want "concept key: words"`,
	} {
		if _, err := parseConcepts(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}
