package tools

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/internal/leaktest"
	"github.com/toolcall/toolcall/tools/redact"
)

const weatherOutputSchema = `{
  "type": "object",
  "properties": {"temperature": {"type": "number"}, "unit": {"enum": ["C", "F"]}},
  "required": ["temperature", "unit"]
}`

// png1x1 is a one-pixel PNG, base64: what an image part carries.
const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// The cases of interpretOutput: a tool's stdout, and what the model reads.
var resultCases = []struct {
	name      string
	schema    string // the tool's outputSchema, if any
	stdout    string
	truncated bool
}{
	{name: "text", stdout: "Paris: 21 °C, clear\n\n"},
	{name: "text crlf", stdout: "line one\r\nline two\r\n"},
	{name: "invalid utf-8", stdout: "caf\xe9 \xff\xfe ok\n"},
	{name: "empty", stdout: ""},
	{name: "other json", stdout: "{\n  \"temperature\": 21,\n  \"unit\": \"C\"\n}\n"},
	{name: "json array", stdout: `[{"type":"text","text":"not MCP: not an object"}]`},
	{name: "content array with foreign keys", stdout: `{"content":[{"type":"text","text":"a post"}],"next":"page2"}`},
	{name: "content items of unknown type", stdout: `{"content":[{"type":"post","body":"hi"}]}`},
	{name: "mcp text", stdout: `{"content":[{"type":"text","text":"first"},{"type":"text","text":"second"}]}` + "\n"},
	{name: "mcp error", stdout: `{"content":[{"type":"text","text":"city not found: Pariss"}],"isError":true}`},
	{name: "mcp empty", stdout: `{"content":[]}`},
	{name: "mcp image", stdout: `{"content":[{"type":"text","text":"the chart:"},{"type":"image","data":"` + png1x1 + `","mimeType":"image/png"}]}`},
	{name: "mcp large audio", stdout: `{"content":[{"type":"audio","data":"` + strings.Repeat("QUJD", 400000) + `","mimeType":"audio/wav"}]}`},
	{name: "mcp resources", stdout: `{
  "content": [
    {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "buy milk"}},
    {"type": "resource", "resource": {"uri": "file:///logo.png", "mimeType": "image/png", "blob": "` + png1x1 + `"}},
    {"type": "resource_link", "uri": "file:///src/main.go", "name": "main.go"}
  ],
  "_meta": {"server": "files"}
}`},
	{name: "mcp structured only", stdout: `{"content":[],"structuredContent":{"temperature":21.5,"unit":"C"}}`},
	{name: "mcp structured and text", stdout: `{"content":[{"type":"text","text":"21.5 °C"}],"structuredContent":{"temperature":21.5, "unit":"C"}}`},
	{name: "truncated json is text", truncated: true, stdout: `{"content":[{"type":"text","text":"head` + "\n[... 10 bytes cut ...]\n" + `tail"}]}`},
	{name: "schema ok", schema: weatherOutputSchema, stdout: `{"content":[{"type":"text","text":"21.5 °C"}],"structuredContent":{"temperature":21.5,"unit":"C"}}`},
	{name: "schema fails", schema: weatherOutputSchema, stdout: `{"content":[],"structuredContent":{"temperature":"warm","unit":"K"}}`},
	{name: "schema plain json object", schema: weatherOutputSchema, stdout: `{"temperature": 19, "unit": "F"}` + "\n"},
	{name: "schema plain json missing", schema: weatherOutputSchema, stdout: `{"temperature": 19}`},
	{name: "schema text", schema: weatherOutputSchema, stdout: "19 degrees\n"},
	{name: "schema error result is not checked", schema: weatherOutputSchema, stdout: `{"content":[{"type":"text","text":"sensor offline"}],"isError":true}`},
	{name: "schema does not compile", schema: `{"type": 12}`, stdout: `{"temperature": 19}`},
}

