package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolcall/toolcall/internal/golden"
)

// TestParseSidecarGolden parses every sidecar in testdata/sidecars and
// compares the tool, warnings and errors with <case>.golden.
func TestParseSidecarGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "sidecars", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sidecars in testdata/sidecars: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			tool, warns, err := ParseSidecar(filepath.ToSlash(file), data)
			got := describeResult(tool, warns, err)
			golden.Check(t, strings.TrimSuffix(file, ".json")+".golden", []byte(got))
			if strings.HasPrefix(name, "err_") != (tool == nil) {
				t.Errorf("%s: cases named err_* must fail and only they: tool=%v err=%v", file, tool != nil, err)
			}
		})
	}
}

// describeResult writes what ParseSidecar returned as stable text, one
// field a line.
func describeResult(t *Tool, warns []string, err error) string {
	var b strings.Builder
	line := func(k string, v any) { fmt.Fprintf(&b, "%s: %v\n", k, v) }
	if t != nil {
		line("name", t.Name)
		if t.Title != "" {
			line("title", t.Title)
		}
		line("description", t.Description)
		line("dialect", t.Dialect)
		line("input_schema", string(t.InputSchema))
		if t.OutputSchema != nil {
			line("output_schema", string(t.OutputSchema))
		}
		if t.Annotations != nil {
			line("annotations", string(t.Annotations))
		}
		line("safe", t.Safe)
		if t.Command != "" {
			line("command", t.Command)
		}
		if t.Timeout != 0 {
			line("timeout", t.Timeout)
		}
		if t.StrictSet {
			line("strict", t.Strict)
		}
		if t.AllowNoSchema {
			line("no_schema_mode", t.NoSchemaMode)
		}
		for _, l := range []struct {
			k string
			v []string
		}{{"tag", t.Tags}, {"requires", t.Requires}, {"platform", t.Platforms}, {"env", t.Env}} {
			for _, v := range l.v {
				line(l.k, v)
			}
		}
		for _, ex := range t.Examples {
			line("example", string(ex))
		}
	}
	for _, w := range warns {
		line("warning", w)
	}
	if err != nil {
		for _, e := range unjoin(err) {
			line("error", e)
		}
	}
	return b.String()
}

