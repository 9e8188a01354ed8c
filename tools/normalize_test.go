package tools

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// aliasTool is a tool whose sidecar has aliases at every level.
func aliasTool(t testing.TB) *Tool {
	t.Helper()
	tool, _, err := ParseSidecar("tools/weather.json", []byte(`{
		"description": "Weather.",
		"input_schema": {"type": "object", "additionalProperties": false, "required": ["city"], "properties": {
			"city": {"type": "string"},
			"unit": {"enum": ["celsius", "fahrenheit"]},
			"filter": {"type": "object", "additionalProperties": false, "properties": {"query": {"type": "string"}}},
			"stops": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}}}}}},
		"aliases": {"loc": "city", "location": "city", "f": "filter", "/filter/q": "query", "/stops/*/n": "name"},
		"value_aliases": {"/unit": {"C": "celsius", "F": "fahrenheit"}, "/stops/*/unit": {"C": "celsius"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestNormalize(t *testing.T) {
	tool := aliasTool(t)
	for _, c := range []struct {
		name, args, want string
		rec              []Normalization
		collision        string // the error's pointer
	}{
		{name: "nothing to do", args: `{"city": "Paris", "unit": "celsius"}`, want: `{"city": "Paris", "unit": "celsius"}`},
		{name: "top level", args: `{"loc":"Paris","unit":"C"}`, want: `{"city":"Paris","unit":"celsius"}`,
			rec: []Normalization{{From: "/loc", To: "/city"}, {Pointer: "/unit", From: "C", To: `"celsius"`}}},
		{name: "nested under an alias", args: `{"city":"Paris","f":{"q":"rain"}}`, want: `{"city":"Paris","filter":{"query":"rain"}}`,
			rec: []Normalization{{From: "/f", To: "/filter"}, {From: "/filter/q", To: "/filter/query"}}},
		{name: "array items", args: `{"city":"P","stops":[{"n":"a","unit":"C"},{"name":"b"}]}`, want: `{"city":"P","stops":[{"name":"a","unit":"celsius"},{"name":"b"}]}`,
			rec: []Normalization{{From: "/stops/0/n", To: "/stops/0/name"}, {Pointer: "/stops/0/unit", From: "C", To: `"celsius"`}}},
		{name: "arguments as a JSON string", args: `"{\"loc\":\"Paris\"}"`, want: `{"city":"Paris"}`,
			rec: []Normalization{{From: "/loc", To: "/city"}}},
		{name: "an unknown value stays", args: `{"city":"P","unit":"K"}`, want: `{"city":"P","unit":"K"}`},
		{name: "not an object", args: `[1]`, want: `[1]`},
		{name: "not JSON", args: `{"loc":`, want: `{"loc":`},
		{name: "alias and property", args: `{"loc":"Paris","city":"Rome"}`, collision: "/loc"},
		{name: "two aliases", args: `{"city2":1,"location":"Paris","loc":"Rome"}`, collision: "/location"},
		{name: "an alias twice", args: `{"loc":"Paris","loc":"Rome"}`, collision: "/loc"},
		{name: "nested collision", args: `{"city":"P","filter":{"q":"a","query":"b"}}`, collision: "/filter/q"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, rec, err := tool.normalize([]byte(c.args))
			if c.collision != "" {
				if err == nil || err.Pointer != c.collision || err.Keyword != "duplicate" {
					t.Fatalf("normalize(%s) = %s, %v; want a collision at %s", c.args, got, err, c.collision)
				}
				return
			}
			if err != nil {
				t.Fatalf("normalize(%s): %v", c.args, err.Message)
			}
			if string(got) != c.want {
				t.Errorf("normalize(%s) = %s, want %s", c.args, got, c.want)
			}
			if diff := cmp.Diff(c.rec, rec); diff != "" {
				t.Errorf("normalize(%s) recorded (-want +got):\n%s", c.args, diff)
			}
		})
	}
}

// TestNormalizeLeavesOthersAlone: a tool without aliases gets its
// arguments back as the very same bytes.
func TestNormalizeLeavesOthersAlone(t *testing.T) {
	tool := &Tool{Name: "x", InputSchema: []byte(`{"type":"object"}`)}
	args := []byte(`{"q": 1}`)
	got, rec, err := tool.normalize(args)
	if &got[0] != &args[0] || rec != nil || err != nil {
		t.Errorf("normalize changed a tool without aliases: %s %v %v", got, rec, err)
	}
}

func TestValidateNormalized(t *testing.T) {
	set := newFakeSet([]*Tool{aliasTool(t)}, nil)
	in := callLine("call_1", "weather", `{"loc":"Paris","unit":"F"}`) +
		callLine("call_2", "weather", `{"loc":3}`) +
		callLine("call_3", "weather", `{"loc":"Paris","city":"Rome"}`)
	var out bytes.Buffer
	if _, err := Validate(context.Background(), strings.NewReader(in), &out, set, ValidateOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := `{"type":"tool_call","id":"call_1","name":"weather","arguments":{"city":"Paris","unit":"fahrenheit"},"validated":true,"normalized":[{"from":"/loc","to":"/city"},{"pointer":"/unit","from":"F","to":"fahrenheit"}]}`
	if lines[0] != want {
		t.Errorf("normalized call:\n got %s\nwant %s", lines[0], want)
	}
	// A refused call keeps its line before its observation.
	if msg := gjson.Get(lines[2], "content").Str; !strings.Contains(msg, "/city: expected string, got integer 3 (the call wrote it as /loc)") {
		t.Errorf("an error about a renamed property does not say what the call called it: %s", msg)
	}
	if msg := gjson.Get(lines[4], "content").Str; gjson.Get(lines[4], "error.kind").Str != "validation" ||
		!strings.Contains(msg, `/loc: "loc" is another name for "city", and the call also gives "city"; give the value once, as "city"`) {
		t.Errorf("a collision is not refused as the model's error: %s", lines[4])
	}
	// Validating again finds nothing left to normalize, and keeps the
	// first validate's record: the same line.
	var again bytes.Buffer
	if _, err := Validate(context.Background(), strings.NewReader(lines[0]+"\n"), &again, set, ValidateOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := lines[0]; strings.TrimSpace(again.String()) != want {
		t.Errorf("validate twice:\n got %s\nwant %s", again.String(), want)
	}
}

// TestExecNormalized: exec runs the tool with the normalized arguments,
// refs resolved after the aliases, and coercion on top.
func TestExecNormalized(t *testing.T) {
	dir := t.TempDir()
	tool := shTool(t, dir, "echo_args", "cat")
	tool.InputSchema = []byte(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}},"required":["text"],"additionalProperties":false}`)
	tool.Aliases = parseAliases(gjson.Parse(`{"t":"text","count":"n"}`), gjson.Result{}, func(f string, a ...any) { t.Fatalf(f, a...) })
	out, _, err := runExec(t, context.Background(), execSet{"echo_args": tool}, callLine("c1", "echo_args", `{"t":"hi","count":"2"}`), ExecOptions{Coerce: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"tool_call","id":"c1","name":"echo_args","arguments":{"text":"hi","n":2},"validated":true,"coerced":[{"pointer":"/n","from":"2","to":2}],"normalized":[{"from":"/t","to":"/text"},{"from":"/count","to":"/n"}]}`
	lines := strings.Split(out, "\n")
	if lines[0] != want {
		t.Errorf("call:\n got %s\nwant %s", lines[0], want)
	}
	if got := gjson.Get(lines[1], "content").Str; got != `{"text":"hi","n":2}` {
		t.Errorf("the tool got %s", got)
	}
}

func TestParseSidecarAliasErrors(t *testing.T) {
	for _, c := range []struct{ extra, want string }{
		{`"aliases": ["q"]`, `"aliases" must be an object`},
		{`"aliases": {"q": 1}`, `"aliases": "q" must map to the property's name as a string`},
		{`"aliases": {"q": "q"}`, `"aliases": "q" maps to itself`},
		{`"aliases": {"q": "query", "/q": "query"}`, `"aliases": "/q" is given twice`},
		{`"aliases": {"/a/q": "/b/query"}`, `an alias renames a property within its object`},
		{`"value_aliases": {"/unit": "C"}`, `"value_aliases": "/unit" must map to an object`},
		{`"value_aliases": []`, `"value_aliases" must be an object`},
		{`"max_calls": 0`, `"max_calls" must be a whole number of calls, 1 or more`},
		{`"max_calls": 1.5`, `"max_calls" must be a whole number`},
		{`"max_calls": "3"`, `"max_calls" must be a whole number`},
	} {
		_, _, err := ParseSidecar("t.json", []byte(`{"description": "d", "input_schema": {"type": "object"}, `+c.extra+`}`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.extra, err, c.want)
		}
	}
	tool, _, err := ParseSidecar("t.json", []byte(`{"description": "d", "input_schema": {"type": "object"}, "aliases": {"/a~1b/q": "/a~1b/query"}, "max_calls": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []NameAlias{{Key: "/a~1b/q", Parent: "/a~1b", From: "q", To: "query", parentPointers: []string{"a/b"}}}; !cmp.Equal(tool.Aliases.Names, want, cmp.AllowUnexported(NameAlias{})) {
		t.Errorf("aliases: %+v", tool.Aliases.Names)
	}
	if tool.MaxCalls != 3 {
		t.Errorf("max_calls: %d", tool.MaxCalls)
	}
}

func TestAliasProblems(t *testing.T) {
	if ps := aliasTool(t).AliasProblems(); len(ps) > 0 {
		t.Errorf("good aliases reported: %q", ps)
	}
	tool, _, err := ParseSidecar("t.json", []byte(`{"description": "d",
		"input_schema": {"type": "object", "$defs": {"u": {"enum": ["celsius", "fahrenheit"]}},
			"properties": {"city": {"type": "string"}, "unit": {"$ref": "#/$defs/u"}, "list": {"type": "array", "prefixItems": [{"type": "object", "properties": {"name": {"type": "string"}}}]}}},
		"aliases": {"loc": "town", "/nothere/q": "x", "city": "unit", "/list/0/n": "name", "/list/*/m": "nom"},
		"value_aliases": {"/unit": {"C": "celsius", "K": "kelvin", "celsius": "fahrenheit"}, "/city": {"P": "Paris"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`aliases: "loc" -> "town": "town" is not a property of the arguments in the input schema; point each alias at a property the schema defines`,
		`aliases: "/nothere/q": the input schema has nothing at /nothere; write the pointer with the schema's property names`,
		`aliases: "city" is itself a property of the arguments in the input schema, so calls that give it could not be told apart; remove the alias`,
		`aliases: "/list/*/m" -> "nom": "nom" is not a property of /list/* in the input schema; point each alias at a property the schema defines`,
		`value_aliases: "/unit": "K" -> "kelvin": "kelvin" is not one of the schema's values there; map each alias to a value of the enum`,
		`value_aliases: "/unit": "celsius" is itself one of the schema's values there, so the alias would change a valid call; remove it`,
		`value_aliases: "/city": the input schema has no "enum" or "const" at /city; value aliases stand for enum values`,
	}
	if diff := cmp.Diff(want, tool.AliasProblems()); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	noSchema := &Tool{Name: "n", Aliases: tool.Aliases}
	if ps := noSchema.AliasProblems(); len(ps) != 1 {
		t.Errorf("aliases without a schema: %q", ps)
	}
}

// FuzzNormalize: whatever the arguments, normalizing gives valid JSON for
// valid JSON, and a second pass over its output changes nothing.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{`{"loc":"Paris","unit":"C"}`, `{"city":"P","f":{"q":"x"},"stops":[{"n":"a","unit":"C"}]}`,
		`"{\"location\":\"x\"}"`, `{"loc":1,"city":2}`, `{"stops":{"0":{"n":1}}}`, `{"f":[{"q":1}]}`, `{"loc":"\u00e9\ud800"}`} {
		f.Add(s)
	}
	tool := aliasTool(f)
	f.Fuzz(func(t *testing.T, args string) {
		out, rec, err := tool.normalize([]byte(args))
		if err != nil || len(rec) == 0 {
			return
		}
		if !gjson.ValidBytes(out) {
			t.Fatalf("normalize(%s) = %s, not JSON", args, out)
		}
		again, rec2, err2 := tool.normalize(out)
		if err2 != nil || len(rec2) > 0 || !bytes.Equal(again, out) {
			t.Fatalf("normalize(%s) = %s; again: %s %v %v", args, out, again, rec2, err2)
		}
	})
}
