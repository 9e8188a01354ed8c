package parse

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spelling writes a tag of markup never seen before: its word, its
// attributes ("" for none), opening or closing.
type spelling struct {
	name string
	tag  func(word, attrs string, closing bool) string
}

func plainTag(open, close string) func(string, string, bool) string {
	return func(word, attrs string, closing bool) string {
		if closing {
			return open + "/" + word + close
		}
		if attrs != "" {
			return open + word + " " + attrs + close
		}
		return open + word + close
	}
}

// spellings are the ways of writing a tag the generic reader must read:
// the brackets models use, namespaces, tokenizer residue, a dropped space.
var spellings = []spelling{
	{"angle", plainTag("<", ">")},
	{"bars", plainTag("<|", "|>")},
	{"fullwidth", plainTag("<｜", "｜>")},
	{"guillemets", plainTag("‹", "›")},
	{"brackets", plainTag("[", "]")},
	{"ns_colon", func(w, a string, c bool) string { return plainTag("<", ">")("acme:"+w, a, c) }},
	{"ns_fullwidth", func(w, a string, c bool) string {
		if c {
			return "</｜ACME｜" + w + ">"
		}
		return plainTag("<", ">")("｜ACME｜"+w, a, c)
	}},
	{"suffix", func(w, a string, c bool) string { return plainTag("<", ">")(w+":v2", a, c) }},
	{"residue_G", func(w, a string, c bool) string {
		if c {
			return "</Ġ" + w + ">"
		}
		if a != "" {
			return "<Ġ" + w + "Ġ" + a + ">"
		}
		return "<Ġ" + w + ">"
	}},
	{"residue_u0120", func(w, a string, c bool) string {
		if c {
			return "</" + w + ">"
		}
		return plainTag("<", ">")(`\u0120`+w, a, c)
	}},
	{"residue_underscore_block", func(w, a string, c bool) string {
		if c {
			return "</▁" + w + ">"
		}
		if a != "" {
			return "<▁" + w + "▁" + a + ">"
		}
		return "<▁" + w + ">"
	}},
	{"dropped_space", func(w, a string, c bool) string {
		if c {
			return "</" + w + ">"
		}
		return "<" + w + a + ">"
	}},
}

// genTools are the tools the generated calls call, with their schemas.
var genTools = map[string]map[string]string{
	"get_weather": {"city": "string", "days": "integer", "metric": "boolean"},
	"search_web":  {"query": "string", "limit": "integer"},
}

type genCall struct {
	name string
	args [][2]string // key, value as text
}

// shapes render calls in each shape the generic reader reads, with the
// tags of one spelling.
var shapes = []struct {
	name   string
	render func(s spelling, c genCall) string
}{
	{"params_attr", func(s spelling, c genCall) string {
		out := s.tag("invoke", `name="`+c.name+`"`, false)
		for _, kv := range c.args {
			out += "\n" + s.tag("parameter", `name="`+kv[0]+`"`, false) + kv[1] + s.tag("parameter", "", true)
		}
		return out + "\n" + s.tag("invoke", "", true)
	}},
	{"params_eq", func(s spelling, c genCall) string {
		if s.name == "dropped_space" {
			s = spellings[0] // nothing to drop in <function=f>
		}
		out := strings.Replace(s.tag("function", "=", false), " =", "=", 1)
		out = strings.Replace(out, "=", "="+c.name, 1)
		for _, kv := range c.args {
			p := strings.Replace(s.tag("parameter", "=", false), " =", "=", 1)
			out += strings.Replace(p, "=", "="+kv[0], 1) + "\n" + kv[1] + "\n" + s.tag("parameter", "", true)
		}
		return out + s.tag("function", "", true)
	}},
	{"kv", func(s spelling, c genCall) string {
		out := s.tag("tool_call", "", false) + c.name
		for _, kv := range c.args {
			out += s.tag("arg_key", "", false) + kv[0] + s.tag("arg_key", "", true) + s.tag("arg_value", "", false) + kv[1] + s.tag("arg_value", "", true)
		}
		return out + s.tag("tool_call", "", true)
	}},
	{"json", func(s spelling, c genCall) string {
		return s.tag("tool_call", "", false) + `{"name": "` + c.name + `", "arguments": ` + jsonArgs(c) + `}` + s.tag("tool_call", "", true)
	}},
	{"name_json", func(s spelling, c genCall) string {
		return s.tag("tool_call", "", false) + c.name + " " + jsonArgs(c) + s.tag("tool_call", "", true)
	}},
	{"python_list", func(s spelling, c genCall) string {
		py := strings.NewReplacer(`"`, `'`, "true", "True", "false", "False").Replace(jsonArgs(c))
		return s.tag("tool_list", "", false) + `[{'name': '` + c.name + `', 'arguments': ` + py + `}]` + s.tag("tool_list", "", true)
	}},
}

