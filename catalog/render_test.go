package catalog

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// renderTools is a small catalog with one of each kind of tool: a dotted
// name with a pretty-printed schema, an unsafe tool, a tool without a
// schema, and one with examples.
func renderTools() []*tools.Tool {
	return []*tools.Tool{
		{
			Name:        "get_weather",
			Description: "Current weather for a city: temperature, wind and sky.",
			InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string","description":"City name, such as Paris"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}`),
			Command:     "/opt/tools/get_weather",
			Safe:        true,
			Tags:        []string{"weather", "network"},
			Timeout:     20 * time.Second,
			Examples:    [][]byte{[]byte(`{"city":"Paris"}`), []byte(`{"city": "Oslo", "unit": "fahrenheit"}`)},
		},
		{
			Name:         "math.factorial",
			Title:        "Factorial",
			Description:  "Compute the factorial of a non-negative integer.",
			InputSchema:  []byte("{\n  \"type\": \"object\",\n  \"properties\": {\n    \"n\": {\"type\": \"integer\", \"minimum\": 0, \"description\": \"The number, \\\"n\\\" in n!\"}\n  },\n  \"required\": [\"n\"]\n}\n"),
			OutputSchema: []byte(`{"type": "object", "properties": {"result": {"type": "integer"}}}`),
			Command:      "/opt/tools/math.factorial",
			Safe:         true,
			Tags:         []string{"math"},
			Strict:       true,
			StrictSet:    true,
		},
		{
			Name:        "delete_file",
			Description: "Delete a file in the workspace.  \r\nIt cannot be undone.",
			InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string","description":"Path of the file, relative to the workspace"}},"required":["path"],"additionalProperties":false}`),
			Annotations: []byte(`{"destructiveHint": true, "idempotentHint": true}`),
			Command:     "/opt/tools/delete_file",
			Safe:        false,
			Tags:        []string{"files"},
			Examples:    [][]byte{[]byte(`{"path":"notes/old.txt"}`)},
		},
		{
			Name:          "notes_search",
			Description:   "Search my notes for a phrase; prints the matching lines.",
			Command:       "/opt/tools/notes_search",
			Safe:          true,
			AllowNoSchema: true,
			NoSchemaMode:  tools.NoSchemaHumanApproval,
		},
	}
}

// allRanked returns every tool of c, unranked, in name order.
func allRanked(c *Catalog) []Ranked {
	var rs []Ranked
	for _, t := range c.All() {
		rs = append(rs, Ranked{Tool: t})
	}
	return rs
}

func render(t *testing.T, c *Catalog, picked []Ranked, opts RenderOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, c, picked, opts); err != nil {
		t.Fatalf("Render(%+v): %v", opts, err)
	}
	return buf.Bytes()
}

func TestRenderGolden(t *testing.T) {
	c := New(renderTools())
	cases := []struct {
		name string
		opts RenderOptions
	}{
		{"jsonl", RenderOptions{}},
		{"openai", RenderOptions{Format: FormatOpenAI}},
		{"anthropic", RenderOptions{Format: FormatAnthropic}},
		{"ollama", RenderOptions{Format: FormatOllama}},
		{"mcp", RenderOptions{Format: FormatMCP}},
		{"prompt_jsonl", RenderOptions{Format: FormatPrompt}},
		{"prompt_xml", RenderOptions{Format: FormatPrompt, Style: StyleXML}},
		{"prompt_markdown", RenderOptions{Format: FormatPrompt, Style: StyleMarkdown}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, c, allRanked(c), tc.opts)
			if !bytes.HasSuffix(got, []byte("\n")) {
				t.Errorf("output does not end with a newline")
			}
			golden.Check(t, filepath.Join("testdata", "render", tc.name+".golden"), got)
			// The same input gives the same bytes.
			if again := render(t, c, allRanked(c), tc.opts); !bytes.Equal(got, again) {
				t.Errorf("second render differs")
			}
		})
	}
	for _, style := range Styles {
		t.Run("prompt_empty_"+style, func(t *testing.T) {
			got := render(t, c, nil, RenderOptions{Format: FormatPrompt, Style: style})
			golden.Check(t, filepath.Join("testdata", "render", "prompt_empty_"+style+".golden"), got)
		})
	}
}

