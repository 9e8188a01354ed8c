package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// loopbackMCP is an MCP server over streamable HTTP on a loopback port
// with the two tools of server-everything the scripted model
// testdata/models/mcp-model calls, so every subcommand can be tried on a
// "url" server without node.
func loopbackMCP(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "loopback", Version: "1"}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echo a message.", Annotations: readOnly,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []string{"message"}}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + gjson.GetBytes(r.Params.Arguments, "message").Str}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "get-sum", Description: "Add two numbers.", Annotations: readOnly,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "number"}, "b": map[string]any{"type": "number"}}, "required": []string{"a", "b"}}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, b := gjson.GetBytes(r.Params.Arguments, "a").Float(), gjson.GetBytes(r.Params.Arguments, "b").Float()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("The sum of %v and %v is %v.", a, b, a+b)}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL + "/mcp"
}

// TestURLServerEverywhere: a "url" mcp_server sidecar, and --mcp URL, work
// in every subcommand that loads tools.
func TestURLServerEverywhere(t *testing.T) {
	clearEnv(t)
	url := loopbackMCP(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "loopback.json"), []byte(`{"mcp_server":{"url":"`+url+`","timeout":"10s"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs(filepath.Join(moduleRoot, "testdata", "models", "mcp-model"))
	if err != nil {
		t.Fatal(err)
	}
	calls := `{"type":"tool_call","id":"c1","name":"echo","arguments":{"message":"hi"}}` + "\n" +
		`{"type":"tool_call","id":"c2","name":"get-sum","arguments":{"a":"two","b":40}}` + "\n"
	mcpIn := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":1,"b":2}}}` + "\n"
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"catalog", []string{"catalog", "--tools", dir, "--format", "prompt"}, "", []string{"### echo", "### get-sum"}},
		{"validate", []string{"validate", "--tools", dir}, calls, []string{`"id":"c1","name":"echo","arguments":{"message":"hi"},"validated":true`, `"kind":"validation"`}},
		{"exec", []string{"exec", "--tools", dir}, calls, []string{`"content":"Echo: hi"`, `/a: expected number`}},
		{"exec --mcp", []string{"exec", "--mcp", url}, calls, []string{`"content":"Echo: hi"`}},
		{"run", []string{"run", "--tools", dir, "--model-cmd", model, "Echo hello, and add 17 and 25."}, "",
			[]string{`"content":"The MCP server said: Echo: hello from toolcall The sum of 17 and 25 is 42."`}},
		{"mcp serve", []string{"mcp", "serve", "--tools", dir}, mcpIn, []string{`The sum of 1 and 2 is 3.`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, stderr.String())
			}
			for _, want := range c.want {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout does not hold %s:\n%s\nstderr: %s", want, stdout.String(), stderr.String())
				}
			}
		})
	}
}

// TestServerEverythingOverHTTP: server-everything (pinned in testdata/mcp)
// serving streamable HTTP on a loopback port, used through a "url"
// sidecar by exec, run and mcp serve.
func TestServerEverythingOverHTTP(t *testing.T) {
	bin := nodeBin(t)
	clearEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// A port free a moment ago: server-everything takes its port from
	// PORT and cannot be asked for any free one.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	srv := exec.CommandContext(ctx, filepath.Join(bin, "mcp-server-everything"), "streamableHttp")
	srv.Env = append(os.Environ(), "PORT="+port)
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "listening on port "+port) {
	}
	go func() {
		for lines.Scan() { // keep the pipe from filling
		}
	}()

	dir := t.TempDir()
	url := "http://127.0.0.1:" + port + "/mcp"
	if err := os.WriteFile(filepath.Join(dir, "everything.json"), []byte(`{"mcp_server":{"url":"`+url+`","timeout":"60s"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs(filepath.Join(moduleRoot, "testdata", "models", "mcp-model"))
	if err != nil {
		t.Fatal(err)
	}
	calls := `{"type":"tool_call","id":"c1","name":"echo","arguments":{"message":"hi"}}` + "\n" +
		`{"type":"tool_call","id":"c2","name":"get-sum","arguments":{"a":2,"b":40}}` + "\n"
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"exec", []string{"exec", "--tools", dir}, calls, []string{`"content":"Echo: hi"`, `"content":"The sum of 2 and 40 is 42."`}},
		{"run", []string{"run", "--tools", dir, "--model-cmd", model, "Echo hello, and add 17 and 25."}, "",
			[]string{`"content":"The MCP server said: Echo: hello from toolcall The sum of 17 and 25 is 42."`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := execute(ctx, c.args, strings.NewReader(c.stdin), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, stderr.String())
			}
			for _, want := range c.want {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout does not hold %s:\n%s\nstderr: %s", want, stdout.String(), stderr.String())
				}
			}
		})
	}

	// mcp serve re-serves them to the Inspector.
	inspect := exec.CommandContext(ctx, filepath.Join(bin, "mcp-inspector"), "--cli", "toolcall", "mcp", "serve", "--tools", dir,
		"--method", "tools/call", "--tool-name", "get-sum", "--tool-arg", "a=1", "--tool-arg", "b=2")
	inspect.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := inspect.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"text": "The sum of 1 and 2 is 3."`) {
		t.Errorf("the Inspector through toolcall mcp serve: %v\n%s", err, out)
	}
}
