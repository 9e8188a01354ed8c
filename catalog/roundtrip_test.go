package catalog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolcall/toolcall/tools"
)

// TestJSONLRoundTrip: a tool event of catalog's jsonl format, read as a
// sidecar, gives the tool it came from, for a sidecar of every dialect:
// jsonl is the form that keeps every part of a definition. (openai,
// anthropic and ollama cannot carry "safe", tags or examples; mcp carries
// safety only as hints.)
func TestJSONLRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "tools", "testdata", "sidecars", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sidecars := map[string][]byte{
		"mcp_execution.json": []byte(`{"name":"long_job","title":"Long job","description":"Runs for a while.","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}},"annotations":{"readOnlyHint":true,"openWorldHint":true},"execution":{"taskSupport":"optional"},"icons":[{"src":"https://example.com/i.png","mimeType":"image/png"}],"_meta":{"vendor/x":1}}`),
		"everything.json":    []byte(`{"name":"all","description":"All keys.","input_schema":{"type":"object"},"safe":false,"timeout":"1m30s","tags":["a","network"],"examples":[{"arguments":{}},{"request":"Do it all.","arguments":{"x":1}}],"requires":["jq"],"platforms":["linux","darwin/arm64"],"env":["HOME_DIR"],"strict":false,"command":"bin/all"}`),
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "err_") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sidecars[filepath.Base(f)] = data
	}
	dialects := map[string]bool{}
	for name, data := range sidecars {
		first, _, err := tools.ParseSidecar(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dialects[first.Dialect] = true
		if first.Command == "" {
			first.Command = "tools/" + first.Name // as the loader finds it
		}
		var out bytes.Buffer
		if err := Render(&out, New([]*tools.Tool{first}), []Ranked{{Tool: first}}, RenderOptions{Format: FormatJSONL}); err != nil {
			t.Fatal(err)
		}
		again, _, err := tools.ParseSidecar(name, out.Bytes())
		if err != nil {
			t.Errorf("%s: the jsonl event does not read as a sidecar: %v\n%s", name, err, out.Bytes())
			continue
		}
		// Command is the loader's to resolve, Dialect says where the
		// definition came from: neither is part of the definition.
		ignore := cmpopts.IgnoreFields(tools.Tool{}, "Command", "Dialect")
		if diff := cmp.Diff(first, again, ignore, cmpopts.IgnoreUnexported(tools.Tool{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: the tool read back from jsonl differs (-sidecar +jsonl):\n%s\n%s", name, diff, out.Bytes())
		}
	}
	for _, d := range []string{tools.DialectToolcall, tools.DialectOpenAI, tools.DialectAnthropic, tools.DialectMCP, tools.DialectBFCL} {
		if !dialects[d] {
			t.Errorf("no sidecar of dialect %s was tried", d)
		}
	}
}

// The mcp format passes on the MCP fields toolcall does not read.
func TestRenderMCPKeepsItsFields(t *testing.T) {
	tool, _, err := tools.ParseSidecar("long_job.json", []byte(`{"name":"long_job","description":"Runs for a while.","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"},"icons":[{"src":"https://example.com/i.png"}],"_meta":{"vendor/x":1},"x-other":true}`))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Render(&out, New([]*tools.Tool{tool}), []Ranked{{Tool: tool}}, RenderOptions{Format: FormatMCP}); err != nil {
		t.Fatal(err)
	}
	want := `{"tools":[{"name":"long_job","description":"Runs for a while.","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"},"icons":[{"src":"https://example.com/i.png"}],"_meta":{"vendor/x":1}}]}` + "\n"
	if out.String() != want {
		t.Errorf("got  %s\nwant %s", out.String(), want)
	}
}