func TestRenderRankedJSONL(t *testing.T) {
	c := New(renderTools())
	picked := []Ranked{{Tool: c.All()[1], Score: 0.8123, Reason: "matched weather (name)", Scored: true}}
	got := render(t, c, picked, RenderOptions{})
	var ev map[string]any
	if err := json.Unmarshal(got, &ev); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	if ev["score"] != 0.8123 || ev["reason"] != "matched weather (name)" {
		t.Errorf("score and reason = %v, %v; want 0.8123 and the reason", ev["score"], ev["reason"])
	}
	// Unranked output has neither.
	got = render(t, c, allRanked(c), RenderOptions{})
	if bytes.Contains(got, []byte(`"score"`)) || bytes.Contains(got, []byte(`"reason"`)) {
		t.Errorf("unranked jsonl shows a score or reason:\n%s", got)
	}
}

var providerNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// TestRenderShapes reads every JSON format back and checks what a provider
// or client relies on.
func TestRenderShapes(t *testing.T) {
	c := New(renderTools())
	picked := allRanked(c)

	t.Run("jsonl", func(t *testing.T) {
		lines := strings.Split(strings.TrimSuffix(string(render(t, c, picked, RenderOptions{})), "\n"), "\n")
		if len(lines) != len(picked) {
			t.Fatalf("%d lines, want %d", len(lines), len(picked))
		}
		for i, line := range lines {
			var ev struct {
				Type         string          `json:"type"`
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"input_schema"`
				Safe         *bool           `json:"safe"`
				Tags         []string        `json:"tags"`
				NoSchemaMode string          `json:"no_schema_mode"`
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("line %d is not JSON: %v", i+1, err)
			}
			tool := picked[i].Tool
			if ev.Type != event.TypeTool || ev.Name != tool.Name || ev.Safe == nil || *ev.Safe != tool.Safe || ev.Tags == nil {
				t.Errorf("line %d = %s", i+1, line)
			}
			if tool.InputSchema == nil && (string(ev.InputSchema) != "null" || ev.NoSchemaMode != tool.NoSchemaMode) {
				t.Errorf("no-schema tool: input_schema %s, no_schema_mode %q", ev.InputSchema, ev.NoSchemaMode)
			}
			if tool.InputSchema != nil && !jsonEqual(t, ev.InputSchema, tool.InputSchema) {
				t.Errorf("%s: input_schema %s is not the sidecar's", tool.Name, ev.InputSchema)
			}
		}
	})

	type function struct {
		Name        string          `json:"name"`
		Description *string         `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      *bool           `json:"strict"`
	}
	for _, format := range []string{FormatOpenAI, FormatOllama} {
		t.Run(format, func(t *testing.T) {
			var got []struct {
				Type     string   `json:"type"`
				Function function `json:"function"`
			}
			out := render(t, c, picked, RenderOptions{Format: format})
			if bytes.Count(out, []byte("\n")) != 1 {
				t.Errorf("want one line, got:\n%s", out)
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(picked) {
				t.Fatalf("%d tools, want %d", len(got), len(picked))
			}
			for i, f := range got {
				tool := picked[i].Tool
				want := tool.Name
				if format == FormatOpenAI {
					want = c.ProviderName(tool)
					if !providerNameRE.MatchString(f.Function.Name) {
						t.Errorf("name %q is not accepted by OpenAI", f.Function.Name)
					}
					if back, ok := c.Lookup(f.Function.Name); !ok || back != tool {
						t.Errorf("Lookup(%q) does not lead back to %s", f.Function.Name, tool.Name)
					}
				}
				if f.Type != "function" || f.Function.Name != want || f.Function.Description == nil {
					t.Errorf("tool %d = %+v", i, f)
				}
				if objectType(t, f.Function.Parameters) != "object" {
					t.Errorf("%s: parameters %s is not an object schema", want, f.Function.Parameters)
				}
				if (f.Function.Strict != nil) != (format == FormatOpenAI && tool.StrictSet) {
					t.Errorf("%s: strict = %v", want, f.Function.Strict)
				}
			}
		})
	}

	t.Run("anthropic", func(t *testing.T) {
		var got []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			Strict      *bool           `json:"strict"`
		}
		if err := json.Unmarshal(render(t, c, picked, RenderOptions{Format: FormatAnthropic}), &got); err != nil {
			t.Fatal(err)
		}
		for i, tl := range got {
			if !providerNameRE.MatchString(tl.Name) || tl.Name != c.ProviderName(picked[i].Tool) {
				t.Errorf("name %q", tl.Name)
			}
			if objectType(t, tl.InputSchema) != "object" {
				t.Errorf("%s: input_schema %s", tl.Name, tl.InputSchema)
			}
			// Anthropic's strict tool use, kept as the sidecar set it.
			if tool := picked[i].Tool; (tl.Strict != nil) != tool.StrictSet || tl.Strict != nil && *tl.Strict != tool.Strict {
				t.Errorf("%s: strict = %v, sidecar %v (set %v)", tl.Name, tl.Strict, tool.Strict, tool.StrictSet)
			}
		}
	})

	t.Run("mcp", func(t *testing.T) {
		var got mcpList
		if err := json.Unmarshal(render(t, c, picked, RenderOptions{Format: FormatMCP}), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Tools) != len(picked) || got.NextCursor != "" {
			t.Fatalf("%d tools, nextCursor %q", len(got.Tools), got.NextCursor)
		}
		for i, tl := range got.Tools {
			tool := picked[i].Tool
			if tl.Name != tool.Name || tl.Title != tool.Title || objectType(t, tl.InputSchema) != "object" {
				t.Errorf("tool %d = %+v", i, tl)
			}
			if (tl.OutputSchema != nil) != (tool.OutputSchema != nil) {
				t.Errorf("%s: outputSchema %s", tl.Name, tl.OutputSchema)
			}
			// A tool that did not say it has side effects gets no hints at
			// all: read-only would be a claim nobody made.
			var ann map[string]bool
			if tl.Annotations != nil {
				if err := json.Unmarshal(tl.Annotations, &ann); err != nil {
					t.Fatalf("%s: annotations %s: %v", tl.Name, tl.Annotations, err)
				}
			}
			if tool.Annotations == nil && (ann["destructiveHint"] == tool.Safe || ann["readOnlyHint"]) {
				t.Errorf("%s (safe %v): annotations %s", tl.Name, tool.Safe, tl.Annotations)
			}
		}
	})
}

type mcpList struct {
	Tools []struct {
		Name         string          `json:"name"`
		Title        string          `json:"title"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  json.RawMessage `json:"annotations"`
	} `json:"tools"`
	NextCursor string `json:"nextCursor"`
}

func objectType(t *testing.T, schema json.RawMessage) string {
	t.Helper()
	var s struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	return s.Type
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return cmp.Equal(x, y)
}

func TestRenderMCPPages(t *testing.T) {
	var ts []*tools.Tool
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		ts = append(ts, &tools.Tool{Name: name, Description: "tool " + name, InputSchema: []byte(`{"type":"object"}`), Safe: true})
	}
	c := New(ts)
	picked := allRanked(c)

	var names []string
	cursor := ""
	for page := 1; ; page++ {
		var got mcpList
		out := render(t, c, picked, RenderOptions{Format: FormatMCP, PageSize: 3, Cursor: cursor})
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if page == 1 {
			golden.Check(t, filepath.Join("testdata", "render", "mcp_page1.golden"), out)
		}
		for _, tl := range got.Tools {
			names = append(names, tl.Name)
		}
		if got.NextCursor == "" {
			break
		}
		if page > 5 {
			t.Fatal("pagination does not end")
		}
		cursor = got.NextCursor
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e", "f", "g"}, names); diff != "" {
		t.Errorf("pages hold (-want +got):\n%s", diff)
	}

	// A cursor is only good for the list it came from.
	var first mcpList
	if err := json.Unmarshal(render(t, c, picked, RenderOptions{Format: FormatMCP, PageSize: 3}), &first); err != nil {
		t.Fatal(err)
	}
	for name, cur := range map[string]string{
		"garbage":       "not a cursor!",
		"not base64url": "%%%",
		"cut":           first.NextCursor[:len(first.NextCursor)-2],
		"tampered":      encodeCursor(1, []string{"x"}),
	} {
		t.Run(name, func(t *testing.T) {
			err := Render(&bytes.Buffer{}, c, picked, RenderOptions{Format: FormatMCP, PageSize: 3, Cursor: cur})
			if err == nil || !strings.Contains(err.Error(), "bad cursor") || !strings.Contains(err.Error(), "without a cursor") {
				t.Errorf("Render with cursor %q: err = %v, want a bad cursor error", cur, err)
			}
		})
	}
	t.Run("changed list", func(t *testing.T) {
		err := Render(&bytes.Buffer{}, c, picked[1:], RenderOptions{Format: FormatMCP, PageSize: 3, Cursor: first.NextCursor})
		if err == nil {
			t.Errorf("a cursor from another tool list was accepted")
		}
	})
}

func TestRenderErrors(t *testing.T) {
	c := New(renderTools())
	for _, tc := range []struct {
		opts RenderOptions
		want string
	}{
		{RenderOptions{Format: "yaml"}, `unknown format "yaml": use one of jsonl, openai`},
		{RenderOptions{Format: FormatPrompt, Style: "html"}, `unknown prompt style "html": use one of jsonl, xml, markdown`},
		{RenderOptions{Format: FormatOpenAI, PageSize: 2}, "only to the mcp format"},
		{RenderOptions{Format: FormatMCP, PageSize: -1}, "negative"},
	} {
		err := Render(&bytes.Buffer{}, c, allRanked(c), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Render(%+v) = %v, want an error containing %q", tc.opts, err, tc.want)
		}
	}
}

// TestPromptText checks what a small model reads: no trailing white space,
// every tool and every example in the style's own call syntax.
func TestPromptText(t *testing.T) {
	c := New(renderTools())
	calls := map[string]string{
		StyleJSONL:    `{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo","unit":"fahrenheit"}}` + "\n",
		StyleXML:      "<tool_call>\n" + `{"name":"get_weather","arguments":{"city":"Oslo","unit":"fahrenheit"}}` + "\n</tool_call>\n",
		StyleMarkdown: "```json\n" + `{"name":"get_weather","arguments":{"city":"Oslo","unit":"fahrenheit"}}` + "\n```\n",
	}
	for _, style := range Styles {
		t.Run(style, func(t *testing.T) {
			out := string(render(t, c, allRanked(c), RenderOptions{Format: FormatPrompt, Style: style}))
			for i, line := range strings.Split(out, "\n") {
				if line != strings.TrimRight(line, " \t\r") {
					t.Errorf("line %d has trailing white space: %q", i+1, line)
				}
			}
			for _, tool := range c.All() {
				if !strings.Contains(out, "\n### "+tool.Name+"\n") {
					t.Errorf("tool %s has no heading", tool.Name)
				}
			}
			if !strings.Contains(out, calls[style]) {
				t.Errorf("example not written as a %s call %q:\n%s", style, calls[style], out)
			}
			if !strings.Contains(out, `{"type":"object","properties":{"n":{"type":"integer","minimum":0,"description":"The number, \"n\" in n!"}},"required":["n"]}`) {
				t.Errorf("pretty-printed schema not compacted verbatim:\n%s", out)
			}
		})
	}
}

// ollamaProperty is a property of the Tool type of Ollama's JavaScript
// client (the npm package ollama, 0.6.4, dist/index.d.ts), the narrowest
// of Ollama's types: type is a name or a list of names, items any value.
type ollamaProperty struct {
	Type        json.RawMessage `json:"type"`
	Items       json.RawMessage `json:"items"`
	Description string          `json:"description"`
	Enum        []any           `json:"enum"`
}

// TestRenderOllamaCarriesWhatItDrops: the ollama format writes only the
// fields of Ollama's API types, and says in words, in the property's
// description (or the tool's, for the arguments object), every constraint
// those fields cannot carry, so the model still sees it.
func TestRenderOllamaCarriesWhatItDrops(t *testing.T) {
	tool := &tools.Tool{Name: "book", Description: "Book a room.", Safe: true, InputSchema: []byte(`{"type":"object",` +
		`"properties":{` +
		`"nights":{"type":"integer","minimum":1,"maximum":14,"default":1,"description":"How many nights."},` +
		`"code":{"type":"string","pattern":"^[A-Z]{3}$","minLength":3},` +
		`"guests":{"type":"array","items":{"type":"string"},"minItems":1,"uniqueItems":true},` +
		`"when":{"anyOf":[{"type":"string","format":"date"},{"type":"null"}]},` +
		`"room":{"type":"object","properties":{"floor":{"type":"integer","exclusiveMinimum":0}},"required":["floor"],"additionalProperties":false},` +
		`"kind":{"enum":["single","double"],"const":"double"}},` +
		`"required":["nights"],"additionalProperties":false}`)}
	c := New([]*tools.Tool{tool})
	out := render(t, c, []Ranked{{Tool: tool}}, RenderOptions{Format: FormatOllama})
	var got []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Parameters  struct {
				Type       string                    `json:"type"`
				Defs       any                       `json:"$defs"`
				Items      any                       `json:"items"`
				Required   []string                  `json:"required"`
				Properties map[string]ollamaProperty `json:"properties"`
			} `json:"parameters"`
		} `json:"function"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("not Ollama's types: %v\n%s", err, out)
	}
	f := got[0].Function
	if f.Description != "Book a room. Arguments: no properties other than those listed." {
		t.Errorf("tool description %q", f.Description)
	}
	props := f.Parameters.Properties
	for name, want := range map[string]string{
		"nights": "How many nights. (at least 1; at most 14; default 1)",
		"code":   `Matching the regular expression "^[A-Z]{3}$"; at least 3 characters.`,
		"guests": "At least 1 item; no item twice.",
		"kind":   `Must be "double".`,
	} {
		if props[name].Description != want {
			t.Errorf("%s: description %q, want %q", name, props[name].Description, want)
		}
	}
	// What the narrow type has no field for, a choice of types and an
	// object's own properties, is in words, as its schema.
	if when := props["when"]; string(when.Type) != `["string","null"]` || when.Description != `Any of [{"type":"string","format":"date"},{"type":"null"}].` {
		t.Errorf("when: type %s, description %q", when.Type, when.Description)
	}
	if room := props["room"]; string(room.Type) != `"object"` ||
		room.Description != `An object with the properties {"floor":{"type":"integer","exclusiveMinimum":0}}; with ["floor"] required; no properties other than those listed.` {
		t.Errorf("room: type %s, description %q", room.Type, room.Description)
	}
	if string(props["guests"].Items) != `{"type":"string"}` || len(props["kind"].Enum) != 2 || !slices.Equal(f.Parameters.Required, []string{"nights"}) {
		t.Errorf("fields Ollama carries were lost:\n%s", out)
	}
}
