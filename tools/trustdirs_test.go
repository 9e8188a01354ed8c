package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolcall/toolcall/tools/redact"
)

// fakeServer is an MCP server as the executor sees one: the files it
// runs (tools/mcpclient reads them from its command) and its secrets.
type fakeServer struct{ files, secrets []string }

func (s *fakeServer) Call(context.Context, string, []byte, time.Duration, *redact.Redactor) ([]byte, error) {
	return []byte(`{"content":[]}`), nil
}
func (s *fakeServer) String() string    { return "MCP server fake" }
func (s *fakeServer) Files() []string   { return s.files }
func (s *fakeServer) Secrets() []string { return s.secrets }

// The attack: an mcp_server sidecar in one directory runs a script kept
// in another, and a file tool given --allow-unsafe rewrites that script,
// which runs at the next load. Every file a server runs, and the file a
// tool's executable links to, is among the protected directories.
func TestHostileToolsDirsCoverServerScriptsAndLinkTargets(t *testing.T) {
	sidecars, scripts, real := t.TempDir(), t.TempDir(), t.TempDir()
	script := filepath.Join(scripts, "server.py")
	if err := os.WriteFile(script, []byte("print()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(real, "tool")
	if err := os.WriteFile(target, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(sidecars, "tool")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	srv := &fakeServer{files: []string{filepath.Join(sidecars, "srv.json"), "/bin/sh", script}}
	set := execSet{
		"served": {Name: "served", Server: srv, File: srv.files[0]},
		"linked": {Name: "linked", Command: link, File: filepath.Join(sidecars, "tool.json")},
	}
	got := toolsDirs(set)
	abs := func(d string) string { a, _ := filepath.EvalSymlinks(d); return a }
	for _, want := range []string{sidecars, scripts, "/bin"} {
		if !slices.Contains(got, want) && !slices.Contains(got, abs(want)) {
			t.Errorf("toolsDirs = %q, missing %s", got, want)
		}
	}
	if !slices.Contains(got, real) && !slices.Contains(got, abs(real)) {
		t.Errorf("toolsDirs = %q, missing %s, where the linked executable is", got, real)
	}
}

// partSet offers some of the tools in use, as run --pick does.
type partSet struct {
	execSet
	whole ToolSet
}

func (p partSet) Whole() ToolSet { return p.whole }

// serverSet knows a server none of its tools come from: it did not start.
type serverSet struct {
	execSet
	servers []Server
}

func (s serverSet) Servers() []Server { return s.servers }

// The attacks: under --pick (or mcp serve --tag) the tools run are told
// only the directories of the tools offered, so write_file could replace
// one the model was not shown; and a server that failed to start this
// time has no tool, so its script could be rewritten for the next load.
// Both stay protected.
func TestHostileToolsDirsCoverToolsNotOfferedAndServersNotStarted(t *testing.T) {
	offered, hidden, script := t.TempDir(), t.TempDir(), t.TempDir()
	whole := execSet{
		"write_file": {Name: "write_file", File: filepath.Join(offered, "write_file.json")},
		"other":      {Name: "other", File: filepath.Join(hidden, "other.json")},
	}
	part := partSet{execSet: execSet{"write_file": whole["write_file"]}, whole: whole}
	if got := toolsDirs(part); !slices.Contains(got, hidden) {
		t.Errorf("toolsDirs of a part = %q, missing %s, a tool not offered", got, hidden)
	}
	if err := os.WriteFile(filepath.Join(script, "server"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	down := &fakeServer{files: []string{"/bin/sh", filepath.Join(script, "server")}}
	if got := toolsDirs(serverSet{execSet: execSet{}, servers: []Server{down}}); !slices.Contains(got, script) {
		t.Errorf("toolsDirs = %q, missing %s, the script of a server with no tool", got, script)
	}
}
