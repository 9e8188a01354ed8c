package tools

import (
	"errors"
	"strings"
	"testing"
)

// Regression tests from trying definitions shaped like real ones (MCP
// servers' pydantic and zod output, OpenAI cookbook functions, Gemini
// declarations) with the wrong calls small models make. The fixtures are
// minimal paraphrases written for these tests.

// realTool parses an inline sidecar, failing the test on any error.
func realTool(t *testing.T, sidecar string) *Tool {
	t.Helper()
	tool, _, err := ParseSidecar("t.json", []byte(sidecar))
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// messages checks args against tool and returns the error messages.
func messages(t *testing.T, tool *Tool, args string) []string {
	t.Helper()
	c, err := tool.CheckArguments([]byte(args), false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range c.Errors {
		out = append(out, e.Message)
	}
	return out
}

func TestRealWorldMessages(t *testing.T) {
	// pydantic's shape: no additionalProperties, so a misspelt required
	// key is only seen as "missing".
	pyd := realTool(t, `{"name":"repo_log","description":"d","inputSchema":{"properties":{"repo_path":{"title":"Repo Path","type":"string"},"count":{"default":10,"type":"integer"}},"required":["repo_path"],"title":"RepoLog","type":"object"}}`)
	// zod's shape: additionalProperties false, arrays of objects.
	zod := realTool(t, `{"name":"patch","description":"d","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string"},"changes":{"type":"array","items":{"type":"object","properties":{"before":{"type":"string"},"after":{"type":"string"}},"required":["before","after"],"additionalProperties":false}},"labels":{"type":"array","items":{"type":"string"}},"target":{"type":"object","properties":{"id":{"type":"integer"}}}},"required":["path","changes"],"additionalProperties":false}}`)
	enum := realTool(t, `{"type":"function","function":{"name":"forecast","description":"d","parameters":{"type":"object","properties":{"unit":{"type":"string","enum":["celsius","fahrenheit"]},"mode":{"$ref":"#/$defs/Mode"}},"$defs":{"Mode":{"enum":["dark_mode","light_mode"]}}}}}`)

	cases := []struct {
		name string
		tool *Tool
		args string
		want []string
	}{
		{"required key in another case", pyd, `{"Repo_Path":"."}`,
			[]string{`/repo_path: required property "repo_path" is missing (the arguments have "Repo_Path" instead; write the name exactly as the schema does)`}},
		{"required key in camel case", pyd, `{"repoPath":".","count":3}`,
			[]string{`/repo_path: required property "repo_path" is missing (the arguments have "repoPath" instead; write the name exactly as the schema does)`}},
		{"required key missing, nothing like it", pyd, `{"count":3,"verbose":true}`,
			[]string{`/repo_path: required property "repo_path" is missing`}},
		// With additionalProperties false the extra key gets its own
		// "did you mean", and the missing one is not told twice.
		{"misspelt keys where extras are forbidden", zod, `{"path":"a","changes":[{"Before":"x","after":"y"}]}`,
			[]string{
				`/changes/0/Before: property "Before" is not allowed; did you mean "before"?`,
				`/changes/0/before: required property "before" is missing`,
			}},
		{"array as a string of JSON", zod, `{"path":"a","changes":"[{\"before\":\"x\",\"after\":\"y\"}]"}`,
			[]string{`/changes: expected array, got string "[{\"before\":\"x\",\"after\":\"y\"}]"; write the array itself, not a string holding its JSON`}},
		{"object as a string of JSON", zod, `{"path":"a","changes":[],"target":" {\"id\":1}"}`,
			[]string{`/target: expected object, got string " {\"id\":1}"; write the object itself, not a string holding its JSON`}},
		{"one item for an array", zod, `{"path":"a","changes":{"before":"x","after":"y"}}`,
			[]string{`/changes: expected array, got object {"before":"x","after":"y"}; an array is needed even for one item: [{"before":"x","after":"y"}]`}},
		{"one string for an array", zod, `{"path":"a","changes":[],"labels":"bug"}`,
			[]string{`/labels: expected array, got string "bug"; an array is needed even for one item: ["bug"]`}},
		{"a long single item", zod, `{"path":"a","changes":[],"labels":"` + strings.Repeat("x", 200) + `"}`,
			[]string{`/labels: expected array, got string "` + strings.Repeat("x", 80-1) + `…; an array is needed even for one item: put it inside [ ]`}},
		{"not JSON inside the string", zod, `{"path":"a","changes":"[oops"}`,
			[]string{`/changes: expected array, got string "[oops"; an array is needed even for one item: ["[oops"]`}},
		{"enum in another case", enum, `{"unit":"Celsius"}`,
			[]string{`/unit: "Celsius" is not one of ["celsius","fahrenheit"]; did you mean "celsius"?`}},
		{"enum through $ref, other separators", enum, `{"mode":"dark-mode"}`,
			[]string{`/mode: "dark-mode" is not one of ["dark_mode","light_mode"]; did you mean "dark_mode"?`}},
		{"enum with nothing close", enum, `{"unit":"kelvin"}`,
			[]string{`/unit: "kelvin" is not one of ["celsius","fahrenheit"]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := messages(t, c.tool, c.args)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("messages:\n got  %q\n want %q", got, c.want)
			}
		})
	}
}

func TestRealWorldSidecarMessages(t *testing.T) {
	cases := []struct {
		name, sidecar, want string
	}{
		{"OpenAI tools array pasted whole",
			`[{"type":"function","function":{"name":"x","parameters":{"type":"object"}}}]`,
			"this file is a tools array, not a sidecar, which describes one tool; put each tool in its own NAME.json beside its executable, or give this file itself to --tools"},
		{"MCP tools/list result pasted whole",
			`{"tools":[{"name":"x","description":"y","inputSchema":{"type":"object"}}]}`,
			`this file is an MCP tools/list result, not a sidecar`},
		{"Gemini's capital type names",
			`{"name":"g","description":"d","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}}`,
			`"parameters" has "type" "OBJECT", but JSON Schema type names are lower case: write "object"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParseSidecar("t.json", []byte(c.sidecar))
			if err == nil {
				t.Fatal("no error")
			}
			var se *SidecarError
			if !errors.As(err, &se) {
				t.Fatalf("%T is not a *SidecarError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\ndoes not contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "make the value a property") || strings.Contains(err.Error(), `no "input_schema"`) {
				t.Errorf("error %q gives the wrong advice", err)
			}
		})
	}
}