func TestInterpretOutput(t *testing.T) {
	var b strings.Builder
	for _, c := range resultCases {
		tool := &Tool{Name: "weather", File: "tools/weather.json"}
		if c.schema != "" {
			tool.OutputSchema = []byte(c.schema)
		}
		r := interpretOutput(tool, []byte(c.stdout), c.truncated)
		fmt.Fprintf(&b, "== %s\n", c.name)
		b.WriteString(showResult(t, r))
	}
	resultGolden(t, "interpret.golden", b.String())
}

// showResult writes a Result for a golden file, checking on the way
// what every Result must be: valid UTF-8 and one-line JSON.
func showResult(t *testing.T, r Result) string {
	t.Helper()
	var b strings.Builder
	content := r.Content
	if len(content) > 300 {
		content = content[:300] + "…"
	}
	fmt.Fprintf(&b, "content: %q\n", content)
	if r.IsError {
		b.WriteString("is_error: true\n")
	}
	for _, raw := range []struct {
		label string
		v     []byte
	}{{"parts", r.Parts}, {"structured", r.Structured}} {
		if raw.v == nil {
			continue
		}
		if !json.Valid(raw.v) || strings.ContainsAny(string(raw.v), "\n\r") {
			t.Errorf("%s is not one line of JSON: %s", raw.label, raw.v)
		}
		s := string(raw.v)
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		fmt.Fprintf(&b, "%s: %s\n", raw.label, s)
	}
	if r.SchemaErr != nil {
		fmt.Fprintf(&b, "schema_err: %v\n", r.SchemaErr)
	}
	return b.String()
}

func resultGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "result", name), []byte(got))
}

func TestInterpretOutputNilTool(t *testing.T) {
	r := interpretOutput(nil, []byte(`{"content":[{"type":"text","text":"hi"}]}`), false)
	if r.Content != "hi" || r.SchemaErr != nil {
		t.Errorf("got %+v", r)
	}
}

// Secrets in a result go wherever the model would read them, but the
// base64 payload of an image is left whole even when it happens to hold
// something shaped like a key.
func TestRedactResult(t *testing.T) {
	key := "sk-proj-" + leaktest.FakeKey(50, 60)
	lookalike := "/AIza" + leaktest.FakeKey(51, 35) + "/" // random base64 can spell this
	if redact.New(nil, nil).String(lookalike) == lookalike {
		t.Fatal("the lookalike is not one: String keeps it")
	}
	stdout := `{"content":[` +
		`{"type":"text","text":"your key is ` + key + `"},` +
		`{"type":"image","mimeType":"image/png","data":"` + png1x1[:20] + lookalike + png1x1[20:] + `"},` +
		`{"type":"resource","resource":{"uri":"file:///env","text":"TOKEN=hunter22-x"}}],` +
		`"structuredContent":{"escaped":"sk-proj-\u0041` + leaktest.FakeKey(52, 40) + `","env":"hunter22-x","n":1}}`
	tool := &Tool{Name: "leaky"}
	r := redactResult(redact.New([]string{"APP_TOKEN=hunter22-x"}, nil), interpretOutput(tool, []byte(stdout), false))
	var b strings.Builder
	b.WriteString(showResult(t, r))
	got := b.String()
	for _, leak := range []string{key, "hunter22-x", leaktest.FakeKey(52, 40)} {
		if strings.Contains(got, leak) {
			t.Errorf("%q leaked", leak)
		}
	}
	if !strings.Contains(string(r.Parts), lookalike) {
		t.Errorf("the image data was changed: %s", r.Parts)
	}
	resultGolden(t, "redact_result.golden", got)
}

func TestRedactSchemaErr(t *testing.T) {
	tool := &Tool{Name: "w", OutputSchema: []byte(`{"type":"object","properties":{"unit":{"enum":["C","F"]}}}`)}
	r := interpretOutput(tool, []byte(`{"unit":"ghp_`+leaktest.FakeKey(53, 36)+`"}`), false)
	if r.SchemaErr == nil {
		t.Fatal("want a schema error")
	}
	r = redactResult(redact.New(nil, nil), r)
	if msg := r.SchemaErr.Error(); strings.Contains(msg, leaktest.FakeKey(53, 36)[5:]) || !strings.Contains(msg, "structuredContent") {
		t.Errorf("schema error: %s", msg)
	}
}