func jsonArgs(c genCall) string {
	var b strings.Builder
	b.WriteByte('{')
	for k, kv := range c.args {
		if k > 0 {
			b.WriteString(", ")
		}
		v := kv[1]
		if genTools[c.name][kv[0]] == "string" {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, "%q: %s", kv[0], v)
	}
	b.WriteByte('}')
	return b.String()
}

// want is the arguments object a call's text values read as.
func (c genCall) want() map[string]any {
	m := map[string]any{}
	for _, kv := range c.args {
		var v any = kv[1]
		if genTools[c.name][kv[0]] != "string" {
			if err := json.Unmarshal([]byte(kv[1]), &v); err != nil {
				panic(err)
			}
		}
		m[kv[0]] = v
	}
	return m
}

func randomCall(rng *rand.Rand) genCall {
	words := []string{"Paris", "new york", "cheap flights", "Zürich", "a-b c", "北京", "x"}
	if rng.IntN(2) == 0 {
		c := genCall{name: "get_weather", args: [][2]string{{"city", words[rng.IntN(len(words))]}}}
		if rng.IntN(2) == 0 {
			c.args = append(c.args, [2]string{"days", fmt.Sprint(rng.IntN(30))})
		}
		if rng.IntN(2) == 0 {
			c.args = append(c.args, [2]string{"metric", fmt.Sprint(rng.IntN(2) == 0)})
		}
		return c
	}
	return genCall{name: "search_web", args: [][2]string{{"query", words[rng.IntN(len(words))]}, {"limit", fmt.Sprint(1 + rng.IntN(9))}}}
}

func genOptions() Options {
	return Options{
		KnownTool: func(n string) bool { _, ok := genTools[n]; return ok },
		ParamType: func(tool, p string) string { return genTools[tool][p] },
	}
}

// gotCalls returns the tool_call events in out, and fails on any
// parse_error.
func gotCalls(t *testing.T, out string) []map[string]any {
	t.Helper()
	var calls []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		if ev["type"] == "tool_call" {
			calls = append(calls, ev)
		}
	}
	return calls
}

// TestGenericSpellings: calls in every shape, written in every spelling
// of markup no family writes, with prose around them, come out as the
// calls they are, whole and cut anywhere, and no markup is left as text.
func TestGenericSpellings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	opts := genOptions()
	for _, sp := range spellings {
		for _, sh := range shapes {
			t.Run(sp.name+"/"+sh.name, func(t *testing.T) {
				calls := []genCall{randomCall(rng), randomCall(rng)}
				in := "Let me check that.\n" + sh.render(sp, calls[0]) + "\n" + sh.render(sp, calls[1]) + "\nDone."
				whole := parseAll(t, []byte(in), opts, nil)
				checkEvents(t, whole)
				got := gotCalls(t, whole)
				if len(got) != len(calls) {
					t.Fatalf("%d calls, want %d:\n%s\nin:\n%s", len(got), len(calls), whole, in)
				}
				for k, c := range calls {
					g, _ := json.Marshal(got[k]["arguments"])
					w, _ := json.Marshal(c.want())
					if got[k]["name"] != c.name || string(g) != string(w) {
						t.Errorf("call %d: %s %s, want %s %s\nin:\n%s", k, got[k]["name"], g, c.name, w, in)
					}
				}
				if strings.Contains(whole, `"type":"parse_error"`) {
					t.Errorf("a parse_error:\n%s", whole)
				}
				for _, line := range strings.Split(whole, "\n") {
					if strings.Contains(line, `"type":"text"`) && strings.ContainsAny(line, "<[‹") {
						t.Errorf("markup left as text: %s", line)
					}
				}
				for cut := 1; cut < len(in); cut++ {
					if got := parseAll(t, []byte(in), opts, []int{cut, len(in)}); got != whole {
						t.Fatalf("cut at %d changes the events:\nwhole:\n%s\ncut:\n%s", cut, whole, got)
					}
				}
			})
		}
	}
}

