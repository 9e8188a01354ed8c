package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
)

// writeTool writes an executable shell script and its sidecar into dir.
func writeTool(t testing.TB, dir, name, sidecar, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(sidecar), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// toolsDir is a tools directory of four tools: echo (prints its input),
// three listed a page at a time, and one with side effects.
func toolsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	schema := `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`
	writeTool(t, dir, "echo", `{"description":"Echo the input.","input_schema":`+schema+`,"tags":["text"]}`, "cat\n")
	writeTool(t, dir, "shout", `{"description":"Print a secret.","input_schema":{"type":"object"},"tags":["text","network"]}`, `echo "the key is $SHOUT_TOKEN"`+"\n")
	writeTool(t, dir, "rich", `{"description":"An MCP result.","input_schema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`,
		`echo '{"content":[{"type":"text","text":"n is 7"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"structuredContent":{"n":7}}'`+"\n")
	writeTool(t, dir, "rm_all", `{"description":"Side effects.","input_schema":{"type":"object"},"safe":false}`, "touch removed\n")
	return dir
}

// serve starts a server of dir and connects an SDK client to it in
// memory.
func serve(t testing.TB, dir string, opts Options, copts *mcp.ClientOptions) (*Server, *mcp.ClientSession) {
	t.Helper()
	load := func() (*catalog.Catalog, error) { return catalog.Load([]string{dir}, catalog.LoadOptions{}) }
	c, err := load()
	if err != nil {
		t.Fatal(err)
	}
	opts.Catalog, opts.Reload, opts.Dirs, opts.Poll = c, load, []string{dir}, -1
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return s, cs
}

func TestListIsCatalogsMCPForm(t *testing.T) {
	dir := toolsDir(t)
	_, cs := serve(t, dir, Options{Policy: tools.Policy{AllowUnsafe: true}, PageSize: 3}, nil)

	// Page by page through the cursors, as a client does.
	var got []any
	cursor := ""
	pages := 0
	for {
		res, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, tool := range res.Tools {
			b, _ := json.Marshal(tool)
			var v any
			json.Unmarshal(b, &v)
			got = append(got, v)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if pages != 2 {
		t.Errorf("4 tools in pages of 3 came in %d pages, want 2", pages)
	}

	c, _ := catalog.Load([]string{dir}, catalog.LoadOptions{})
	picked, _ := c.Select(context.Background(), catalog.Selection{Policy: tools.Policy{AllowUnsafe: true}})
	var b bytes.Buffer
	if err := catalog.Render(&b, c, picked, catalog.RenderOptions{Format: catalog.FormatMCP}); err != nil {
		t.Fatal(err)
	}
	var want struct{ Tools []any }
	json.Unmarshal(b.Bytes(), &want)
	// The client's Tool type writes the hints it knows of as false when
	// unset; the server sent them as catalog renders them.
	for _, tool := range got {
		if a, ok := tool.(map[string]any)["annotations"].(map[string]any); ok {
			for _, k := range []string{"readOnlyHint", "idempotentHint"} {
				if a[k] == false {
					delete(a, k)
				}
			}
		}
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want.Tools)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("tools/list:\n got %s\nwant %s", gotJSON, wantJSON)
	}

	if _, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{Cursor: "bm9wZQ"}); err == nil || !strings.Contains(err.Error(), "not a nextCursor") {
		t.Errorf("a bad cursor: %v, want an error saying it is not a nextCursor", err)
	}
}

