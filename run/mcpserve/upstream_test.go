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
	dir, lopts := upstreamDir(t, up)
	c, err := catalog.Load([]string{dir}, lopts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Catalog: c, Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	go s.Run(ctx, st)
	changed := make(chan struct{}, 10)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
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
	if r := call(t, cs, "up_first", nil); !r.IsError {
		t.Errorf("a removed tool still answers: %q", text(r))
	}
}