// The errors a user meets most, each naming the file and what to do.
func TestParseSidecarErrors(t *testing.T) {
	for _, tc := range []struct {
		name, sidecar string
		want          []string // substrings of the error
	}{
		{"no schema", `{"description":"d"}`, []string{"x.json: ", `no "input_schema"`, "allow_no_schema", "read-only, human-approval, full"}},
		{"bad mode", `{"description":"d","allow_no_schema":true,"no_schema_mode":"sometimes"}`, []string{`"sometimes" is not one of read-only, human-approval, full`}},
		{"opt out without mode", `{"description":"d","allow_no_schema":true}`, []string{`needs "no_schema_mode"`}},
		{"remote ref", `{"description":"d","input_schema":{"properties":{"a":{"$ref":"http://example.com/a"}}}}`, []string{`"http://example.com/a" at /properties/a/$ref`, "nothing is fetched", "$defs"}},
		{"file ref", `{"description":"d","input_schema":{"allOf":[{"$ref":"defs.json"}]}}`, []string{`"defs.json" at /allOf/0/$ref`}},
		{"bad name", `{"name":"a/b","description":"d","input_schema":{}}`, []string{`tool name "a/b" is not valid`}},
		{"long name", `{"name":"` + strings.Repeat("a", 129) + `","description":"d","input_schema":{}}`, []string{"is not valid"}},
		{"array root", `{"description":"d","input_schema":{"type":"array"}}`, []string{`must describe an object`, `"array"`}},
		{"two aliases", `{"description":"d","parameters":{},"input_schema":{}}`, []string{`"parameters" and "input_schema" given together`}},
		{"alias in and beside function", `{"type":"function","function":{"name":"f","parameters":{}},"inputSchema":{}}`, []string{"given together"}},
		{"request not a string", `{"description":"d","input_schema":{},"examples":[{"request":7,"arguments":{}}]}`, []string{`"examples"[0].request must be a string`}},
		{"not an object", `[1,2]`, []string{"must be a JSON object"}},
		{"empty", ``, []string{"empty"}},
		{"syntax", "{\n\"a\": 1,\n}", []string{"line 3, column 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, _, err := ParseSidecar("dir/x.json", []byte(tc.sidecar))
			if err == nil {
				t.Fatalf("no error; tool %+v", tool)
			}
			if tool != nil {
				t.Errorf("a tool came back with the error")
			}
			var se *SidecarError
			if !errors.As(err, &se) || se.File != "dir/x.json" {
				t.Errorf("error %v is not a *SidecarError naming dir/x.json", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestParseSidecarDefaults(t *testing.T) {
	tool, warns, err := ParseSidecar("/tools/lookup.json", []byte(`{"description":"Find.","input_schema":{"type":"object"},"timeout":90}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	if tool.Name != "lookup" || !tool.Safe || tool.Timeout != 90*time.Second || tool.Dialect != DialectToolcall {
		t.Errorf("got name %q safe %v timeout %v dialect %q; want lookup, true, 1m30s, toolcall", tool.Name, tool.Safe, tool.Timeout, tool.Dialect)
	}
	if string(tool.InputSchema) != `{"type":"object"}` {
		t.Errorf("schema %s", tool.InputSchema)
	}
}

// Mapping BFCL types must leave the order of keys and everything it does
// not map alone, whitespace aside.
func TestMapTypesKeepsOrder(t *testing.T) {
	in := `{"required": ["b","a"], "type": "dict", "properties": {"z": {"description": "d", "type": "float", "x-note": {"type": "dict"}}, "a": {"type": "any", "enum": [1]}}}`
	tool, warns, err := ParseSidecar("f.json", []byte(`{"description":"d","parameters":`+in+`}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"required":["b","a"],"type":"object","properties":{"z":{"description":"d","type":"number","x-note":{"type":"dict"}},"a":{"enum":[1]}}}`
	if string(tool.InputSchema) != want {
		t.Errorf("got  %s\nwant %s", tool.InputSchema, want)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "f.json: ") || !strings.Contains(warns[0], "dict -> object") || !strings.Contains(warns[0], "float -> number") {
		t.Errorf("want one warning naming f.json and the mappings, got %q", warns)
	}
	if tool.Dialect != DialectBFCL {
		t.Errorf("dialect %q, want bfcl", tool.Dialect)
	}
}

func BenchmarkParseSidecar(b *testing.B) {
	data := []byte(`{"name":"math.hypot","description":"Calculate the Euclidean norm.","parameters":{"type":"dict","properties":{"x":{"type":"integer","description":"The x-coordinate value."},"y":{"type":"integer","description":"The y-coordinate value."},"z":{"type":"integer","description":"Optional. The z-coordinate value. Default is 0."}},"required":["x","y"]}}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := ParseSidecar("math.hypot.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMeansATool(t *testing.T) {
	for data, want := range map[string]bool{
		`{"name":"my-app","version":"1.0.0","description":"An app.","type":"module","scripts":{"test":"go test"}}`: false, // package.json
		"{\n  // comments make it JSONC\n  \"compilerOptions\": {\"strict\": true}\n}":                             false, // tsconfig.json
		``: false,
		`{"type":"object","properties":{"a":{"type":"string"}}}`:                       false, // a bare schema
		`{"description":"d","input_schema":{"type":"object"}}`:                         true,
		`{"type":"function","function":{"name":"f","parameters":{}}}`:                  true,
		`{"name":"t","description":"d","inputSchema":{"type":"object"}}`:               true,
		`{"description":"no schema yet","safe":false}`:                                 true,
		`[{"type":"function","function":{"name":"f"}}]`:                                true, // a list, pasted
		`{"tools":[{"name":"a","inputSchema":{}}]}`:                                    true,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`:                               true,
		`{"description": "half written", "input_schema": {"type": "obj`:                true, // broken, but a sidecar
		"\xef\xbb\xbf" + `{"description":"with a BOM","parameters":{"type":"object"}}`: true,
	} {
		if got := MeansATool([]byte(data)); got != want {
			t.Errorf("MeansATool(%s) = %v, want %v", data, got, want)
		}
	}
}

// TestParseSidecarExampleRequests: an example's "request" is kept beside
// its arguments, one per example, and none at all when no example has one.
func TestParseSidecarExampleRequests(t *testing.T) {
	tool, _, err := ParseSidecar("x.json", []byte(`{"description":"d","input_schema":{},"examples":[{"a":1},{"request":"What is 17 times 25?","arguments":{"a":2}},{"request":"","arguments":{"a":3}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tool.Examples) != 3 || string(tool.Examples[1]) != `{"a":2}` {
		t.Errorf("examples %q", tool.Examples)
	}
	if want := []string{"", "What is 17 times 25?", ""}; !slices.Equal(tool.ExampleRequests, want) {
		t.Errorf("requests %q, want %q", tool.ExampleRequests, want)
	}
	tool, _, err = ParseSidecar("x.json", []byte(`{"description":"d","input_schema":{},"examples":[{"a":1},{"request":"","arguments":{}}]}`))
	if err != nil || tool.ExampleRequests != nil {
		t.Errorf("requests %q, %v; want none", tool.ExampleRequests, err)
	}
}
