package mcpserve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/catalog"
)

// upstreamDir is a tools directory whose one sidecar declares an MCP
// server by URL, and the options that reach up in its place, in memory.
func upstreamDir(t testing.TB, up *mcp.Server) (string, catalog.LoadOptions) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "up.json"), []byte(`{"mcp_server":{"url":"http://127.0.0.1:9/mcp","prefix":"up_"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dial := func(string) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go up.Run(ctx, st)
		return ct, nil
	}
	return dir, catalog.LoadOptions{MCPDialer: dial}
}

// serveUpstream serves the tools of up through toolcall's server, and
// connects a client with copts to it, until the test ends.
func serveUpstream(t *testing.T, up *mcp.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	dir, lopts := upstreamDir(t, up)
	c, err := catalog.Load([]string{dir}, lopts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Catalog: c, Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	go s.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		s.Close()
	})
	return cs
}

func upstreamTool(up *mcp.Server, name, says string) {
	up.AddTool(&mcp.Tool{Name: name, Description: "Say " + says + ".", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: says}}}, nil
		})
}

// An upstream MCP server that adds a tool while toolcall serves its
// tools: the client is told (with polling of the directories off), and
// the new tool is listed and callable.
func TestUpstreamListChanged(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	upstreamTool(up, "first", "one")
	changed := make(chan struct{}, 10)
	cs := serveUpstream(t, up, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx := context.Background()
	names := func() string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return strings.Join(out, " ")
	}
	if got := names(); got != "up_first" {
		t.Fatalf("tools/list: %q", got)
	}

	upstreamTool(up, "second", "two")
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the upstream server added a tool")
	}
	if got := names(); got != "up_first up_second" {
		t.Errorf("tools/list after the change: %q", got)
	}
	if r := call(t, cs, "up_second", nil); text(r) != "two" {
		t.Errorf("the new tool: %q", text(r))
	}

	up.RemoveTools("first")
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the upstream server removed a tool")
	}
	if got := names(); got != "up_second" {
		t.Errorf("tools/list after a removal: %q", got)
	}
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_first"}); err == nil {
		t.Errorf("a removed tool still answers: %q", text(r))
	}
}

// A tool passed on from another MCP server is held to the outputSchema it
// is listed with, as a local tool is: a result that breaks it goes out as
// an isError result saying why, without the structuredContent.
func TestUpstreamStructuredResultsConform(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []string{"n"}}
	for name, structured := range map[string]any{"good": map[string]any{"n": 7}, "bad": map[string]any{"n": "seven"}} {
		up.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, OutputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a result"}}, StructuredContent: structured}, nil
			})
	}
	cs := serveUpstream(t, up, nil)
	if r := call(t, cs, "up_good", nil); r.IsError || r.StructuredContent == nil {
		t.Errorf("up_good: isError %v, structuredContent %v", r.IsError, r.StructuredContent)
	}
	r := call(t, cs, "up_bad", nil)
	if !r.IsError || r.StructuredContent != nil || !strings.Contains(text(r), "structuredContent/n: expected integer") {
		t.Errorf("up_bad: isError %v, structuredContent %v, %q", r.IsError, r.StructuredContent, text(r))
	}
}
