package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONSchemaTestSuite runs the required tests of the official
// JSON-Schema-Test-Suite for draft 2020-12 and draft-07 (vendored under
// testdata/json-schema-test-suite) through CheckArguments, as validate
// checks a call: each group's schema becomes the parameter "value" of a
// tool, and each test's data the argument. Groups that refer to the
// suite's remote documents (http://localhost:1234/) are left out: nothing
// is ever fetched. At least 99.5% of the cases must agree with the suite;
// the figure and every case that disagrees are logged (go test -v).
func TestJSONSchemaTestSuite(t *testing.T) {
	const goal = 99.5
	root := filepath.Join("testdata", "json-schema-test-suite")
	total, agreed, remote := 0, 0, 0
	for _, d := range []struct{ dir, schema string }{
		{"draft2020-12", "https://json-schema.org/draft/2020-12/schema"},
		{"draft7", "http://json-schema.org/draft-07/schema#"},
	} {
		files, err := filepath.Glob(filepath.Join(root, d.dir, "*.json"))
		if err != nil || len(files) < 30 {
			t.Fatalf("%s: %d files (%v)", d.dir, len(files), err)
		}
		n, ok := 0, 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var groups []suiteGroup
			if err := json.Unmarshal(data, &groups); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, g := range groups {
				if bytes.Contains(g.Schema, []byte("localhost:1234")) {
					remote++
					continue // a remote document: nothing is fetched
				}
				tool := &Tool{Name: "suite", InputSchema: wrapSuiteSchema(t, g.Schema, d.schema)}
				// The loader's verdict agrees with the compiler's, and
				// what compiles has no ref that the loader refuses.
				_, cerr := tool.compile()
				if rerr := checkRefs(tool.InputSchema); cerr == nil && rerr != nil {
					t.Errorf("%s: %s: compiles, but the loader refuses a ref: %v", f, g.Description, rerr)
				}
				if verdict := (&Tool{Name: "suite", InputSchema: tool.InputSchema}).CheckSchema(); (verdict == nil) != (cerr == nil) {
					t.Errorf("%s: %s: CheckSchema says %v, Compile %v", f, g.Description, verdict, cerr)
				}
				for _, c := range g.Tests {
					n++
					args := append(append([]byte(`{"value":`), c.Data...), '}')
					got, err := tool.CheckArguments(args, false)
					if err == nil && got.Validated == c.Valid {
						ok++
						continue
					}
					why := fmt.Sprintf("validated %v, want %v", got.Validated, c.Valid)
					if err != nil {
						why = err.Error()
					}
					t.Logf("disagrees: %s/%s: %s: %s: %s", d.dir, filepath.Base(f), g.Description, c.Description, why)
				}
			}
		}
		t.Logf("%s: %d of %d cases agree (%.2f%%)", d.dir, ok, n, 100*float64(ok)/float64(n))
		total, agreed = total+n, agreed+ok
	}
	share := 100 * float64(agreed) / float64(total)
	t.Logf("JSON-Schema-Test-Suite, required tests: %d of %d cases agree (%.2f%%); %d groups with remote refs left out", agreed, total, share, remote)
	if share < goal {
		t.Errorf("%.2f%% of the suite's cases agree; the goal is %.1f%%", share, goal)
	}
}

type suiteGroup struct {
	Description string
	Schema      json.RawMessage
	Tests       []struct {
		Description string
		Data        json.RawMessage
		Valid       bool
	}
}

// wrapSuiteSchema makes a tool's input schema of a suite schema: an object
// whose required property "value" has that schema. References by JSON
// pointer from the suite schema's root ("#/$defs/a") are moved under
// "#/properties/value", except inside resources with their own "$id",
// whose pointers are relative to them.
func wrapSuiteSchema(t *testing.T, schema json.RawMessage, draft string) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var s any
	if err := dec.Decode(&s); err != nil {
		t.Fatal(err)
	}
	draft7 := strings.Contains(draft, "draft-07")
	rebaseRefs(s, draft7)
	out, err := json.Marshal(map[string]any{
		"$schema":    draft,
		"type":       "object",
		"properties": map[string]any{"value": s},
		"required":   []string{"value"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rebaseRefs moves the pointer refs of schema s under /properties/value.
func rebaseRefs(s any, draft7 bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	_, hasRef := m["$ref"]
	if id, ok := m["$id"].(string); ok && !strings.HasPrefix(id, "#") && !(draft7 && hasRef) {
		return // a resource of its own: its pointers are relative to it
	}
	for k, v := range m {
		switch k {
		case "$ref", "$dynamicRef", "$recursiveRef":
			if r, ok := v.(string); ok && (r == "#" || strings.HasPrefix(r, "#/")) {
				m[k] = "#/properties/value" + strings.TrimPrefix(r, "#")
			}
			continue
		}
		switch k {
		case "const", "enum", "default", "examples": // data
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			if sub, ok := v.(map[string]any); ok {
				for _, x := range sub {
					rebaseRefs(x, draft7)
				}
			}
		default: // subschemas, and unknown keywords a pointer may reach
			if list, ok := v.([]any); ok {
				for _, x := range list {
					rebaseRefs(x, draft7)
				}
			} else {
				rebaseRefs(v, draft7)
			}
		}
	}
}
