package mcpserve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCallNormalizes: mcp serve applies a sidecar's aliases as exec does,
// says what it changed in the result's _meta, refuses an alias given with
// its property, and never lists the aliases.
func TestCallNormalizes(t *testing.T) {
	dir := t.TempDir()
	writeTool(t, dir, "echo", `{"description":"Echo the input.","safe":true,
		"input_schema":{"type":"object","properties":{"text":{"type":"string"},"case":{"enum":["upper","lower"]}},"required":["text"],"additionalProperties":false},
		"aliases":{"t":"text"},"value_aliases":{"/case":{"U":"upper"}}}`, "cat\n")
	_, cs := serve(t, dir, Options{}, nil)

	// (The client sends the arguments with their keys sorted.)
	r := call(t, cs, "echo", map[string]any{"t": "hi", "case": "U"})
	if r.IsError || text(r) != `{"case":"upper","text":"hi"}` {
		t.Errorf("echo: isError %v, %q", r.IsError, text(r))
	}
	if b, _ := json.Marshal(r.Meta[MetaNormalized]); string(b) != `[{"from":"U","pointer":"/case","to":"upper"},{"from":"/t","to":"/text"}]` {
		t.Errorf("_meta: %s", b)
	}
	if r := call(t, cs, "echo", map[string]any{"text": "hi"}); r.Meta[MetaNormalized] != nil {
		t.Errorf("_meta of a call without aliases: %v", r.Meta)
	}
	r = call(t, cs, "echo", map[string]any{"t": "hi", "text": "ho"})
	if !r.IsError || !strings.Contains(text(r), `"t" is another name for "text", and the call also gives "text"`) {
		t.Errorf("collision: isError %v, %q", r.IsError, text(r))
	}
	list, err := cs.ListTools(t.Context(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(list); strings.Contains(string(b), `"t"`) || strings.Contains(string(b), "aliases") {
		t.Errorf("tools/list shows the aliases: %s", b)
	}
}
