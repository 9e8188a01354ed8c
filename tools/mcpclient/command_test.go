package mcpclient

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The attack of issue 42: a sidecar's ["python3", "srv.py"] ran the srv.py
// of the working directory, which a model's write_file call had planted.
// Every file a command runs is taken from beside the sidecar, whatever
// runs it, or the command is refused; forms whose code cannot be found
// need "unchecked_command".
func TestHostileMCPCommandFilesBesideTheSidecar(t *testing.T) {
	work, side := t.TempDir(), t.TempDir()
	t.Chdir(work)
	for _, f := range []string{"srv.py", "srv", "srv.js", "srv.ts", "plugin.py", "pkg/index.js"} {
		for _, d := range []string{work, side} { // the planted copy, and the sidecar's
			os.MkdirAll(filepath.Dir(filepath.Join(d, f)), 0o755)
			if err := os.WriteFile(filepath.Join(d, f), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	at := func(f string) string { return filepath.Join(side, f) }
	for _, tt := range []struct {
		cmd, want []string
	}{
		{[]string{"python3", "srv.py"}, []string{"python3", at("srv.py")}},
		{[]string{"python3.12", "-u", "-W", "ignore", "-X", "dev", "srv.py", "--db", "notes.db"}, []string{"python3.12", "-u", "-W", "ignore", "-X", "dev", at("srv.py"), "--db", "notes.db"}},
		{[]string{"sh", "srv"}, []string{"sh", at("srv")}}, // no extension, no execute bit
		{[]string{"bash", "-e", "-o", "pipefail", "srv"}, []string{"bash", "-e", "-o", "pipefail", at("srv")}},
		{[]string{"node", "--no-warnings", "srv.js"}, []string{"node", "--no-warnings", at("srv.js")}},
		{[]string{"deno", "run", "-A", "srv.ts"}, []string{"deno", "run", "-A", at("srv.ts")}},
		{[]string{"deno", "run", "-A", "jsr:@scope/server"}, []string{"deno", "run", "-A", "jsr:@scope/server"}},
		{[]string{"bun", "run", "srv.ts"}, []string{"bun", "run", at("srv.ts")}},
		{[]string{"uv", "run", "--with", "mcp", "srv.py"}, []string{"uv", "run", "--with", "mcp", at("srv.py")}},
		{[]string{"uv", "run", "python", "srv.py"}, []string{"uv", "run", "python", at("srv.py")}},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-everything"}, []string{"npx", "-y", "@modelcontextprotocol/server-everything"}},
		{[]string{"npx", "-y", "tsx", "srv.ts"}, []string{"npx", "-y", "tsx", at("srv.ts")}},
		{[]string{"npx", "./pkg"}, []string{"npx", at("pkg")}},
		{[]string{"env", "DEBUG=1", "python3", "srv.py"}, []string{"env", "DEBUG=1", "python3", at("srv.py")}},
		{[]string{"timeout", "-k", "5", "30", "sh", "srv"}, []string{"timeout", "-k", "5", "30", "sh", at("srv")}},
		{[]string{"my-server", "--plugin", "plugin.py"}, []string{"my-server", "--plugin", at("plugin.py")}},
		{[]string{"./srv"}, []string{at("srv")}},
		// Not installed yet: it fails as it starts, as before.
		{[]string{"node", "/nonexistent/dist/index.js"}, []string{"node", "/nonexistent/dist/index.js"}},
	} {
		got, err := CheckCommand(tt.cmd, side, false)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, %v; want %q", tt.cmd, got, err, tt.want)
		}
	}

	// A file that is only in the working directory is refused, naming
	// the argument and the fix.
	os.Remove(at("srv.py"))
	_, err := CheckCommand([]string{"python3", "srv.py"}, side, false)
	if err == nil || !strings.Contains(err.Error(), `argument 1, "srv.py", the script python3 runs, is not beside the sidecar`) || !strings.Contains(err.Error(), "put it there, or give its absolute path") {
		t.Errorf("a script only in the working directory: %v", err)
	}

	// Code toolcall cannot find: refused, unless the sidecar opts in.
	for _, cmd := range [][]string{
		{"sh", "-c", "python3 srv.py"}, {"bash", "-lc", "exec srv"}, {"python3", "-m", "srv"}, {"python3", "-Sc", "import srv"},
		{"python3", "-"}, {"node", "-e", "require('./srv')"}, {"node", "--require=./srv.js", "x.js"}, {"ruby", "-rsrv", "-e", "1"},
		{"uv", "run", "--directory", "sub", "srv.py"}, {"uv", "run", "my-server"}, {"bun", "run", "start"}, {"deno", "task", "start"},
		{"deno", "eval", "1"}, {"npx", "-c", "srv"}, {"env", "-S", "python3 srv.py"}, {"npx", "file:./pkg"},
	} {
		_, err := CheckCommand(cmd, side, false)
		if err == nil || !strings.Contains(err.Error(), `set "unchecked_command": true in the mcp_server`) {
			t.Errorf("%q: %v; want a refusal that names unchecked_command", cmd, err)
		}
		if _, err := CheckCommand(cmd, side, true); err != nil {
			t.Errorf("%q with unchecked_command: %v", cmd, err)
		}
	}
}

// What a command runs joins the protected directories: the interpreter,
// and a script kept apart from the sidecar, whatever its name.
func TestServerFilesAreTheFilesItRuns(t *testing.T) {
	side, lib := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "server"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(t.TempDir(), "not-yet")
	s := &Server{File: filepath.Join(side, "srv.json"), Command: []string{"env", "A=1", "sh", filepath.Join(lib, "server"), filepath.Join(later, "plugin.py")}}
	var dirs []string
	for _, f := range s.Files() {
		dirs = append(dirs, filepath.Dir(f))
	}
	for _, want := range []string{side, lib, later} { // later: so that no tool can create it
		if !slices.Contains(dirs, want) {
			t.Errorf("the directories of Files %q miss %s", s.Files(), want)
		}
	}
}

// A data file a server is given (a database) is not code: its directory,
// often the project's, stays writable.
func TestServerFilesLeaveDataFiles(t *testing.T) {
	data := t.TempDir()
	db := filepath.Join(data, "notes.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Server{Command: []string{"/bin/true", "--db", db}}
	if got := s.Files(); slices.Contains(got, db) {
		t.Errorf("Files = %q holds a data file", got)
	}
}

// The password in an mcp_server url is a secret of every run that uses
// the server's tools, as written and decoded.
func TestServerSecretsAreItsURLPassword(t *testing.T) {
	s := &Server{URL: "http://bob:s3cr%21t-pass@127.0.0.1:9/mcp"}
	if got := strings.Join(s.Secrets(), " "); got != "s3cr!t-pass s3cr%21t-pass" {
		t.Errorf("Secrets = %q", got)
	}
}
