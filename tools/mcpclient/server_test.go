package mcpclient

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
)

// testServerEnv makes this test binary an MCP server on stdio (see init):
// the tools tests take as a source, so they need no node.
const testServerEnv = "TOOLCALL_TEST_MCP_SERVER"

func init() {
	if os.Getenv(testServerEnv) != "1" {
		return
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	object := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echo text.", InputSchema: object, Annotations: readOnly},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("echo: " + gjson.GetBytes(r.Params.Arguments, "text").Str + " " + os.Getenv("TEST_MCP_TOKEN")), nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Fail.", InputSchema: map[string]any{"type": "object"}, Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := text("it went wrong")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&mcp.Tool{Name: "big", Description: "Say much.", InputSchema: map[string]any{"type": "object"}, Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(strings.Repeat("0123456789", 10000)), nil
		})
	s.AddTool(&mcp.Tool{Name: "slow", Description: "Wait.", InputSchema: map[string]any{"type": "object"}, Annotations: readOnly},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(&mcp.Tool{Name: "die", Description: "Exit.", InputSchema: map[string]any{"type": "object"}, Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Stderr.WriteString("dying now\n")
			os.Exit(3)
			return nil, nil
		})
	destructive := true
	s.AddTool(&mcp.Tool{Name: "wipe", Description: "Side effects.", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("wiped"), nil })
	s.Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0)
}

// execSet is a tools.ToolSet of the tools listed.
type execSet map[string]*tools.Tool

func (s execSet) Lookup(name string) (*tools.Tool, bool) { t, ok := s[name]; return t, ok }
func (s execSet) Names() []string {
	var names []string
	for n := range s {
		names = append(names, n)
	}
	return names
}

// runExec runs tools.Exec over in and returns what it wrote.
func runExec(t testing.TB, ctx context.Context, set tools.ToolSet, in string, opts tools.ExecOptions) (string, tools.ExecStats, error) {
	t.Helper()
	var out bytes.Buffer
	if opts.Environ == nil {
		opts.Environ = []string{"PATH=" + os.Getenv("PATH")}
	}
	st, err := tools.Exec(ctx, strings.NewReader(in), &out, set, opts)
	return out.String(), st, err
}

func callLine(id, name, args string) string {
	return fmt.Sprintf(`{"type":"tool_call","id":%q,"name":%q,"arguments":%s}`+"\n", id, name, args)
}

// testServer is a Server running this test binary as the server.
func testServer(t *testing.T, prefix string) *Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Name: "test", Command: []string{exe}, Prefix: prefix, Env: []string{testServerEnv, "TEST_MCP_TOKEN"},
		Environ: append(os.Environ(), testServerEnv+"=1"), Timeout: 20 * time.Second}
	t.Cleanup(s.Close)
	return s
}

// mcpSet lists the server's tools as a ToolSet.
func mcpSet(t *testing.T, s *Server) execSet {
	t.Helper()
	ts, warns, err := s.Tools()
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) > 0 {
		t.Logf("warnings: %v", warns)
	}
	set := execSet{}
	for _, tl := range ts {
		set[tl.Name] = tl
	}
	return set
}

func TestMCPServerTools(t *testing.T) {
	set := mcpSet(t, testServer(t, "t_"))
	if len(set) != 6 {
		t.Fatalf("%d tools, want 6: %v", len(set), set.Names())
	}
	echo := set["t_echo"]
	if echo == nil || echo.ServerTool != "echo" || !echo.Safe || !strings.Contains(string(echo.InputSchema), `"required":["text"]`) {
		t.Errorf("t_echo: %+v", echo)
	}
	if set["t_wipe"].Safe {
		t.Error("a tool with destructiveHint is taken as safe")
	}
}

