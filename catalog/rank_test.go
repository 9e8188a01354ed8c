package catalog

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/tools"
)

// terms returns the terms of s as a query has them, repeats included.
func terms(s string) []string {
	var z tokenizer
	var st stemmer
	var out []string
	z.each(s, func(word []byte) {
		if _, stop := stopWords()[string(word)]; !stop {
			out = append(out, st.stem(word))
		}
	})
	return out
}

// stem is the stem of one word.
func stem(w string) string {
	var st stemmer
	return st.stem([]byte(w))
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string][]string{
		"get_weather":                  {"get", "weather"},
		"math.factorial":               {"math", "factori"},
		"kebab-case-name":              {"kebab", "case", "name"},
		"getWeatherByCity2":            {"get", "weather", "citi", "2"},
		"HTTPServer parseJSONValue":    {"http", "server", "pars", "json", "valu"},
		"What's the weather in Paris?": {"weather", "pari"},
		"base64 x86_64 v2":             {"base", "64", "86", "64", "2"},
		"Météo à Zürich":               {"météo", "zürich"},
		"CITIES and Files":             {"citi", "file"},
	} {
		if diff := cmp.Diff(want, terms(in)); diff != "" {
			t.Errorf("terms(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestStem(t *testing.T) {
	// Words that should meet do; the stems themselves are not words.
	for _, group := range [][]string{
		{"city", "cities"},
		{"file", "files", "filed"},
		{"run", "running"},
		{"stop", "stopped", "stopping"},
		{"create", "creates", "created", "creating"},
		{"box", "boxes"},
		{"match", "matches", "matched"},
		{"class", "classes"},
		{"set", "setting"},
		{"list", "lists", "listed", "listing"},
		{"query", "queries"},
		{"update", "updated", "updates", "updating"},
		{"nutrition", "nutritional"},
		{"charity", "charities"},
		{"calculate", "calculates", "calculated", "calculation"},
		{"probability", "probabilities"},
		{"restaurant", "restaurants"},
	} {
		want := stem(group[0])
		for _, w := range group[1:] {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, but stem(%q) = %q", w, got, group[0], want)
			}
		}
	}
	// Words that must stay whole, and words that must not meet.
	for _, w := range []string{"status", "analysis", "address", "speed", "free"} {
		if got := stem(w); len(got) < len(w)-2 {
			t.Errorf("stem(%q) = %q, cut too much", w, got)
		}
	}
	for _, pair := range [][2]string{{"news", "new"}, {"general", "generate"}} {
		if stem(pair[0]) == stem(pair[1]) {
			t.Errorf("%q and %q meet at %q", pair[0], pair[1], stem(pair[0]))
		}
	}
	// Words with digits or other scripts, and short ones, are their own stems.
	for _, w := range []string{"x86", "météo", "id", "go"} {
		if got := stem(w); got != w {
			t.Errorf("stem(%q) = %q, want it whole", w, got)
		}
	}
}

// rankTools is a catalog to rank: near misses for each query on purpose.
func rankTools() []*tools.Tool {
	schema := func(props string) []byte { return []byte(`{"type":"object","properties":{` + props + `}}`) }
	return []*tools.Tool{
		{Name: "get_weather", Description: "Current weather conditions for a city.", Tags: []string{"weather", "network"}, Safe: true,
			InputSchema: schema(`"city":{"type":"string","description":"City name"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}`)},
		{Name: "weather_forecast", Description: "Forecast for the next days.", Tags: []string{"weather", "network"}, Safe: true,
			InputSchema: schema(`"location":{"type":"string"},"days":{"type":"integer","description":"How many days ahead"}`)},
		{Name: "math.factorial", Description: "Compute the factorial of a number.", Tags: []string{"math"}, Safe: true,
			InputSchema: schema(`"n":{"type":"integer"}`)},
		{Name: "convertCurrency", Description: "Convert an amount between currencies at today's rate.", Tags: []string{"finance", "network"}, Safe: true,
			InputSchema: schema(`"amount":{"type":"number"},"from":{"type":"string","description":"ISO code of the source currency"},"to":{"type":"string"}`)},
		{Name: "delete_file", Description: "Delete a file.", Tags: []string{"files"}, Safe: false,
			InputSchema: schema(`"path":{"type":"string","description":"Path of the file"}`)},
		{Name: "read_file", Description: "Read a text file and print it.", Tags: []string{"files"}, Safe: true,
			InputSchema: schema(`"path":{"type":"string"}`)},
		{Name: "send_email", Description: "Send an email message.", Tags: []string{"mail", "network"}, Safe: false,
			InputSchema: schema(`"to":{"type":"string"},"message":{"type":"object","properties":{"subject":{"type":"string"},"attachments":{"type":"array","items":{"type":"object","properties":{"filename":{"type":"string"}}}}}}`)},
		{Name: "notes_search", Description: "Search notes.", Safe: true, AllowNoSchema: true, NoSchemaMode: tools.NoSchemaHumanApproval},
		{Name: "gpu_stats", Description: "Show GPU use.", Safe: true, Unavailable: "needs nvidia-smi on PATH",
			InputSchema: schema(``)},
	}
}

func names(rs []Ranked) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Tool.Name)
	}
	return out
}