func TestListFollowsPolicyAndTags(t *testing.T) {
	_, cs := serve(t, toolsDir(t), Options{Policy: tools.Policy{LocalOnly: true}, Tags: []string{"text"}}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "echo" {
		t.Errorf("--local-only --tag text lists %v, want echo alone", res.Tools)
	}
	// A tool --tag leaves out is not there to call at all.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "rich"}); err == nil || !strings.Contains(err.Error(), `Unknown tool "rich"`) {
		t.Errorf("calling a tool outside --tag: %v, want an unknown tool error", err)
	}
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return r
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestCallAsExecRunsIt(t *testing.T) {
	t.Setenv("SHOUT_TOKEN", "hunter2-hunter2-hunter2")
	dir := toolsDir(t)
	work := t.TempDir()
	_, cs := serve(t, dir, Options{Exec: tools.ExecOptions{Workdir: work, Env: []string{"SHOUT_TOKEN"}}}, nil)

	if r := call(t, cs, "echo", map[string]any{"text": "hi"}); r.IsError || text(r) != `{"text":"hi"}` {
		t.Errorf("echo: isError %v, %q", r.IsError, text(r))
	}
	// Checked first: the tool never sees bad arguments.
	r := call(t, cs, "echo", map[string]any{"txt": "hi"})
	if !r.IsError || !strings.Contains(text(r), `The arguments for tool "echo" do not match its input schema`) {
		t.Errorf("bad arguments: isError %v, %q", r.IsError, text(r))
	}
	// Secrets are redacted, as exec redacts them.
	if r := call(t, cs, "shout", nil); strings.Contains(text(r), "hunter2") || !strings.Contains(text(r), "[REDACTED]") {
		t.Errorf("shout: %q, want the token redacted", text(r))
	}
	// An MCP result keeps its parts and structured content.
	r = call(t, cs, "rich", nil)
	if len(r.Content) != 2 || r.IsError {
		t.Fatalf("rich: %d parts, isError %v, want 2 parts", len(r.Content), r.IsError)
	}
	if img, ok := r.Content[1].(*mcp.ImageContent); !ok || string(img.Data) != "hi" {
		t.Errorf("rich: second part %#v, want the image", r.Content[1])
	}
	if b, _ := json.Marshal(r.StructuredContent); string(b) != `{"n":7}` {
		t.Errorf("rich: structuredContent %s", b)
	}
	// Unsafe without consent: refused, never run.
	r = call(t, cs, "rm_all", nil)
	if !r.IsError || !strings.Contains(text(r), "has side effects (safe: false)") {
		t.Errorf("rm_all: isError %v, %q", r.IsError, text(r))
	}
	if _, err := os.Stat(filepath.Join(work, "removed")); err == nil {
		t.Error("rm_all ran without consent")
	}
}

func TestCancelKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	work := t.TempDir()
	// The tool starts a child of its own, writes both pids, and waits.
	writeTool(t, dir, "slow", `{"description":"Slow.","input_schema":{"type":"object"}}`,
		"sleep 300 &\necho $$ $! > pids.tmp\nmv pids.tmp pids\nwait\n")
	_, cs := serve(t, dir, Options{Exec: tools.ExecOptions{Workdir: work, Timeout: time.Minute}}, nil)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		done <- err
	}()
	var pids []int
	deadline := time.Now().Add(30 * time.Second)
	for len(pids) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the tool did not start")
		}
		if b, err := os.ReadFile(filepath.Join(work, "pids")); err == nil {
			for _, f := range strings.Fields(string(b)) {
				n, _ := strconv.Atoi(f)
				pids = append(pids, n)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel() // the client sends notifications/cancelled
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still runs after the call was cancelled", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

func TestListChangedWhenAToolIsAdded(t *testing.T) {
	dir := toolsDir(t)
	changed := make(chan struct{}, 10)
	s, cs := serve(t, dir, Options{}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if s.Check() {
		t.Error("Check saw a change where there was none")
	}
	writeTool(t, dir, "added", `{"description":"New.","input_schema":{"type":"object"}}`, "echo new\n")
	if !s.Check() {
		t.Fatal("Check did not see the new tool")
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	if r := call(t, cs, "added", nil); text(r) != "new" {
		t.Errorf("the new tool: %q", text(r))
	}
	// A broken sidecar keeps the tools as they were.
	os.WriteFile(filepath.Join(dir, "added.json"), []byte("{"), 0o644)
	s.Check()
	if r := call(t, cs, "added", nil); text(r) != "new" {
		t.Errorf("after a broken reload: %q", text(r))
	}
}

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr    string
		anyHost bool
		ok      bool
	}{
		{"127.0.0.1:8765", false, true},
		{"[::1]:8765", false, true},
		{"localhost:8765", false, true},
		{"0.0.0.0:8765", false, false},
		{":8765", false, false},
		{"192.168.1.2:8765", false, false},
		{"0.0.0.0:8765", true, true},
		{"8765", true, false},
	} {
		err := CheckListen(c.addr, c.anyHost)
		if (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, %v) = %v", c.addr, c.anyHost, err)
		}
	}
}

// On stdio, the end of the input waits for the answers to the requests
// read, but not for one the client cancelled: Run returns, and the
// cancelled call's tool is gone.
func TestStdioEndsAfterTheAnswers(t *testing.T) {
	dir := t.TempDir()
	work := t.TempDir()
	writeTool(t, dir, "slow", `{"description":"Slow.","input_schema":{"type":"object"}}`, "echo $$ > pid.tmp\nmv pid.tmp pid\nexec sleep 300\n")
	writeTool(t, dir, "quick", `{"description":"Quick.","input_schema":{"type":"object"}}`, "echo done\n")
	c, err := catalog.Load([]string{dir}, catalog.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Catalog: c, Poll: -1, Exec: tools.ExecOptions{Workdir: work, Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	requests, feed := io.Pipe()
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), Stdio(requests, &out)) }()
	send := func(line string) {
		if _, err := feed.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"quick","arguments":{}}}`)
	deadline := time.Now().Add(30 * time.Second)
	var pid int
	for pid == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slow tool did not start")
		}
		if b, err := os.ReadFile(filepath.Join(work, "pid")); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	feed.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the input ended")
	}
	if !strings.Contains(out.String(), `"id":3,"result":{"content":[{"type":"text","text":"done"}]}`) {
		t.Errorf("no answer to the quick call:\n%s", out.String())
	}
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled call's tool still runs")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatchNotices: the polling loop itself sees a new tool and the
// client hears of it.
func TestWatchNotices(t *testing.T) {
	dir := toolsDir(t)
	changed := make(chan struct{}, 10)
	c, _ := catalog.Load([]string{dir}, catalog.LoadOptions{})
	s, err := New(Options{Catalog: c, Dirs: []string{dir}, Poll: 20 * time.Millisecond,
		Reload: func() (*catalog.Catalog, error) { return catalog.Load([]string{dir}, catalog.LoadOptions{}) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	go s.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	os.Remove(filepath.Join(dir, "echo.json"))
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/tools/list_changed after a sidecar was removed")
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "echo" {
			t.Error("echo is still listed")
		}
	}
}

// lockedBuffer is a bytes.Buffer written by the server and read by the
// test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A structured result that breaks the outputSchema the tool was listed
// with is never sent: the client would check it and throw the result
// away. The answer is an isError result that says why, with no
// structuredContent, whether the tool reported an error itself or not.
func TestStructuredResultsConform(t *testing.T) {
	dir := t.TempDir()
	out := `"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	writeTool(t, dir, "good", `{"description":"Conforms.","input_schema":{"type":"object"},`+out+`}`,
		`echo '{"content":[{"type":"text","text":"n is 7"}],"structuredContent":{"n":7}}'`+"\n")
	writeTool(t, dir, "bad", `{"description":"Breaks it.","input_schema":{"type":"object"},`+out+`}`,
		`echo '{"content":[{"type":"text","text":"n is seven"}],"structuredContent":{"n":"seven"}}'`+"\n")
	writeTool(t, dir, "bad_error", `{"description":"Breaks it, in error.","input_schema":{"type":"object"},`+out+`}`,
		`echo '{"content":[{"type":"text","text":"no n"}],"structuredContent":{"m":1},"isError":true}'`+"\n")
	writeTool(t, dir, "none", `{"description":"Promises a structured result, gives text.","input_schema":{"type":"object"},`+out+`}`,
		"echo just text\n")
	_, cs := serve(t, dir, Options{}, nil)

	if r := call(t, cs, "good", nil); r.IsError || r.StructuredContent == nil {
		t.Errorf("good: isError %v, structuredContent %v", r.IsError, r.StructuredContent)
	}
	for name, want := range map[string]string{
		"bad":       `structuredContent/n: expected integer`,
		"bad_error": `structuredContent/n: required property "n" is missing`,
		"none":      `gave no structured result`,
	} {
		r := call(t, cs, name, nil)
		if !r.IsError || r.StructuredContent != nil {
			t.Errorf("%s: isError %v, structuredContent %v; want an error without it", name, r.IsError, r.StructuredContent)
		}
		if !strings.Contains(text(r), want) {
			t.Errorf("%s: %q, want it to say %q", name, text(r), want)
		}
	}
}

// An MCP result past --max-output reaches the client cut in its text, as
// plain output is, not as the raw JSON cut in the middle.
func TestLongMCPResultsAreCutInTheirText(t *testing.T) {
	dir := t.TempDir()
	writeTool(t, dir, "long", `{"description":"Long.","input_schema":{"type":"object"}}`,
		`printf '{"content":[{"type":"text","text":"'; head -c 20000 /dev/zero | tr '\0' x; printf '"}]}'`+"\n")
	_, cs := serve(t, dir, Options{Exec: tools.ExecOptions{MaxOutput: 1000}}, nil)
	got := text(call(t, cs, "long", nil))
	if strings.Contains(got, `{"content"`) || !strings.HasPrefix(got, "xxxx") || !strings.Contains(got, "bytes cut here: the output was 20000 bytes") {
		t.Errorf("the result was not cut in its text:\n%s", got)
	}
}