// TestGenericProseNeverACall: with known tools, prose that names them
// without call markup, and markup that is not a call's (links, HTML,
// bracketed asides), is never a call, whole or cut.
func TestGenericProseNeverACall(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	opts := genOptions()
	words := []string{"get_weather", "search_web", "the", "tool", "call", "invoke", "function", "name=", "city", "Paris", "arguments", "value", "key", "and", "then", "it’s", "“quoted”", "‹aside", "›", ":", ";", ",", ".", "-", "\n", "→", "functions.get_weather", "call:search_web"}
	markup := []string{"<b>get_weather</b>", "<p>search_web</p>", `<a href="get_weather">x</a>`, `<div class="search_web">`, "[get_weather]", "[see search_web]", "‹search_web›", "<tool>get_weather is a tool</tool>", "<em>call</em>", "<br>"}
	for n := range 300 {
		var b strings.Builder
		for k := rng.IntN(40); k >= 0; k-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
			if n%2 == 1 && rng.IntN(6) == 0 {
				b.WriteString(markup[rng.IntN(len(markup))])
			}
		}
		in := b.String()
		whole := parseAll(t, []byte(in), opts, nil)
		if strings.Contains(whole, `"type":"tool_call"`) || strings.Contains(whole, `"type":"parse_error"`) {
			t.Fatalf("prose read as a call:\n%s\nin: %q", whole, in)
		}
		cut := 1 + rng.IntN(len(in))
		if got := parseAll(t, []byte(in), opts, []int{cut, len(in)}); got != whole {
			t.Fatalf("cut at %d changes the events:\nwhole:\n%s\ncut:\n%s", cut, whole, got)
		}
	}
}

// TestGenericNeedsKnownTools: without --tools (or with --format) the
// same markup is never read generically.
func TestGenericNeedsKnownTools(t *testing.T) {
	in := `<ĠinvokeĠname="get_weather"><ĠparameterĠname="city">Paris</Ġparameter></Ġinvoke>`
	for _, opts := range []Options{{}, {Format: FormatHermes, KnownTool: genOptions().KnownTool}} {
		if out := parseAll(t, []byte(in), opts, nil); strings.Contains(out, "generic_") {
			t.Errorf("read generically with %+v:\n%s", opts, out)
		}
	}
}

// Lenient where one reading exists (item 4 of issue 38): each of these
// reads, marked repaired with the repair named; --no-repair refuses it.
func TestGenericLenient(t *testing.T) {
	for _, tc := range []struct{ in, args, repair string }{
		// A parameter's end marker left out right before the call's end.
		{`<acme:invoke name="get_weather"><acme:parameter name="city">Paris</acme:invoke>`, `{"city":"Paris"}`, "missing_closing_tag"},
		// The last argument cut by the call's end marker.
		{"<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Oslo</ifm|tool_call>", `{"city":"Oslo"}`, "missing_closing_tag"},
		// A closing tag spelled with the opening tag's residue.
		{`<ĠinvokeĠname="get_weather"><parameter name="days">2</parameter></Ġinvoke>`, `{"days":2}`, "tag_spelling"},
	} {
		out := parseAll(t, []byte(tc.in), genOptions(), nil)
		if !strings.Contains(out, `"arguments":`+tc.args) || !strings.Contains(out, `"repairs":["`+tc.repair+`"]`) {
			t.Errorf("%q: want arguments %s repaired with %s:\n%s", tc.in, tc.args, tc.repair, out)
		}
		strict := genOptions()
		strict.NoRepair = true
		if out := parseAll(t, []byte(tc.in), strict, nil); strings.Contains(out, `"repaired"`) || !strings.Contains(out, "parse_error") {
			t.Errorf("--no-repair %q: want a parse_error:\n%s", tc.in, out)
		}
	}
	// Two readings: a call to a known tool that does not read is a
	// parse_error naming it, never prose and never a guess.
	for _, in := range []string{
		`<acme:invoke name="get_weather"><acme:parameter name="city">Paris<acme:parameter name="days">2</acme:invoke>`,
		"<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Oslo<ifm|arg_key>days</ifm|arg_key><ifm|arg_value>2</ifm|arg_value></ifm|tool_call>",
		`<acme:invoke name="get_weather"><acme:parameter name="city">Paris</acme:parameter><junk>x</acme:invoke>`,
		`<acme:invoke name="get_weather"><acme:parameter name="city">Par`,
	} {
		out := parseAll(t, []byte(in), genOptions(), nil)
		if strings.Contains(out, `"type":"tool_call"`) || !strings.Contains(out, `parse_error`) || !strings.Contains(out, `get_weather`) {
			t.Errorf("%q: want a parse_error naming get_weather:\n%s", in, out)
		}
	}
}

