package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

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
	srv := &MCPServer{File: filepath.Join(sidecars, "srv.json"), Command: []string{"/bin/sh", script, "serve"}}
	set := execSet{
		"served": {Name: "served", Server: srv, File: srv.File},
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

// A data file a server is given (a database) is not code: its directory,
// often the project's, stays writable.
func TestToolsDirsLeaveServerDataFiles(t *testing.T) {
	data := t.TempDir()
	db := filepath.Join(data, "notes.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := &MCPServer{Command: []string{"/bin/true", "--db", db}}
	if got := toolsDirs(execSet{"q": {Name: "q", Server: srv}}); slices.Contains(got, data) {
		t.Errorf("toolsDirs = %q protects the directory of a data file", got)
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
	servers []*MCPServer
}

func (s serverSet) Servers() []*MCPServer { return s.servers }

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
	down := &MCPServer{Command: []string{"sh", filepath.Join(script, "server")}}
	if got := toolsDirs(serverSet{execSet: execSet{}, servers: []*MCPServer{down}}); !slices.Contains(got, script) {
		t.Errorf("toolsDirs = %q, missing %s, the script of a server with no tool", got, script)
	}
}
