package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/internal/golden"
)

// renderedCall is a call a test renders with a spec's markers.
type renderedCall struct {
	name string
	args [][2]string // key, value as JSON
}

// render writes calls as a model of the family s would.
func render(s *Spec, calls []renderedCall) string {
	var b strings.Builder
	if s.Section != nil {
		b.WriteString(s.Section.Start)
	}
	if s.Lines {
		// One block, a call a line.
		b.WriteString(s.Call.Start)
		for _, c := range calls {
			fmt.Fprintf(&b, "\n{%q: %q, %q: %s}", s.nameKeys()[0], c.name, s.argumentsKeys()[0], jsonObject(c.args))
		}
		b.WriteString("\n" + s.Call.End)
		return b.String()
	}
	for _, c := range calls {
		b.WriteString(s.Call.Start)
		if s.Call.NameStart != "" && s.Body != BodyBrace {
			b.WriteString("id7 " + s.Call.NameStart)
		}
		switch s.Body {
		case BodyBrace:
			// Before each call's name, not an id's end.
			var args []string
			for _, a := range c.args {
				v := a[1]
				if strings.HasPrefix(v, `"`) {
					v = s.StringQuote + textValue(v) + s.StringQuote
				}
				args = append(args, a[0]+":"+v)
			}
			b.WriteString(s.Call.NameStart + c.name + "{" + strings.Join(args, ",") + "}")
		case BodyJSON:
			if s.NameIsKey {
				fmt.Fprintf(&b, `{%q: %s}`, c.name, jsonObject(c.args))
				break
			}
			if s.Call.Word {
				// functools[…]: the word, then a list.
				fmt.Fprintf(&b, `[{%q: %q, %q: %s}]`, s.nameKeys()[0], c.name, s.argumentsKeys()[0], jsonObject(c.args))
				break
			}
			fmt.Fprintf(&b, `{%q: %q, %q: %s}`, s.nameKeys()[0], c.name, s.argumentsKeys()[0], jsonObject(c.args))
		case BodyNameJSON:
			name := s.Call.NamePrefix + c.name
			if s.Call.IndexSep != "" {
				name += s.Call.IndexSep + "1"
			}
			if s.Call.IDStart != "" {
				name += s.Call.IDStart + "id7"
			}
			if s.Fenced {
				b.WriteString(name + s.Call.NameEnd + "```json\n" + jsonObject(c.args) + "\n```")
				break
			}
			b.WriteString(name + s.Call.NameEnd + jsonObject(c.args))
		case BodyPythonic:
			var args []string
			for _, a := range c.args {
				args = append(args, a[0]+"="+a[1])
			}
			if s.Fenced {
				b.WriteString("```python\n" + c.name + "(" + strings.Join(args, ", ") + ")\n```")
				break
			}
			if s.Call.NoEnd {
				b.WriteString(c.name + s.Call.NameSuffix + "(" + strings.Join(args, ", ") + ")")
				break
			}
			b.WriteString("[" + c.name + "(" + strings.Join(args, ", ") + ")]")
		case BodyParams:
			if s.Call.Attribute {
				b.WriteString(`"` + c.name + `"` + orTagEnd(s.Call.TagEnd))
			} else {
				b.WriteString(c.name + s.Call.NameEnd)
			}
			for _, a := range c.args {
				v := textValue(a[1])
				if s.Param.Wrapped {
					v = "\n" + v + "\n"
				}
				b.WriteString(s.Param.Start + s.Param.key(a[0]) + v + s.Param.End)
			}
		case BodyKV:
			b.WriteString(c.name + s.Call.NameEnd)
			for _, a := range c.args {
				b.WriteString(s.Key.Start + a[0] + s.Key.End + s.Value.Start + textValue(a[1]) + s.Value.End)
			}
		}
		b.WriteString(s.Call.End)
	}
	if s.Section != nil {
		b.WriteString(s.Section.End)
	}
	return b.String()
}