func TestSelectFilter(t *testing.T) {
	c := New(rankTools())
	for _, tc := range []struct {
		name string
		sel  Selection
		want []string
	}{
		{"default: safe and available", Selection{},
			[]string{"convertCurrency", "get_weather", "math.factorial", "notes_search", "read_file", "weather_forecast"}},
		{"allow unsafe", Selection{Policy: tools.Policy{AllowUnsafe: true}},
			[]string{"convertCurrency", "delete_file", "get_weather", "math.factorial", "notes_search", "read_file", "send_email", "weather_forecast"}},
		{"approved glob lets one unsafe tool in", Selection{Policy: tools.Policy{Approved: []string{"delete_*"}}},
			[]string{"convertCurrency", "delete_file", "get_weather", "math.factorial", "notes_search", "read_file", "weather_forecast"}},
		{"local only", Selection{Policy: tools.Policy{LocalOnly: true, AllowUnsafe: true}},
			[]string{"delete_file", "math.factorial", "notes_search", "read_file"}},
		{"allow and deny", Selection{Policy: tools.Policy{Allow: []string{"*weather*", "read_file"}, Deny: []string{"weather_*"}}},
			[]string{"get_weather", "read_file"}},
		{"tags: any of them", Selection{Tags: []string{"files", "math"}},
			[]string{"math.factorial", "read_file"}},
		{"max", Selection{Max: 2}, []string{"convertCurrency", "get_weather"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Select(context.Background(), tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, r := range got {
				if r.Scored {
					t.Errorf("%s is marked scored without a query", r.Tool.Name)
				}
			}
		})
	}
}

func TestSelectRank(t *testing.T) {
	c := New(rankTools())
	for _, tc := range []struct {
		query      string
		want       []string
		wantReason string // of the first
	}{
		{"What's the weather like in Paris?", []string{"get_weather", "weather_forecast"}, "matched weather (name, description, tag)"},
		{"forecast for the next 3 days", []string{"weather_forecast"}, "matched forecast (name, description), next (description), days (description, argument, argument description), weather (name, tag; weak: concept weather)"},
		{"factorial of 10", []string{"math.factorial"}, "matched factorial (name, description)"},
		{"convert 100 USD to EUR", []string{"convertCurrency"}, "matched convert (name, description), currency (name, description, argument description; weak: concept money), amount (description, argument; weak: concept money)"},
		{"which currencies can I convert?", []string{"convertCurrency"}, "matched currencies (name, description, argument description), convert (name, description), amount (description, argument; weak: concept money)"},
		{"show me the file notes.txt", []string{"read_file"}, "matched file (name, description, tag), path (argument; weak: concept files)"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got, err := c.Select(context.Background(), Selection{Query: tc.query, Max: DefaultMax, Cap: true, MinScore: DefaultMinScore})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				t.Fatalf("nothing selected")
			}
			if diff := cmp.Diff(tc.want, names(got)[:min(len(tc.want), len(got))]); diff != "" {
				t.Errorf("best tools (-want +got):\n%s\nall: %v", diff, describe(got))
			}
			if got[0].Reason != tc.wantReason {
				t.Errorf("reason of %s = %q, want %q", got[0].Tool.Name, got[0].Reason, tc.wantReason)
			}
			for i, r := range got {
				if !r.Scored || r.Score < DefaultMinScore || r.Score > 1 || r.Score != math.Round(r.Score*1e4)/1e4 {
					t.Errorf("%s: score %v, scored %v", r.Tool.Name, r.Score, r.Scored)
				}
				if i > 0 && (got[i-1].Score < r.Score || got[i-1].Score == r.Score && got[i-1].Tool.Name > r.Tool.Name) {
					t.Errorf("not sorted by score then name: %v", describe(got))
				}
			}
		})
	}
}