// FuzzGeneric: with known tools, the generic reader never panics, writes
// only events a reader can read, and its events do not depend on where
// the input is cut.
func FuzzGeneric(f *testing.F) {
	files, _ := filepath.Glob("testdata/generic/*.jsonl")
	for _, file := range files {
		fh, err := os.Open(file)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var c genericCase
			if json.Unmarshal(sc.Bytes(), &c) == nil {
				f.Add([]byte(c.Input), uint16(len(c.Input)/2))
			}
		}
		fh.Close()
	}
	opts := genOptions()
	known := opts.KnownTool
	opts.KnownTool = func(n string) bool {
		return known(n) || n == "f" || n == "search" || n == "lookup" || n == "get_current_weather"
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		whole := parseAll(t, in, opts, nil)
		checkEvents(t, whole)
		cut := int(split) % (len(in) + 1)
		if got := parseAll(t, in, opts, []int{max(cut, 1), len(in)}); got != whole {
			t.Fatalf("split at %d changes the events:\nwhole:\n%s\nsplit:\n%s", cut, whole, got)
		}
		// The readers alone, on any bytes, whole and cut.
		var p Parser
		p.opts = opts
		p.readGeneric(in, true, true)
		p.readGeneric(in[:cut], false, false)
	})
}

// The body readers with fixed markers, as a format file's body kinds
// call them (DESIGN.md §4a): the same readers the generic reader finds
// the markers for.
func TestGenericReadersFixedMarkers(t *testing.T) {
	ctx := &readCtx{tool: "get_weather", ptype: genOptions().ParamType}
	var a argsBuilder
	a.reset()
	params := []byte(`<arg name="city">Paris</arg><arg name="days" unit="d">3</arg></invoke>`)
	end, st, msg := readParams(params, 0, true, paramTags{Open: `<arg name="`, KeyEnd: `"`, TagEnd: ">", Close: "</arg>"}, []string{"</invoke>"}, ctx, &a)
	if st != matched || msg != "" || string(params[end:]) != "</invoke>" || string(a.done()) != `{"city":"Paris","days":3}` {
		t.Errorf("readParams: %s, stopped at %q, %v %q", a.done(), params[end:], st, msg)
	}
	a.reset()
	kv := []byte("<k>city</k><v>Oslo</v>\n<k>days</k><v>2</v></call>")
	end, st, msg = readKV(kv, 0, true, kvTags{Key: "<k>", KeyEnd: "</k>", Value: "<v>", ValueEnd: "</v>"}, []string{"</call>"}, ctx, &a)
	if st != matched || msg != "" || string(kv[end:]) != "</call>" || string(a.done()) != `{"city":"Oslo","days":2}` {
		t.Errorf("readKV: %s, stopped at %q, %v %q", a.done(), kv[end:], st, msg)
	}
	args, end, _, st, msg := readNameJSON([]byte(`{"city": 'Rome'}</call>`), 0, true, ctx)
	if st != matched || msg != "" || end != 16 || string(args) != `{"city":"Rome"}` {
		t.Errorf("readNameJSON: %s, end %d, %v %q", args, end, st, msg)
	}
	calls, end, st, ok := readJSONCalls([]byte(`[{"tool": "get_weather", "input": {"city": "Rome"}}]</x>`), 0, true, genOptions().KnownTool, false)
	if !ok || st != matched || end != 52 || len(calls) != 1 || calls[0].name != "get_weather" || string(calls[0].args) != `{"city":"Rome"}` {
		t.Errorf("readJSONCalls: %+v, end %d, %v", calls, end, st)
	}
	// Cut off: more input is waited for, and at the end it is an error.
	a.reset()
	if _, st, _ := readParams(params[:20], 0, false, paramTags{Open: `<arg name="`, KeyEnd: `"`, TagEnd: ">", Close: "</arg>"}, []string{"</invoke>"}, ctx, &a); st != needMore {
		t.Errorf("readParams on a cut input: %v, want needMore", st)
	}
	a.reset()
	if _, _, msg := readParams(params[:20], 0, true, paramTags{Open: `<arg name="`, KeyEnd: `"`, TagEnd: ">", Close: "</arg>"}, []string{"</invoke>"}, ctx, &a); msg == "" {
		t.Error("readParams at the end of a cut input: no error")
	}
}