func TestMCPServerCalls(t *testing.T) {
	t.Setenv("TEST_MCP_TOKEN", "sk-proj-abcdefghijklmnopqrstuvwx")
	set := mcpSet(t, testServer(t, ""))
	scratch := t.TempDir()
	in := callLine("1", "echo", `{"text":"hi"}`) +
		callLine("2", "echo", `{"txt":"hi"}`) +
		callLine("3", "fail", `{}`) +
		callLine("4", "big", `{}`) +
		callLine("5", "slow", `{}`) +
		callLine("6", "wipe", `{}`)
	out, _, err := runExec(t, context.Background(), set, in, tools.ExecOptions{MaxOutput: 1000, Scratch: scratch, Timeout: 2 * time.Second, Environ: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	obs := map[string]gjson.Result{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if gjson.Get(line, "type").Str == "tool_observation" {
			obs[gjson.Get(line, "id").Str] = gjson.Parse(line)
		}
	}
	check := func(id, path, want string) {
		t.Helper()
		if got := obs[id].Get(path).String(); got != want {
			t.Errorf("call %s: %s = %q, want %q\n%s", id, path, got, want, obs[id].Raw)
		}
	}
	check("1", "content", "echo: hi [REDACTED]")
	check("1", "status", "ok")
	check("1", "exit_code", "")
	check("2", "error.kind", "validation")
	check("3", "error.kind", "execution")
	check("3", "content", "it went wrong")
	check("4", "truncated", "true")
	check("4", "status", "partial")
	if ref := obs["4"].Get("ref").Str; !strings.HasPrefix(ref, "ref:") {
		t.Errorf("a cut MCP result has no ref: %s", obs["4"].Raw)
	}
	check("5", "error.kind", "timeout")
	check("6", "error.kind", "permission")
}

func TestMCPServerDies(t *testing.T) {
	set := mcpSet(t, testServer(t, ""))
	out, _, err := runExec(t, context.Background(), set, callLine("1", "die", `{}`)+callLine("2", "echo", `{"text":"x"}`), tools.ExecOptions{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, id := range []string{"1", "2"} {
		var o gjson.Result
		for _, l := range lines {
			if gjson.Get(l, "type").Str == "tool_observation" && gjson.Get(l, "id").Str == id {
				o = gjson.Parse(l)
			}
		}
		if o.Get("error.kind").Str != "execution" || !strings.Contains(o.Get("content").Str, "MCP server test") {
			t.Errorf("call %s to a dead server: %s", id, o.Raw)
		}
	}
}

func TestMCPServerFailsToStart(t *testing.T) {
	dir := t.TempDir()
	hang := filepath.Join(dir, "hang")
	os.WriteFile(hang, []byte("#!/bin/sh\necho starting >&2\nexec sleep 300\n"), 0o755)
	for _, c := range []struct {
		name    string
		command []string
		want    string
	}{
		{"missing", []string{filepath.Join(dir, "nothing")}, "could not be started"},
		{"exits", []string{"/bin/sh", "-c", "echo no config >&2; exit 1"}, "no config"},
		{"hangs", []string{hang}, "did not answer initialize within 500ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Server{Name: "bad", Command: c.command, Timeout: 500 * time.Millisecond}
			defer s.Close()
			start := time.Now()
			_, _, err := s.Tools()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Tools: %v, want an error saying %q", err, c.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Tools took %v", d)
			}
		})
	}
}

func TestParseMCPServer(t *testing.T) {
	s, ok, err := ParseSidecar("a.json", []byte(`{"mcp_server":{"command":["npx","-y","x"],"env":["TOKEN"],"prefix":"gh_","timeout":"5s"}}`))
	if !ok || err != nil || strings.Join(s.Command, " ") != "npx -y x" || s.Prefix != "gh_" || s.Timeout != 5*time.Second || s.Env[0] != "TOKEN" {
		t.Errorf("ParseSidecar: %+v %v %v", s, ok, err)
	}
	if _, ok, _ := ParseSidecar("b.json", []byte(`{"description":"a tool"}`)); ok {
		t.Error("a tool's sidecar read as an MCP server")
	}
	for _, bad := range []string{`{"mcp_server":{}}`, `{"mcp_server":{"command":"npx x"}}`, `{"mcp_server":{"command":["x"],"cmd":1}}`, `{"mcp_server":[]}`} {
		if _, ok, err := ParseSidecar("c.json", []byte(bad)); !ok || err == nil || !strings.Contains(err.Error(), "c.json: ") {
			t.Errorf("%s: ok %v, err %v; want an error naming the file", bad, ok, err)
		}
	}
}

// benchServer is the test MCP server for a benchmark, stopped at its end.
func benchServer(b *testing.B) *Server {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{Name: "test", Command: []string{exe}, Env: []string{testServerEnv}, Environ: append(os.Environ(), testServerEnv+"=1")}
	b.Cleanup(s.Close)
	return s
}

// BenchmarkMCPToolExec is one call of an MCP server's tool through Exec,
// checks, observation and redaction included; compare it with
// BenchmarkMCPToolDirect, the same call straight to the server, for what
// toolcall adds.
func BenchmarkMCPToolExec(b *testing.B) {
	s := benchServer(b)
	ts, _, err := s.Tools()
	if err != nil {
		b.Fatal(err)
	}
	set := execSet{}
	for _, t := range ts {
		set[t.Name] = t
	}
	in := callLine("1", "echo", `{"text":"hi"}`)
	opts := tools.ExecOptions{Environ: []string{"PATH=/usr/bin:/bin", "API_KEY=abcdefabcdef"}}
	for b.Loop() {
		var out bytes.Buffer
		if _, err := tools.Exec(context.Background(), strings.NewReader(in), &out, set, opts); err != nil || !strings.Contains(out.String(), `"content":"echo: hi `) {
			b.Fatalf("%v: %s", err, out.String())
		}
	}
}

// BenchmarkMCPToolDirect is the server's own time for the call of
// BenchmarkMCPToolExec, through the SDK's client alone.
func BenchmarkMCPToolDirect(b *testing.B) {
	s := benchServer(b)
	cs, err := s.connect()
	if err != nil {
		b.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}
	for b.Loop() {
		if r, err := cs.CallTool(context.Background(), params); err != nil || r.IsError {
			b.Fatal(err)
		}
	}
}

// FuzzParseMCPServer: any sidecar is either not a server, or an error
// naming its file, or a server with either a command to run or a
// loopback URL.
func FuzzParseMCPServer(f *testing.F) {
	for _, s := range []string{
		`{"mcp_server":{"command":["npx","-y","x"],"env":["T"],"prefix":"p_","timeout":"5s"}}`,
		`{"mcp_server":{"command":[]}}`, `{"mcp_server":{"url":"x"}}`, `{"mcp_server":1}`,
		`{"mcp_server":{"url":"http://127.0.0.1:8000/mcp","prefix":"p_"}}`, `{"mcp_server":{"url":"http://[::1]:1/"}}`,
		`{"description":"a tool"}`, `{"mcp_server":{"command":["a"],"timeout":-1}}`, `[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ok, err := ParseSidecar("f.json", data)
		switch {
		case !ok && (s != nil || err != nil):
			t.Fatalf("not a server, yet %v %v", s, err)
		case ok && err != nil && !strings.Contains(err.Error(), "f.json: "):
			t.Fatalf("error without the file: %v", err)
		case ok && err == nil && s == nil:
			t.Fatal("a server, nil")
		case ok && err == nil && s.URL == "" && (len(s.Command) == 0 || s.Command[0] == ""):
			t.Fatalf("a server without a command or a URL: %+v", s)
		case ok && err == nil && s.URL != "" && (len(s.Command) > 0 || len(s.Env) > 0 || CheckURL(s.URL) != nil):
			t.Fatalf("a URL server with a command, env or a URL off this machine: %+v", s)
		}
	})
}

func TestParseMCPServerURL(t *testing.T) {
	s, ok, err := ParseSidecar("u.json", []byte(`{"mcp_server":{"url":"http://127.0.0.1:8000/mcp","prefix":"u_","timeout":"5s"}}`))
	if !ok || err != nil || s.URL != "http://127.0.0.1:8000/mcp" || len(s.Command) != 0 || s.Prefix != "u_" || s.Timeout != 5*time.Second {
		t.Fatalf("ParseSidecar: %+v %v %v", s, ok, err)
	}
	for _, good := range []string{"http://localhost:1/mcp", "https://[::1]:8443/", "http://127.1.2.3/x", "http://LOCALHOST/mcp", "http://u:p@127.0.0.1:1/mcp"} {
		if _, _, err := ParseSidecar("u.json", []byte(`{"mcp_server":{"url":"`+good+`"}}`)); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for bad, want := range map[string]string{
		`{"mcp_server":{"url":"http://192.0.2.1:8000/mcp"}}`:                 "loopback only",
		`{"mcp_server":{"url":"http://me:s3cret@example.com/mcp"}}`:          "loopback only",
		`{"mcp_server":{"url":"http://0.0.0.0:8000/mcp"}}`:                   "loopback only",
		`{"mcp_server":{"url":"http://localhost.example.com/mcp"}}`:          "loopback only",
		`{"mcp_server":{"url":"ftp://127.0.0.1/mcp"}}`:                       "http:// or https://",
		`{"mcp_server":{"url":"127.0.0.1:8000"}}`:                            "not a URL",
		`{"mcp_server":{"url":"localhost/mcp"}}`:                             "http:// or https://",
		`{"mcp_server":{"url":"http:///mcp"}}`:                               "no host",
		`{"mcp_server":{"url":"http://me:s3cret@127.0.0.1:bad/"}}`:           "not a URL",
		`{"mcp_server":{"url":8000}}`:                                        "must be a string",
		`{"mcp_server":{"url":"http://127.0.0.1:1/","command":["x"]}}`:       `both "command" and "url"`,
		`{"mcp_server":{"url":"http://127.0.0.1:1/","env":["TOKEN"]}}`:       `remove "env"`,
		`{"mcp_server":{"prefix":"x_"}}`:                                     `needs "command"`,
		`{"mcp_server":{"url":"http://127.0.0.1:1/","commmand":["x"]}}`:      "unknown key",
		`{"mcp_server":{"url":"http://127.0.0.1:1/","timeout":"forever"}}`:   "timeout",
		`{"mcp_server":{"url":"http://me:s3cret@192.0.2.1:1/","env":["T"]}}`: "loopback only",
	} {
		_, ok, err := ParseSidecar("u.json", []byte(bad))
		if !ok || err == nil || !strings.Contains(err.Error(), "u.json: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error naming the file and saying %q", bad, err, want)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", bad, err)
		}
	}
}

func TestMCPServerURLWithoutDial(t *testing.T) {
	s := &Server{Name: "u.json", URL: "http://me:s3cret@127.0.0.1:1/mcp"}
	defer s.Close()
	_, _, err := s.Tools()
	if err == nil || !strings.Contains(err.Error(), "Dialer") || !strings.Contains(err.Error(), "http://127.0.0.1:1/mcp") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Tools of a URL server with no way to reach it: %v", err)
	}
}

// memoryServer is an MCP server reached over the SDK's in-memory
// transport, as if at a URL: Dial hands the client's end over.
func memoryServer(t *testing.T) (*Server, *mcp.Server) {
	t.Helper()
	up := mcp.NewServer(&mcp.Implementation{Name: "memory", Version: "1"}, nil)
	up.AddTool(&mcp.Tool{Name: "first", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	go up.Run(ctx, st)
	s := &Server{Name: "memory", URL: "http://127.0.0.1:1/mcp", Dial: func(string) (mcp.Transport, error) { return ct, nil }}
	t.Cleanup(func() { s.Close(); cancel() })
	return s, up
}

func TestMCPServerListChanged(t *testing.T) {
	s, up := memoryServer(t)
	changed := make(chan struct{}, 1)
	s.OnListChanged = func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	names := func() string {
		ts, _, err := s.Tools()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range ts {
			out = append(out, tl.Name)
		}
		return strings.Join(out, " ")
	}
	if got := names(); got != "first" {
		t.Fatalf("tools %q", got)
	}
	first, _, _ := s.Tools()
	if again, _, _ := s.Tools(); &again[0] != &first[0] {
		t.Error("the list was asked for again though nothing changed")
	}
	up.AddTool(&mcp.Tool{Name: "second", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	<-changed
	if got := names(); got != "first second" {
		t.Errorf("after list_changed: %q", got)
	}
}