func describe(rs []Ranked) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n  %s %.4f %s", r.Tool.Name, r.Score, r.Reason)
	}
	return b.String()
}

func TestSelectRankDetails(t *testing.T) {
	ctx := context.Background()
	c := New(rankTools())

	t.Run("reason names the fields", func(t *testing.T) {
		got, _ := c.Select(ctx, Selection{Query: "weather in a city", Max: 1, Cap: true, MinScore: DefaultMinScore})
		if want := "matched weather (name, description, tag), city (description, argument, argument description)"; len(got) != 1 || got[0].Reason != want {
			t.Errorf("got %v, want get_weather with reason %q", describe(got), want)
		}
	})
	t.Run("nested arguments are searched", func(t *testing.T) {
		got, _ := c.Select(ctx, Selection{Query: "attachments filename", Policy: tools.Policy{AllowUnsafe: true}, Max: 3, Cap: true, MinScore: DefaultMinScore})
		if len(got) != 1 || got[0].Tool.Name != "send_email" {
			t.Errorf("got %v, want send_email", describe(got))
		}
	})
	t.Run("filters apply before ranking", func(t *testing.T) {
		got, _ := c.Select(ctx, Selection{Query: "delete a file", Max: 3, Cap: true, MinScore: DefaultMinScore})
		for _, r := range got {
			if r.Tool.Name == "delete_file" {
				t.Errorf("unsafe delete_file ranked without consent")
			}
		}
	})
	t.Run("min score", func(t *testing.T) {
		all, _ := c.Select(ctx, Selection{Query: "weather", MinScore: 0})
		if len(all) != 6 {
			t.Errorf("MinScore 0 keeps %d tools, want all 6 candidates: %v", len(all), describe(all))
		}
		some, _ := c.Select(ctx, Selection{Query: "weather", MinScore: 0.05})
		if len(some) != 2 {
			t.Errorf("MinScore 0.05 keeps %v, want the two weather tools", describe(some))
		}
	})
	t.Run("ties break by name", func(t *testing.T) {
		twins := New([]*tools.Tool{
			{Name: "b_lookup", Description: "Look up a word.", Safe: true},
			{Name: "a_lookup", Description: "Look up a word.", Safe: true},
			{Name: "c_other", Description: "Something else.", Safe: true},
		})
		got, _ := twins.Select(ctx, Selection{Query: "lookup word", Max: 3, Cap: true, MinScore: DefaultMinScore})
		if diff := cmp.Diff([]string{"a_lookup", "b_lookup"}, names(got)); diff != "" || got[0].Score != got[1].Score {
			t.Errorf("(-want +got):\n%s%s", diff, describe(got))
		}
	})
	t.Run("stop words only", func(t *testing.T) {
		var warned []string
		got, err := c.Select(ctx, Selection{Query: "what is it?", Max: 3, Cap: true, Warn: func(s string) { warned = append(warned, s) }})
		if err != nil || len(got) != 0 || len(warned) != 1 || !strings.Contains(warned[0], "no words to rank by") {
			t.Errorf("got %v, %v, warnings %q", describe(got), err, warned)
		}
	})
	t.Run("no match", func(t *testing.T) {
		got, _ := c.Select(ctx, Selection{Query: "zebra", Max: 3, Cap: true, MinScore: DefaultMinScore})
		if len(got) != 0 {
			t.Errorf("got %v for a word no tool has", describe(got))
		}
	})
}

