package mcpserve

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
)

// benchDir is a tools directory of one trivial tool, "ok".
func benchDir(b *testing.B) string {
	dir := b.TempDir()
	writeTool(b, dir, "ok", `{"description":"Say ok.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`, "echo ok\n")
	return dir
}

var benchEnviron = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "API_KEY=abcdefabcdef"}

// BenchmarkToolsCall is one tools/call from an SDK client, in memory,
// through the server to the tool and back; compare it with
// BenchmarkExecSameCall for what MCP adds to a call.
func BenchmarkToolsCall(b *testing.B) {
	dir := benchDir(b)
	_, cs := serve(b, dir, Options{Exec: tools.ExecOptions{Environ: benchEnviron}}, nil)
	params := &mcp.CallToolParams{Name: "ok", Arguments: map[string]any{"city": "Paris"}}
	for b.Loop() {
		r, err := cs.CallTool(context.Background(), params)
		if err != nil || r.IsError || text(r) != "ok" {
			b.Fatalf("%v: %v", err, r)
		}
	}
}

// BenchmarkExecSameCall is the same call through tools.Exec, as toolcall
// exec runs it.
func BenchmarkExecSameCall(b *testing.B) {
	c, err := catalog.Load([]string{benchDir(b)}, catalog.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	in := `{"type":"tool_call","id":"call_1","name":"ok","arguments":{"city":"Paris"}}` + "\n"
	opts := tools.ExecOptions{Environ: benchEnviron}
	for b.Loop() {
		var out bytes.Buffer
		if _, err := tools.Exec(context.Background(), strings.NewReader(in), &out, c, opts); err != nil || !strings.Contains(out.String(), `"content":"ok"`) {
			b.Fatalf("%v: %s", err, out.String())
		}
	}
}
