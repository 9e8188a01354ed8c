package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseSidecar feeds ParseSidecar arbitrary bytes, seeded with every
// sidecar in testdata/sidecars. It must never panic; a sidecar it accepts
// must have a valid name, a schema that is one line of valid JSON with no
// reference leaving the sidecar, and examples that are JSON objects; and
// compiling and checking the schema must not panic.
func FuzzParseSidecar(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "sidecars", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"description":"x","input_schema":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"dict"}}}}`))
	f.Add([]byte(`{"type":"function","function":{"name":"a.b","parameters":{"type":"dict","properties":{"x":{"type":"tuple","items":{"type":"float"}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tool, _, err := ParseSidecar("fuzz.json", data)
		if err != nil {
			if tool != nil {
				t.Fatalf("error %v with a tool", err)
			}
			return
		}
		if !ValidName(tool.Name) {
			t.Fatalf("accepted invalid name %q", tool.Name)
		}
		if tool.InputSchema == nil {
			if !tool.AllowNoSchema {
				t.Fatal("no schema without allow_no_schema")
			}
			return
		}
		if !json.Valid(tool.InputSchema) || strings.ContainsAny(string(tool.InputSchema), "\n\r") {
			t.Fatalf("schema is not one line of JSON: %q", tool.InputSchema)
		}
		if err := checkRefs(tool.InputSchema); err != nil {
			t.Fatalf("accepted a schema checkRefs refuses: %v", err)
		}
		for _, ex := range tool.Examples {
			var v map[string]any
			if err := json.Unmarshal(ex, &v); err != nil {
				t.Fatalf("example %q is not an object: %v", ex, err)
			}
		}
		// Compile refuses every URL (schema.go), so nothing is fetched.
		if _, err := tool.compile(); err == nil {
			if _, err := tool.CheckArguments([]byte(`{"a":1}`), true); err != nil {
				t.Fatalf("schema compiled but checking failed: %v", err)
			}
		}
	})
}