// TestRankGolden shows ranked jsonl output for a few requests.
func TestRankGolden(t *testing.T) {
	c := New(rankTools())
	var out bytes.Buffer
	for _, q := range []string{"weather in Paris tomorrow", "convert 100 USD to EUR", "read the notes file"} {
		got, err := c.Select(context.Background(), Selection{Query: q, Max: DefaultMax, Cap: true, MinScore: DefaultMinScore})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "# %s\n", q)
		if err := Render(&out, c, got, RenderOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, filepath.Join("testdata", "rank", "queries.golden"), out.Bytes())
}

// TestIndexParallel: indexing split over CPUs gives exactly what one pass
// gives.
func TestIndexParallel(t *testing.T) {
	cands := syntheticTools(parallelMin * 3)
	q := newQuery("weather forecast for a city in celsius, and convert the currency")
	whole := indexTools(q, cands)
	lens := make([][numFields]int32, len(cands))
	one := indexRange(q, cands, 0, len(cands), lens, nil)
	if !slices.Equal(one, whole.hits) || !slices.Equal(lens, whole.lens) {
		t.Errorf("parallel index differs from a single pass")
	}
	if len(one) == 0 {
		t.Fatal("no hits: the synthetic tools do not use the query's words")
	}
}

var words = strings.Fields(`weather forecast city temperature wind rain file read write delete
	list search query database table row column user account email send message calendar
	event meeting time zone convert currency amount rate stock price chart image resize crop
	video audio transcribe translate language text summary note task project issue commit
	branch repository deploy server cluster node metric alert log trace span invoice payment
	order customer product inventory shipment route map distance location address geocode`)

