//lint:file-ignore SA1019 MCP logging is deprecated from protocol 2026-07-28 (SEP-2577), but the versions before it still have it, and issue 27 asks for it to be passed on.

package mcpserve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
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
func serveUpstream(t *testing.T, up *mcp.Server, opts Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	dir, lopts := upstreamDir(t, up)
	s := newServer(t, dir, lopts, opts)
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
	cs := serveUpstream(t, up, Options{}, &mcp.ClientOptions{
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
	cs := serveUpstream(t, up, Options{}, nil)
	if r := call(t, cs, "up_good", nil); r.IsError || r.StructuredContent == nil {
		t.Errorf("up_good: isError %v, structuredContent %v", r.IsError, r.StructuredContent)
	}
	r := call(t, cs, "up_bad", nil)
	if !r.IsError || r.StructuredContent != nil || !strings.Contains(text(r), "structuredContent/n: expected integer") {
		t.Errorf("up_bad: isError %v, structuredContent %v, %q", r.IsError, r.StructuredContent, text(r))
	}
}

// In front of another MCP server, toolcall passes on what that server
// says while a call of its tool runs, progress under the client's own
// token and log messages at the client's level, with secrets redacted as
// in results; and a call the client cancels is cancelled there too.
func TestUpstreamProgressLogsAndCancel(t *testing.T) {
	t.Setenv("GATEWAY_TOKEN", "s3cret-s3cret-s3cret")
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	want := []string{"log info up starting with [REDACTED]", "progress mine 1/2 step 1", "progress mine 2/2 step 2"}
	allHeard := make(chan struct{})
	up.AddTool(&mcp.Tool{Name: "work", InputSchema: map[string]any{"type": "object"}, Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tok := req.Params.GetProgressToken()
			if tok == nil {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no progress token"}}, IsError: true}, nil
			}
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: "too fine to pass on"})
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "up", Data: "starting with s3cret-s3cret-s3cret"})
			for i := 1; i <= 2; i++ {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: "step " + strconv.Itoa(i)})
			}
			// The result waits until the client heard it all: the SDK
			// may hand a result over before the notifications read
			// ahead of it, and what comes after the result is dropped.
			select {
			case <-allHeard:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	cancelled := make(chan struct{})
	up.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}, Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		})

	var mu sync.Mutex
	var heard []string
	note := func(s string) {
		mu.Lock()
		heard = append(heard, s)
		if len(heard) == len(want) {
			close(allHeard)
		}
		mu.Unlock()
	}
	cs := serveUpstream(t, up, Options{Exec: tools.ExecOptions{Env: []string{"GATEWAY_TOKEN"}}}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			note(fmt.Sprintf("progress %v %v/%v %s", r.Params.ProgressToken, r.Params.Progress, r.Params.Total, r.Params.Message))
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			note(fmt.Sprintf("log %s %s %s", r.Params.Level, r.Params.Logger, r.Params.Data))
		},
	})
	ctx := context.Background()
	// The level, as clients of each protocol version give it: before
	// 2026-07-28 for the session, from then on with each request.
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "up_work", Arguments: map[string]any{}, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
	params.SetProgressToken("mine")
	r, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if text(r) != "done" {
		t.Fatalf("up_work: %q", text(r))
	}
	mu.Lock()
	got := slices.Clone(heard)
	mu.Unlock()
	if !slices.Equal(got, want) {
		t.Errorf("the client heard:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "up_wait", Arguments: map[string]any{}})
		done <- err
	}()
	// Cancel once the upstream call is running: the waiter only returns
	// when the server cancels it, so keep cancelling until it does.
	defer stop()
	deadline := time.Now().Add(30 * time.Second)
	stopped := false
	for !stopped {
		select {
		case <-cancelled:
			stopped = true
		case <-time.After(10 * time.Millisecond):
			stop()
			if time.Now().After(deadline) {
				t.Fatal("the upstream call was not cancelled")
			}
		}
	}
	<-done
}

// A passed-on tool's long result is cut in its text too.
func TestUpstreamLongResultsAreCutInTheirText(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	upstreamTool(up, "long", strings.Repeat("y", 20000))
	cs := serveUpstream(t, up, Options{Exec: tools.ExecOptions{MaxOutput: 1000}}, nil)
	got := text(call(t, cs, "up_long", nil))
	if strings.Contains(got, `{"content"`) || !strings.HasPrefix(got, "yyyy") || !strings.Contains(got, "bytes cut here: the output was 20000 bytes") {
		t.Errorf("the result was not cut in its text:\n%s", got)
	}
}