func jsonObject(args [][2]string) string {
	var m []string
	for _, a := range args {
		m = append(m, fmt.Sprintf("%q: %s", a[0], a[1]))
	}
	return "{" + strings.Join(m, ", ") + "}"
}

// textValue is a JSON value as a tagged format writes it: a string bare.
func textValue(v string) string {
	var s string
	if json.Unmarshal([]byte(v), &s) == nil {
		return s
	}
	return v
}

// wantCall is the event a rendered call must give.
func wantCall(id int, c renderedCall, format string) string {
	return fmt.Sprintf(`{"type":"tool_call","id":"call_%d","name":%q,"arguments":%s,"format":%q}`, id, c.name, compactJSON(jsonObject(c.args)), format)
}

func compactJSON(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.String()
}

// fileSpecs are the format files in testdata/formatfiles.
func fileSpecs(t *testing.T) []*Spec {
	t.Helper()
	files, err := filepath.Glob("testdata/formatfiles/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no format files in testdata/formatfiles: %v", err)
	}
	var ss []*Spec
	for _, f := range files {
		s, err := LoadFormatFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss
}

// everySpec is every family with a file form: the built-in ones, each
// under an id of its own (so that the spec's reading, not the built-in
// code, reads it), and the format files.
func everySpec(t *testing.T) []*Spec {
	var ss []*Spec
	for _, s := range Specs() {
		if s.FileForm() {
			s.Format = "spec_" + s.Format
			ss = append(ss, s)
		}
	}
	return append(ss, fileSpecs(t)...)
}

var roundTripCalls = []renderedCall{
	{"get_weather", [][2]string{{"city", `"Zürich old town"`}, {"days", "3"}, {"metric", "true"}}},
	{"list_files", nil},
	{"search", [][2]string{{"q", `"tool calls"`}, {"limit", "-2.5"}}},
}

// TestSpecRoundTrip renders calls with every spec's markers, between
// prose, and reads them back: whole, and cut in two at every byte.
func TestSpecRoundTrip(t *testing.T) {
	for _, s := range everySpec(t) {
		t.Run(s.Format, func(t *testing.T) {
			opts := Options{Formats: []*Spec{s}}
			for n := 1; n <= len(roundTripCalls); n++ {
				calls := roundTripCalls[:n]
				if s.Section == nil && !s.Lines && n > 1 {
					calls = calls[n-1:] // one call a block, several blocks below
				}
				in := "Let me check.\n" + render(s, calls) + "\nDone."
				var want []string
				want = append(want, `{"type":"text","content":"Let me check.\n"}`)
				for k, c := range calls {
					want = append(want, wantCall(k+1, c, s.Format))
				}
				want = append(want, `{"type":"text","content":"\nDone."}`)
				wantOut := strings.Join(want, "\n") + "\n"
				got := parseAll(t, []byte(in), opts, nil)
				if got != wantOut {
					t.Fatalf("%q:\n%s", in, cmp.Diff(wantOut, got))
				}
				if id, ok := strings.CutPrefix(s.Format, "spec_"); ok {
					// The built-in family's own code reads the same calls
					// and text; which of the formats sharing its tags it
					// names (a lone object in <tool_calls> is MiniMax M1's)
					// is its own to say.
					want := noFormat(wantOut)
					if got := noFormat(parseAll(t, []byte(in), Options{}, nil)); got != want {
						t.Errorf("built-in %s read %q as:\n%s", id, in, cmp.Diff(want, got))
					}
				}
				for cut := 1; cut < len(in); cut++ {
					if got := parseAll(t, []byte(in), opts, []int{cut, len(in)}); got != wantOut {
						t.Fatalf("%q cut at %d:\n%s", in, cut, cmp.Diff(wantOut, got))
					}
				}
			}
		})
	}
}