// syntheticTools makes n tools with realistic sizes: a name of 2-3 words,
// a 12-word description, 2 tags and 3 arguments with descriptions.
func syntheticTools(n int) []*tools.Tool {
	ts := make([]*tools.Tool, n)
	w := func(i int) string { return words[(i*7919+13)%len(words)] }
	for i := range ts {
		var desc []string
		for j := range 12 {
			desc = append(desc, w(i*31+j*17))
		}
		props := []string{}
		for j := range 3 {
			props = append(props, fmt.Sprintf(`"%s_%s":{"type":"string","description":"The %s of the %s to use"}`, w(i+j), w(i*3+j), w(i*5+j), w(i*11+j)))
		}
		ts[i] = &tools.Tool{
			Name:        fmt.Sprintf("%s_%s_%d", w(i), w(i*13+1), i),
			Description: strings.Join(desc, " ") + ".",
			Tags:        []string{w(i * 2), w(i*2 + 1)},
			InputSchema: []byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[]}`),
			Safe:        true,
		}
	}
	return ts
}

// BenchmarkRank10k ranks 10,000 tools for one request, filtering included.
func BenchmarkRank10k(b *testing.B) {
	c := New(syntheticTools(10000))
	sel := Selection{Query: "what's the weather forecast for my city tomorrow, in celsius?", Max: DefaultMax, MinScore: DefaultMinScore}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Select(context.Background(), sel); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRank4kAsks ranks 4,000 tools for a request of about 100 words
// and five asks, as a chat message with several requests in it is.
func BenchmarkRank4kAsks(b *testing.B) {
	c := New(syntheticTools(4000))
	query := `Hi! I have a few things for you today, if you could help. First, what's the weather
forecast for my city tomorrow, and will there be rain in the afternoon? Then convert 250 US dollars
into euros at today's rate and add it to the invoice for the customer order we talked about.
Also, please search the database table of customer accounts for any email address that bounced
last week, and send a message to the project channel with a summary. Finally, resize the chart
image to half its size and attach it to the meeting event in my calendar.`
	sel := Selection{Query: query, Max: 10, MinScore: DefaultMinScore}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Select(context.Background(), sel); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRequestQuery(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "", want: ""},
		{in: "  weather in Paris\n", want: "weather in Paris"},
		{in: "[urgent] book a room", want: "[urgent] book a room"},
		{in: `{"query": "weather in Paris"}`, want: "weather in Paris"},
		{in: `{"prompt": "factorial of 5", "model": "x"}`, want: "factorial of 5"},
		{in: `"a JSON string"`, want: "a JSON string"},
		{in: `{"type":"user","content":"convert 5 USD"}`, want: "convert 5 USD"},
		{in: `{"type":"user","content":[{"type":"text","text":"part one"},{"type":"image_url"},{"type":"text","text":"part two"}]}`, want: "part one\npart two"},
		{in: `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"first"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"second"}]}]}`, want: "second"},
		{in: `[{"role":"user","content":"bare messages"}]`, want: "bare messages"},
		{in: "{\"type\":\"system\",\"content\":\"sys\"}\n{\"type\":\"user\",\"content\":\"one\"}\n{\"type\":\"assistant\",\"content\":\"two\"}\n{\"type\":\"user\",\"content\":\"three\"}\n{\"type\":\"tool_observation\",\"content\":\"x\"}\n", want: "three"},
		{in: `{"model":"x"}`, err: "request holds no query"},
		{in: `{"messages":[{"role":"assistant","content":"hi"}]}`, err: "request holds no query"},
		{in: "{\"query\": \"x\"}\nnot json", err: "request line 2 is not valid JSON"},
		{in: `{"query": "x"`, err: "request line 1 is not valid JSON"},
	} {
		got, err := RequestQuery([]byte(tc.in))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("RequestQuery(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("RequestQuery(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestSchemaScanner checks the fields the schema walk counts against a
// walk written apart, on the test tools and every BFCL schema, and that it
// survives cut-off schemas.
func TestSchemaScanner(t *testing.T) {
	var schemas []string
	for _, tool := range append(rankTools(), renderTools()...) {
		if tool.InputSchema != nil {
			schemas = append(schemas, string(tool.InputSchema))
		}
	}
	schemas = append(schemas,
		`{"properties":{"a\"b":{"description":"caf\u00e9 \"quoted\" words","enum":["x_y",1,null,"zed"]},"list":{"type":"array","items":{"properties":{"deep":{"properties":{"deeper":{"properties":{"too_deep":{}}}}}}}}}}`,
		`{"type":"object","properties":{}}`,
		`{"properties": { "spaced" : { "description" : "with spaces" } } }`,
		`{"properties":{"city":{"type":"string","description":"A city (e.g. Paris)","examples":["Lyon","Saint-Étienne",3]}}}`,
	)
	files, _ := filepath.Glob("../testdata/bfcl/BFCL_v4_*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			gjson.Get(line, "function.#.parameters").ForEach(func(_, p gjson.Result) bool {
				schemas = append(schemas, p.Raw)
				return true
			})
		}
	}
	if len(schemas) < 200 {
		t.Fatalf("only %d schemas read from the BFCL data", len(schemas))
	}
	q := newQuery("x")
	for _, s := range schemas {
		d := docScanner{q: q, counts: make([][numFields]uint16, 1)}
		d.emit = d.term
		d.schema(s)
		want := referenceLens(gjson.Get(s, "properties"), 1)
		if d.lens != want {
			t.Errorf("schema %s: field lengths %v, want %v", s, d.lens, want)
		}
	}
	// Cut-off JSON: no panic, no endless loop.
	long := schemas[len(schemas)-1]
	for _, s := range schemas[:8] {
		long += s
	}
	for i := range len(long) {
		d := docScanner{q: q, counts: make([][numFields]uint16, 1)}
		d.emit = d.term
		d.schema(long[:i])
	}
}

func referenceLens(props gjson.Result, depth int) (lens [numFields]int32) {
	count := func(f int, s string) {
		var z tokenizer
		z.each(s, func([]byte) { lens[f]++ })
	}
	props.ForEach(func(key, val gjson.Result) bool {
		count(fieldArg, key.String())
		val.ForEach(func(k, v gjson.Result) bool {
			var sub [numFields]int32
			switch {
			case k.String() == "description" && v.Type == gjson.String:
				eachExample(v.String(), func(part string, example bool) {
					if example {
						count(fieldExample, part)
					} else {
						count(fieldArgDesc, part)
					}
				})
			case k.String() == "examples" && v.IsArray():
				v.ForEach(func(_, e gjson.Result) bool {
					if e.Type == gjson.String {
						count(fieldExample, e.String())
					}
					return true
				})
			case k.String() == "enum" && v.IsArray():
				v.ForEach(func(_, e gjson.Result) bool {
					if e.Type == gjson.String {
						count(fieldArgDesc, e.String())
					}
					return true
				})
			case k.String() == "properties" && depth < schemaDepth:
				sub = referenceLens(v, depth+1)
			case k.String() == "items" && depth < schemaDepth && v.IsObject():
				sub = referenceLens(v.Get("properties"), depth+1)
			}
			for f := range sub {
				lens[f] += sub[f]
			}
			return true
		})
		return true
	})
	return lens
}

// TestRankLongDescription checks that one tool with a very long
// description does not drown name matches in every other tool: "commit"
// must still rank git_commit first.
func TestRankLongDescription(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"repo_path":{"type":"string"}}}`)
	ts := []*tools.Tool{
		{Name: "git_commit", Description: "Record changes to the repository.", Safe: true, InputSchema: schema},
		{Name: "git_log", Description: "Show the commit logs.", Safe: true, InputSchema: schema},
		{Name: "git_diff", Description: "Show changes between the working tree and a commit.", Safe: true, InputSchema: schema},
		{Name: "manual", Description: strings.Repeat("A long manual about many unrelated things and topics. ", 800), Safe: true, InputSchema: schema},
	}
	got, err := New(ts).Select(context.Background(), Selection{Query: "commit", Max: 3, Cap: true, MinScore: DefaultMinScore})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Tool.Name != "git_commit" {
		t.Errorf("ranking for commit: %v, want git_commit first", summary(got))
	}
}

