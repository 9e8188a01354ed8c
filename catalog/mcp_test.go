package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/tools/mcpclient"
)

// A sidecar that declares an MCP server which cannot start: the load goes
// on, the server's tools are left out, and a warning says why.
func TestLoadWithholdsAServerThatFails(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "srv.json"), []byte(`{"mcp_server":{"command":["/bin/sh","-c","echo cannot start >&2; exit 1"],"timeout":"5s","unchecked_command":true}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"mcp_server":{"command":["x"],"colour":"red"}}`), 0o644)

	_, err := Load([]string{dir}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), `bad.json: "mcp_server" has an unknown key "colour"`) {
		t.Fatalf("Load with an invalid mcp_server sidecar: %v", err)
	}
	os.Remove(filepath.Join(dir, "bad.json"))

	var warns []string
	c, err := Load([]string{dir}, LoadOptions{Warn: func(s string) { warns = append(warns, s) }, MCP: []string{"/bin/false"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.All()) != 0 {
		t.Errorf("tools of a failed server: %v", c.Names())
	}
	got := strings.Join(warns, "\n")
	for _, want := range []string{"its tools are left out: MCP server " + filepath.Join(dir, "srv.json"), "cannot start", `--mcp "/bin/false"`} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %q do not say %q", got, want)
		}
	}
}

// --check lints an mcp_server sidecar without starting the server.
func TestCheckLintsServerSidecars(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "srv.json"), []byte(`{"mcp_server":{"command":["no-such-server"]}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "url.json"), []byte(`{"mcp_server":{"url":"http://127.0.0.1:9/mcp"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"mcp_server":{"url":"http://192.0.2.1:9/mcp"}}`), 0o644)
	problems, _ := Check([]string{dir}, LoadOptions{})
	if len(problems) != 1 || !strings.Contains(problems[0].String(), `bad.json: "mcp_server.url"`) || !strings.Contains(problems[0].String(), "loopback only") {
		t.Errorf("problems: %v", problems)
	}
}

// memoryDialer reaches one MCP server, up, over the SDK's in-memory
// transport whatever the URL: a stand-in for run.DialMCP.
func memoryDialer(t *testing.T, up *mcp.Server) mcpclient.Dialer {
	return func(string) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go up.Run(ctx, st)
		return ct, nil
	}
}

func addTool(up *mcp.Server, name string) {
	up.AddTool(&mcp.Tool{Name: name, Description: "A tool.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
}

func TestLoadURLServers(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "url.json"), []byte(`{"mcp_server":{"url":"http://127.0.0.1:9/mcp","prefix":"u_"}}`), 0o644)
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	addTool(up, "one")

	var warns []string
	c, err := Load([]string{dir}, LoadOptions{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if len(c.All()) != 0 || !strings.Contains(strings.Join(warns, "\n"), "MCPDialer") {
		t.Errorf("without a dialer: tools %v, warnings %q; want none, and a warning naming MCPDialer", c.Names(), warns)
	}

	c, err = Load([]string{dir}, LoadOptions{MCPDialer: memoryDialer(t, up), MCP: []string{"http://localhost:9/mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The same server twice: by the sidecar, with its prefix, and by
	// --mcp, without.
	if got := strings.Join(c.Names(), " "); got != "one u_one" {
		t.Errorf("tools %q", got)
	}

	_, err = Load(nil, LoadOptions{MCP: []string{"http://me:s3cret@192.0.2.1/mcp"}})
	if err == nil || !strings.Contains(err.Error(), "--mcp ") || !strings.Contains(err.Error(), "loopback only") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("--mcp with a URL off this machine: %v", err)
	}
}

func TestRelistAfterListChanged(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "url.json"), []byte(`{"mcp_server":{"url":"http://127.0.0.1:9/mcp"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "local.json"), []byte(`{"description":"Local.","input_schema":{"type":"object"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "local"), []byte("#!/bin/sh\necho hi\n"), 0o755)
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	addTool(up, "one")
	c, err := Load([]string{dir}, LoadOptions{MCPDialer: memoryDialer(t, up)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := strings.Join(c.Names(), " "); got != "local one" {
		t.Fatalf("tools %q", got)
	}
	addTool(up, "two")
	<-c.Changed()
	n := c.Relist()
	if got := strings.Join(n.Names(), " "); got != "local one two" {
		t.Errorf("after list_changed: %q", got)
	}
	live := NewLive(c)
	if _, ok := live.Lookup("two"); !ok {
		t.Error("a Live catalog does not see the tool added")
	}
	if New(nil).Changed() != nil {
		t.Error("a catalog without servers has changes to tell")
	}
}