// TestSpecProse: prose that holds no marker is never a call, whatever
// the family.
func TestSpecProse(t *testing.T) {
	prose := []string{
		"I would call get_weather(city=\"Paris\") but I will not.",
		`The object {"name": "get_weather", "arguments": {"city": "Paris"}} is an example.`,
		"<b>bold</b> and [link](x) and a < b > c, [1, 2, 3].\n[get_weather]",
		"get_weather\n<k>city</k><v>Paris</v>",
	}
	for _, s := range everySpec(t) {
		opts := Options{Formats: []*Spec{s}}
		for _, p := range prose {
			if got := parseAll(t, []byte(p), opts, nil); strings.Contains(got, `"tool_call"`) || strings.Contains(got, `"parse_error"`) {
				t.Errorf("%s: prose %q read as:\n%s", s.Format, p, got)
			}
		}
		// A call marker the output ends on, with nothing after it: no
		// call of this family was written. (Another family may read the
		// same text as a header it began: DeepSeek V3.1 reads R1's
		// <｜tool▁call▁begin｜>function<｜tool▁sep｜> as a call to
		// "function" cut off after its name.)
		for _, p := range []string{"Done. " + s.Call.Start, "Done. " + s.Call.Start + " \n"} {
			if got := parseAll(t, []byte(p), opts, nil); strings.Contains(got, `"tool_call"`) || strings.Contains(got, `"format":"`+s.Format+`"`) {
				t.Errorf("%s: prose %q read as:\n%s", s.Format, p, got)
			}
		}
	}
	// Every built-in family, those read by code of their own too, looked
	// for alone (--format ID).
	for _, s := range Specs() {
		opts := Options{Format: s.Format}
		for _, p := range prose {
			if got := parseAll(t, []byte(p), opts, nil); strings.Contains(got, `"tool_call"`) || strings.Contains(got, `"parse_error"`) {
				t.Errorf("--format %s: prose %q read as:\n%s", s.Format, p, got)
			}
		}
	}
}