// TestSelectAskedFor: a Max that is asked for (Cap unset) is a number of
// tools to offer, not only a bound.
func TestSelectAskedFor(t *testing.T) {
	ctx := context.Background()
	c := New(rankTools())
	// The safe, available candidates, in catalog order.
	safe := []string{"convertCurrency", "get_weather", "math.factorial", "notes_search", "read_file", "weather_forecast"}

	t.Run("a catalog no larger than Max is offered whole, in catalog order", func(t *testing.T) {
		for _, max := range []int{6, 10} {
			got, err := c.Select(ctx, Selection{Query: "weather in Paris", Max: max, MinScore: DefaultMinScore})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(safe, names(got)); diff != "" {
				t.Errorf("Max %d (-want +got):\n%s", max, diff)
			}
			// Each still says how well it fits.
			for _, r := range got {
				if !r.Scored || r.Reason == "" {
					t.Errorf("%s: scored %v, reason %q", r.Tool.Name, r.Scored, r.Reason)
				}
				if strings.Contains(r.Tool.Name, "weather") != (r.Score > 0) {
					t.Errorf("%s scores %v", r.Tool.Name, r.Score)
				}
			}
		}
	})
	t.Run("Max one short of the catalog still ranks", func(t *testing.T) {
		got, _ := c.Select(ctx, Selection{Query: "weather in Paris", Max: 5, MinScore: DefaultMinScore})
		if len(got) != 5 || got[0].Tool.Name != "get_weather" || got[1].Tool.Name != "weather_forecast" {
			t.Errorf("got %v, want the weather tools first and 5 in all", describe(got))
		}
	})
	t.Run("too few above the floor: the best of the rest fill up, and a warning says so", func(t *testing.T) {
		var warned []string
		got, err := c.Select(ctx, Selection{Query: "weather in Paris", Max: 3, MinScore: DefaultMinScore,
			Warn: func(s string) { warned = append(warned, s) }})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"get_weather", "weather_forecast"}, names(got)[:min(2, len(got))]); diff != "" || len(got) != 3 {
			t.Errorf("want the two weather tools first, 3 in all: %v", describe(got))
		}
		if len(got) == 3 && got[2].Score >= DefaultMinScore {
			t.Errorf("the third scores %v: it should be a filler", got[2].Score)
		}
		want := `2 of 6 tools scored 0.05 or more for query "weather in Paris"; offering 1 more, the best of the rest, to make up the 3 asked for`
		if len(warned) != 1 || warned[0] != want {
			t.Errorf("warnings %q, want %q", warned, want)
		}
	})
	t.Run("Cap keeps Max a bound", func(t *testing.T) {
		var warned []string
		got, _ := c.Select(ctx, Selection{Query: "weather in Paris", Max: 3, Cap: true, MinScore: DefaultMinScore,
			Warn: func(s string) { warned = append(warned, s) }})
		if diff := cmp.Diff([]string{"get_weather", "weather_forecast"}, names(got)); diff != "" || len(warned) != 0 {
			t.Errorf("(-want +got):\n%s\nwarnings %q", diff, warned)
		}
		got, _ = c.Select(ctx, Selection{Query: "weather in Paris", Max: 10, Cap: true, MinScore: DefaultMinScore})
		if diff := cmp.Diff([]string{"get_weather", "weather_forecast"}, names(got)); diff != "" {
			t.Errorf("a small catalog under Cap is ranked (-want +got):\n%s", diff)
		}
	})
	t.Run("nothing matches: filled all the same", func(t *testing.T) {
		var warned []string
		got, _ := c.Select(ctx, Selection{Query: "zebra", Max: 2, MinScore: DefaultMinScore,
			Warn: func(s string) { warned = append(warned, s) }})
		// All score 0, so ties break by name.
		if diff := cmp.Diff(safe[:2], names(got)); diff != "" || len(warned) != 1 || !strings.Contains(warned[0], "0 of 6 tools") {
			t.Errorf("(-want +got):\n%s\nwarnings %q", diff, warned)
		}
	})
	t.Run("no words to rank by: the first tools, and a warning", func(t *testing.T) {
		var warned []string
		got, err := c.Select(ctx, Selection{Query: "what is it?", Max: 2, MinScore: DefaultMinScore,
			Warn: func(s string) { warned = append(warned, s) }})
		if err != nil || len(warned) != 1 || !strings.Contains(warned[0], "offering the first 2 tools") {
			t.Errorf("err %v, warnings %q", err, warned)
		}
		if diff := cmp.Diff(safe[:2], names(got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestRankNonASCIIExample: an example value that starts with a letter
// outside ASCII ("(e.g. Émile Zola)") is read like any other word. The
// check that leaves numbers among examples out looked the first byte up in
// an ASCII table and panicked; Seal-Tools' catalog has such examples.
func TestRankNonASCIIExample(t *testing.T) {
	ts := []*tools.Tool{
		{Name: "get_author", Description: "Get an author's biography (e.g. Émile Zola, Ørsted, 1984)", InputSchema: []byte(`{"type":"object","properties":{"name":{"type":"string","description":"The author (e.g. Émile Zola)"}}}`)},
		{Name: "get_book", Description: "Get a book", InputSchema: []byte(`{"type":"object"}`)},
	}
	got, err := rankBM25("biography of Émile Zola", ts, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Tool.Name != "get_author" {
		t.Errorf("got %v, want get_author first", describe(got))
	}
}

// TestRankStatementsJoinTheirAsk: in a request of several asks, a
// sentence that tells rather than asks ("The book is titled ...") says
// more of the ask before it and takes no slot of its own, so each real
// ask's tool is offered.
func TestRankStatementsJoinTheirAsk(t *testing.T) {
	q := newQuery("Find a literary agent for my novel. The book is titled 'Clouds'. It is a mystery. Then update the price of the e-book.")
	if len(q.asks) != 2 {
		var texts []string
		for _, a := range q.asks {
			texts = append(texts, a.text)
		}
		t.Fatalf("asks %q, want 2: the statements join the first", texts)
	}
	for _, word := range []string{"titl", "mysteri"} {
		if i := q.find(word); i < 0 || !slices.Contains(q.asks[0].terms, i) {
			t.Errorf("%s is not in the first ask", word)
		}
	}
	// A request that is one statement is still one ask.
	if q := newQuery("The weather in Paris, please."); len(q.asks) != 1 || len(q.terms) == 0 {
		t.Errorf("one statement: %d asks, %d terms", len(q.asks), len(q.terms))
	}
}
