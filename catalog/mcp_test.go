package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sidecar that declares an MCP server which cannot start: the load goes
// on, the server's tools are left out, and a warning says why.
func TestLoadWithholdsAServerThatFails(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "srv.json"), []byte(`{"mcp_server":{"command":["/bin/sh","-c","echo cannot start >&2; exit 1"],"timeout":"5s"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"mcp_server":{"command":["x"],"colour":"red"}}`), 0o644)

	_, err := Load([]string{dir}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), `bad.json: "mcp_server" has an unknown key "colour"`) {
		t.Fatalf("Load with an invalid mcp_server sidecar: %v", err)
	}
	os.Remove(filepath.Join(dir, "bad.json"))

	var warns []string
	c, err := Load([]string{dir}, LoadOptions{Warn: func(s string) { warns = append(warns, s) }, MCP: []string{"/bin/sh -c exit"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.All()) != 0 {
		t.Errorf("tools of a failed server: %v", c.Names())
	}
	got := strings.Join(warns, "\n")
	for _, want := range []string{"its tools are left out: MCP server " + filepath.Join(dir, "srv.json"), "cannot start", `--mcp "/bin/sh -c exit"`} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %q do not say %q", got, want)
		}
	}
}

// --check lints an mcp_server sidecar without starting the server.
func TestCheckLintsServerSidecars(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "srv.json"), []byte(`{"mcp_server":{"command":["no-such-server"]}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"mcp_server":{"url":"http://127.0.0.1:9/mcp"}}`), 0o644)
	problems, _ := Check([]string{dir}, LoadOptions{})
	if len(problems) != 1 || !strings.Contains(problems[0].String(), `bad.json: "mcp_server.url"`) {
		t.Errorf("problems: %v", problems)
	}
}