// TestFormatFileFixtures reads testdata/formatfiles/NAME.txt with the
// format file NAME.json and compares the events with NAME.jsonl: whole,
// and in pieces of every size up to 40.
func TestFormatFileFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/formatfiles/*.txt")
	if len(files) < 2 {
		t.Fatal("want at least two fixtures in testdata/formatfiles")
	}
	for _, file := range files {
		name := strings.TrimSuffix(file, ".txt")
		t.Run(filepath.Base(name), func(t *testing.T) {
			s, err := LoadFormatFile(name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Formats: []*Spec{s}}
			want := parseAll(t, in, opts, nil)
			checkEvents(t, want)
			golden.Check(t, name+".jsonl", []byte(want))
			for size := 1; size <= 40; size++ {
				if got := parseAll(t, in, opts, []int{size}); got != want {
					t.Fatalf("in pieces of %d:\n%s", size, cmp.Diff(want, got))
				}
			}
		})
	}
}

// TestShowFormatRoundTrip: a spec written as a format file reads back as
// the same spec, and a built-in family's reads its own example as the
// built-in code does.
func TestShowFormatRoundTrip(t *testing.T) {
	for _, s := range append(Specs(), fileSpecs(t)...) {
		if !s.FileForm() {
			continue
		}
		b, err := MarshalSpec(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseFormatFile(s.Format+".json", b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.Format, err, b)
		}
		back.Source, back.Code = s.Source, s.Code
		if !reflect.DeepEqual(back, s) {
			t.Errorf("%s: read back as\n%+v\nwant\n%+v", s.Format, back, s)
		}
		if s.Source != "built-in" || s.Example == "" {
			continue
		}
		ex := strings.ReplaceAll(s.Example, `\n`, "\n")
		builtin := parseAll(t, []byte(ex), Options{}, nil)
		if !strings.Contains(builtin, `"tool_call"`) {
			t.Errorf("%s: its example reads as no call:\n%s", s.Format, builtin)
		}
		back.Format = s.Format + "_copy"
		fromFile := parseAll(t, []byte(ex), Options{Formats: []*Spec{back}, Format: back.Format}, nil)
		if strings.ReplaceAll(fromFile, back.Format, s.Format) != builtin {
			t.Errorf("%s: its example read with the format file:\n%s", s.Format, cmp.Diff(builtin, fromFile))
		}
	}
}

// TestFormatFileErrors: a bad file names the field and how to fix it.
func TestFormatFileErrors(t *testing.T) {
	const ok = `"format": "x", "call": {"start": "<c>", "end": "</c>"}, "body": "json"`
	for _, c := range []struct{ file, field, msg string }{
		{`{` + ok + `, "sectoin": {}}`, "sectoin", `did you mean "section"?`},
		{`{` + ok + `, "name_end": ">"}`, "name_end", `did you mean "call.name_end"?`},
		{`{"format": "x", "call": {"start": "<c>", "nameend": ">", "end": "</c>"}, "body": "name_json"}`, "call.nameend", `did you mean "name_end"?`},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>"}, "body": "parms"}`, "body", `did you mean "params"?`},
		{`{"call": {"start": "<c>", "end": "</c>"}, "body": "json"}`, "format", "is required"},
		{`{"format": "x", "call": {"start": "calls", "name_end": ">", "end": "</c>", "word": true}, "body": "name_json"}`, "call.word", "is read with body json"},
		{`{"format": "x", "call": {"start": "c", "end": "</c>", "word": true}, "body": "json"}`, "call.start", "four letters or more"},
		{`{"format": "x", "call": {"start": "calls<", "end": "</c>", "word": true}, "body": "json"}`, "call.start", "no '<', '['"},
		{`{"format": "x", "call": {"start": "<c>"}, "body": "json"}`, "call.end", "is required"},
		{`{"format": "x", "call": {"start": "<c>", "end": 1}, "body": "json"}`, "call.end", "must be a string"},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>"}, "body": "params"}`, "param", "is required with body params"},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>"}, "body": "name_json"}`, "call.name_end", "is required with body name_json"},
		{`{` + ok + `, "param": {"start": "<p>", "end": "</p>"}}`, "param", `set body to "params"`},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>"}, "body": "kv", "key": {"start": "<k>", "end": "</k>"}}`, "key", "value are required"},
		{`{` + ok + `, "reasoning": [{"start": "<t>", "end": "</t>", "stop": "x"}]}`, "reasoning[0].stop", "is not a field"},
		{`{"format": "X Y", "call": {"start": "<c>", "end": "</c>"}, "body": "json"}`, "format", "lower-case"},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>", "no_end": true}, "body": "json"}`, "call.no_end", "drop one of them"},
		{`{` + ok + `, "lines": true, "body": "kv"}`, "lines", `set body to "json"`},
		{`{"format": "x", "call": {"start": "<c>", "no_end": true}, "body": "json", "lines": true}`, "lines", "set call.end"},
		{`{"format": "x", "call": {"start": "<c>", "no_end": true}, "body": "brace"}`, "call.no_end", `only with body "json", "name_json" or "pythonic"`},
		{`{"format": "x", "call": {"start": "<c>", "no_end": true}, "body": "pythonic", "fenced": true}`, "call.no_end", "without fenced"},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>", "name_suffix": ".call"}, "body": "pythonic"}`, "call.name_suffix", `"no_end": true`},
		{`{"format": "x", "call": {"start": "<c>", "no_end": true, "name_suffix": ".call"}, "body": "json"}`, "call.name_suffix", `set body to "pythonic"`},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>", "id_start": "[ID]"}, "body": "json"}`, "call.id_start", `set body to "name_json"`},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>", "name_end_optional": true}, "body": "json"}`, "call.name_end_optional", `set body to "name_json"`},
		{`{"format": "x", "call": {"start": "<c>", "name_end": ":", "index_sep": "#", "id_start": "[ID]", "end": "</c>"}, "body": "name_json"}`, "call.id_start", "drop one or the other"},
		{`{"format": "x", "call": {"start": "<c>", "name_end": "<a>", "id_start": 7, "end": "</c>"}, "body": "name_json"}`, "call.id_start", "must be a string"},
		{`{` + ok + `, "string_quote": "<q>"}`, "string_quote", `set body to "brace"`},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>"}, "body": "brace", "string_quote": "<q>"}`, "call.name_start", "is required with body brace"},
		{`{"format": "x", "call": {"start": "<c>", "name_start": "call:", "end": "</c>"}, "body": "brace"}`, "string_quote", "is required"},
		{`{"format": "x", "call": {"start": "<c>", "index_sep": ":", "end": "</c>"}, "body": "json"}`, "call.index_sep", `set body to "name_json"`},
		{`{` + ok + `, "after_reasoning": true}`, "after_reasoning", `give "reasoning"`},
		{`{"format": "x", "call": {"start": "<c>x", "name_end": "<n>", "end": "</c>", "spaced": true}, "body": "name_json"}`, "call.start", "one or more tags"},
		{`{"format": "x", "call": {"start": "<c>", "name_start": "<n>", "name_end": "</n>", "end": "</c>", "spaced": true}, "body": "name_json"}`, "call.spaced", "drop them"},
		{`{` + ok + `, "fenced": true}`, "fenced", `set body to "pythonic"`},
		{`{"format": "x", "call": {"start": "<c name=", "attribute": true, "end": "</c>"}, "body": "json"}`, "call.attribute", `set body to "params"`},
		{`{"format": "x", "call": {"start": "<c name=", "attribute": true, "name_end": ">", "end": "</c>"}, "body": "params", "param": {"start": "<p ", "end": "</p>"}}`, "call.name_end", "drop call.name_end"},
		{`{"format": "x", "call": {"start": "<c ", "end": "</c>"}, "body": "params", "param": {"start": "<p name=", "attribute": true, "key_end": "\">", "end": "</p>"}}`, "param.key_end", "drop key_end"},
		{`{"format": "x", "call": {"start": "<c ", "end": "</c>"}, "body": "params", "param": {"start": "<p ", "end": "</p>"}, "empty_needs_section": true}`, "empty_needs_section", `give "section"`},
		{`{` + ok + `, "json_arguments": true}`, "json_arguments", `set body to "params"`},
		{`{` + ok + `, "also_spelled": [{"to": "|"}]}`, "also_spelled[0].from", "is required"},
		{`{"format": "x", "call": {"start": "<c ", "end": "</c>"}, "body": "params", "param": {"start": "<p ", "type_attribute": "type", "end": "</p>"}}`, "param.type_attribute", "set it"},
		{`{"format": "x", "call": {"start": "<c ", "end": "</c>"}, "body": "params", "param": {"start": "<p ", "tag_end": "|>", "end": "</p>"}}`, "param.tag_end", "set it"},
		{`{"format": "x", "call": {"start": "<c ", "tag_end": "|>", "end": "</c>"}, "body": "params", "param": {"start": "<p ", "end": "</p>"}}`, "call.tag_end", "set it"},
		{`{"format": "x", "call": {"start": "<c ", "end": "</c>"}, "body": "params", "param": {"start": "<p ", "end": "</p>"}, "escaped": true}`, "escaped", "drop it"},
		{`{"format": "x", "call": {"start": "<c ", "end": "</c>"}, "body": "params", "param": {"start": "<p ", "end": "</p>"}, "json_tags": {"start": "<j>"}}`, "json_tags.end", "is required"},
		{`{` + ok + `, "json_tags": {"start": "<j>", "end": "</j>"}}`, "json_tags", `set body to "params"`},
		{`{` + ok + `, "also_spelled": [{"from": "|", "to": "|"}]}`, "also_spelled[0].to", "drop the pair"},
		{`{` + ok + `, "also_spelled": [{"from": "<", "to": "("}]}`, "also_spelled", "must begin with '<' or '['"},
		{`{` + ok + `, "also_spelled": [{"from": "<", "too": "("}]}`, "also_spelled[0].too", `did you mean "to"?`},
		{`{"format": "x", "call": {"start": "<c>", "end": "</c>", "name_end_exact": true}, "body": "json"}`, "call.name_end_exact", `set body to "kv"`},
		{`{` + ok + `, "tag_suffix": ":a>"}`, "tag_suffix", "holds no brackets"},
		{`{"format": "x", "call": {"start": "[c]", "end": "[/c]"}, "body": "json", "tag_suffix": ":a"}`, "tag_suffix", "write call.start as a tag"},
		{`{` + ok + `}{}`, "", "more than one JSON value"},
		{`[1]`, "", "not a JSON object"},
	} {
		_, err := ParseFormatFile("f.json", []byte(c.file))
		var fe *FormatFileError
		if !asFormatFileError(err, &fe) {
			t.Errorf("%s: got %v, want a FormatFileError", c.file, err)
			continue
		}
		if fe.File != "f.json" || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%s:\ngot  field %q: %s\nwant field %q: …%s…", c.file, fe.Field, fe.Msg, c.field, c.msg)
		}
	}
}

// TestFormatFileBounded: a file too large for a spec is refused unread.
func TestFormatFileBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, bytes.Repeat([]byte(" "), maxFormatFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFormatFile(path); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("a file of %d bytes: %v", maxFormatFile+1, err)
	}
}

func asFormatFileError(err error, fe **FormatFileError) bool {
	e, ok := err.(*FormatFileError)
	*fe = e
	return ok
}

// TestFormatFileIDs: a --format that names a format file's id reads only
// that family; an unknown one is an error.
func TestFormatFileIDs(t *testing.T) {
	s := fileSpecs(t)[0]
	in := render(s, roundTripCalls[:1]) + "\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"
	got := parseAll(t, []byte(in), Options{Formats: []*Spec{s}, Format: s.Format}, nil)
	if strings.Count(got, `"tool_call"`) != 1 || !strings.Contains(got, `"format":"`+s.Format+`"`) {
		t.Errorf("--format %s read:\n%s", s.Format, got)
	}
	if _, err := NewParser(Options{Format: "nosuch", Formats: []*Spec{s}}, func(*Event) error { return nil }); err == nil {
		t.Error("unknown --format: no error")
	}
	// Two of one id, or two that start a call alike: an error.
	other := *s
	other.Format = "other"
	for _, specs := range [][]*Spec{{s, s}, {s, &other}} {
		if _, err := NewParser(Options{Formats: specs}, func(*Event) error { return nil }); err == nil {
			t.Errorf("%s and %s together: no error", specs[0].Format, specs[1].Format)
		}
	}
	// A built-in id and marker may be reused: the file's reading is
	// looked for first.
	hermes := BuiltinSpec(FormatHermes)
	hermes.Call.Start, hermes.Call.End = "<tool-call>", "</tool-call>"
	got = parseAll(t, []byte(`<tool-call>{"name":"f","arguments":{}}</tool-call> <tool_call>{"name":"g","arguments":{}}</tool_call>`), Options{Formats: []*Spec{hermes}}, nil)
	if strings.Count(got, `"format":"hermes"`) != 2 {
		t.Errorf("hermes with a second spelling:\n%s", got)
	}
}

var formatField = regexp.MustCompile(`,"format":"[^"]*"`)

func noFormat(events string) string { return formatField.ReplaceAllString(events, "") }

// TestSpecSpread: dense calls of a format file's family give the same
// events when spread over forks as when one Parser reads them.
func TestSpecSpread(t *testing.T) {
	for _, s := range fileSpecs(t) {
		var b strings.Builder
		for k := range 300 {
			c := roundTripCalls[k%len(roundTripCalls)]
			b.WriteString(render(s, []renderedCall{c}) + "\n")
		}
		for _, block := range []int{1, 7, 64, 1024} {
			checkSpread(t, []byte(b.String()), Options{Formats: []*Spec{s}}, block, 4)
		}
	}
}

// TestAppendCalls: calls written back with a family's spec read back as
// the same calls, by the spec and, for a built-in family, by its code.
func TestAppendCalls(t *testing.T) {
	calls := []SpecCall{
		{"get_weather", []byte(`{"city":"Zürich old town","days":3,"metric":true}`)},
		{"list_files", nil},
	}
	for _, s := range everySpec(t) {
		n := len(calls)
		if s.Section == nil && !s.Lines {
			n = 1
		}
		b, err := s.AppendCalls(nil, calls[:n]...)
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for k, c := range calls[:n] {
			args := string(c.Arguments)
			if args == "" {
				args = "{}"
			}
			fmt.Fprintf(&want, `{"type":"tool_call","id":"call_%d","name":%q,"arguments":%s,"format":%q}`+"\n", k+1, c.Name, args, s.Format)
		}
		if got := parseAll(t, b, Options{Formats: []*Spec{s}}, nil); got != want.String() {
			t.Errorf("%s wrote %q, read back as:\n%s", s.Format, b, cmp.Diff(want.String(), got))
		}
		if id, ok := strings.CutPrefix(s.Format, "spec_"); ok {
			if got := noFormat(parseAll(t, b, Options{}, nil)); got != noFormat(want.String()) {
				t.Errorf("built-in %s read %q as:\n%s", id, b, cmp.Diff(noFormat(want.String()), got))
			}
		}
	}
	if _, err := BuiltinSpec(FormatHarmony).AppendCalls(nil, calls[0]); err == nil {
		t.Error("harmony wrote calls without a spec")
	}
}

// FuzzFormatFiles reads any text with each format file of testdata: the
// events are well formed and do not depend on where the input is cut.
func FuzzFormatFiles(f *testing.F) {
	files, _ := filepath.Glob("testdata/formatfiles/*.json")
	var specs []*Spec
	for _, name := range files {
		s, err := LoadFormatFile(name)
		if err != nil {
			f.Fatal(err)
		}
		specs = append(specs, s)
		f.Add([]byte("Sure. "+render(s, roundTripCalls)+" done"), uint16(7))
		f.Add([]byte(render(s, roundTripCalls[:1])[:len(render(s, roundTripCalls[:1]))/2]), uint16(3))
	}
	addFileSeeds(f, "testdata/formatfiles/*.txt")
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		for _, s := range specs {
			opts := Options{Formats: []*Spec{s}}
			whole := parseAll(t, in, opts, nil)
			checkEvents(t, whole)
			k := int(cut)%(len(in)+1) + 1
			if got := parseAll(t, in, opts, []int{k}); got != whole {
				t.Fatalf("%s: in pieces of %d:\n%s", s.Format, k, cmp.Diff(whole, got))
			}
		}
	})
}

// FuzzFormatFile: whatever a format file holds, reading it fails with a
// FormatFileError or gives a spec parse reads any text with.
func FuzzFormatFile(f *testing.F) {
	files, _ := filepath.Glob("testdata/formatfiles/*.json")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b, []byte("a <b> [c] {\"d\": 1}"))
	}
	f.Add([]byte(`{"format":"x","call":{"start":"<c>","no_end":true},"body":"json","name_is_key":true,"result":{"start":"<r>","end":""}}`), []byte("<c>{\"f\": {\"a\": 1}} <c>[{\"name\": \"g\"}"))
	f.Add([]byte(`{"format":"x","call":{"start":"<c>","end":"e"},"body":"kv","key":{"start":"k","end":"K"},"value":{"start":"","end":"V"},"reasoning":[{"start":"<t>","end":"T"}]}`), []byte("<c>f kaK vV e <t> x T"))
	f.Fuzz(func(t *testing.T, file, text []byte) {
		s, err := ParseFormatFile("f.json", file)
		if err != nil {
			if _, ok := err.(*FormatFileError); !ok {
				t.Fatalf("%T: %v", err, err)
			}
			return
		}
		checkEvents(t, parseAll(t, text, Options{Formats: []*Spec{s}}, nil))
		if _, err := MarshalSpec(s); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSpecHeaderCut: a call the output ends in before its name does is a
// parse_error that shows the call written whole, in a format file as in
// Solar Open; the marker with more after it, or a sentence, is prose.
func TestSpecHeaderCut(t *testing.T) {
	s, err := ParseFormatFile("f.json", []byte(`{"format": "acme", "call": {"start": "<|c|>", "name_start": "<|n|>", "name_end": "<|a|>", "end": "<|/c|>"}, "body": "name_json"}`))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Formats: []*Spec{s}}
	for _, c := range []struct{ in, want string }{
		{"Calling.<|c|>x1<|n|>get_weather", `{"type":"text","content":"Calling."}
{"type":"parse_error","error":"tool call cut off in its header: write <|c|>id<|n|>name<|a|>{…}<|/c|>","raw":"<|c|>x1<|n|>get_weather","offset":8,"format":"acme"}
`},
		{"<|c|>x1", `{"type":"parse_error","error":"tool call cut off in its header: write <|c|>id<|n|>name<|a|>{…}<|/c|>","raw":"<|c|>x1","offset":0,"format":"acme"}
`},
		{"<|c|> is the token" + strings.Repeat(" and more", 40), `{"type":"text","content":"<|c|> is the token` + strings.Repeat(" and more", 40) + `"}
`},
		{"The <|c|> token starts a call.", `{"type":"text","content":"The <|c|> token starts a call."}
`},
	} {
		for _, pieces := range [][]int{nil, {1}, {7}} {
			if got := parseAll(t, []byte(c.in), opts, pieces); got != c.want {
				t.Errorf("%q in pieces %v:\n%s", c.in, pieces, cmp.Diff(c.want, got))
			}
		}
	}
}

// TestBuiltinExampleRoundTrip is TestSpecRoundTrip for every built-in
// family, those read by code of their own too: its example, as the
// family writes a call, reads as a call of that family, whole and cut in
// two at every byte alike, and what the built-in code reads from a
// file-form family's rendered calls does not depend on where they are
// cut either.
func TestBuiltinExampleRoundTrip(t *testing.T) {
	for _, s := range Specs() {
		if s.Format == FormatNative {
			continue // a server's response, read by --input, not model text
		}
		t.Run(s.Format, func(t *testing.T) {
			ins := []string{strings.ReplaceAll(s.Example, `\n`, "\n")}
			if s.FileForm() {
				ins = append(ins, "Let me check.\n"+render(s, roundTripCalls[:1])+"\nDone.")
			}
			for n, in := range ins {
				whole := parseAll(t, []byte(in), Options{}, nil)
				if n == 0 && (!strings.Contains(whole, `"type":"tool_call"`) || !strings.Contains(whole, `"format":"`+s.Format+`"`)) {
					t.Fatalf("its example %q reads as no call of its own:\n%s", in, whole)
				}
				for cut := 1; cut < len(in); cut++ {
					if got := parseAll(t, []byte(in), Options{}, []int{cut, len(in)}); got != whole {
						t.Fatalf("%q cut at %d:\n%s", in, cut, cmp.Diff(whole, got))
					}
				}
			}
		})
	}
}

// TestSpecAlone counts the built-in families read by their spec alone
// (no markers of their own, no Code), which must be most of them, and
// lists the others: go test ./parse -run TestSpecAlone -v.
func TestSpecAlone(t *testing.T) {
	n := 0
	var code []string
	for _, s := range builtins {
		if s.own == nil && s.Code == "" {
			n++
		} else {
			code = append(code, s.Format)
		}
	}
	slices.Sort(code)
	t.Logf("%d of %d built-in families are read by their spec alone; by code of their own: %s", n, len(builtins), strings.Join(code, " "))
	if 2*n <= len(builtins) {
		t.Errorf("only %d of %d families are read by their spec alone: most families are data (issue 38); a family that needs code says why in Code", n, len(builtins))
	}
}
