package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// nodeBin is the directory of the Node MCP parts make mcp-deps installs
// (the Inspector CLI, server-everything). Without node or those parts the
// test is skipped, saying why; in CI (CI set) it fails instead, since
// .ci/run installs them.
func nodeBin(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join(moduleRoot, "testdata", "mcp", "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	why := ""
	if _, err := exec.LookPath("node"); err != nil {
		why = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(bin, "mcp-inspector")); err != nil {
		why = "testdata/mcp/node_modules is not installed (make mcp-deps)"
	}
	if why != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("MCP integration tests: %s; CI must run them", why)
		}
		t.Skipf("SKIPPING the MCP integration tests: %s", why)
	}
	return bin
}

// TestMCPScripts runs the scripts of testdata/mcp/script, where real MCP
// clients and servers from npm talk with toolcall ($MCPBIN is their
// node_modules/.bin).
func TestMCPScripts(t *testing.T) {
	bin := nodeBin(t)
	examples := buildExamples(t)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(moduleRoot, "testdata", "mcp", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"cmpjson": cmpJSON, "cmpevents": cmpEvents},
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("MCPBIN", bin)
			testdata, err := filepath.Abs(filepath.Join(moduleRoot, "testdata"))
			env.Setenv("TESTDATA", testdata)
			if err != nil {
				return err
			}
			// The Inspector keeps a catalog of servers under HOME.
			env.Setenv("HOME", env.WorkDir)
			return nil
		},
	})
}

// cmpJSON compares two files as JSON values: equal whatever the layout
// and key order. $WORK and $EXAMPLES are expanded in the second.
func cmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpjson got want")
	}
	var got, want any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &got); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	if err := json.Unmarshal([]byte(os.Expand(ts.ReadFile(args[1]), ts.Getenv)), &want); err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		ts.Fatalf("%s and %s differ as JSON:\n got: %s\nwant: %s", args[0], args[1], g, w)
	}
}

// TestMCPInspectorHTTP: the Inspector reaches toolcall mcp serve --listen
// over streamable HTTP and gets what it gets over stdio.
func TestMCPInspectorHTTP(t *testing.T) {
	bin := nodeBin(t)
	examples := buildExamples(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// toolcall is this test binary, put on PATH by testscript.Main.
	srv := exec.CommandContext(ctx, "toolcall", "mcp", "serve", "--tools", examples, "--listen", "127.0.0.1:0")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	addr := ""
	for addr == "" && lines.Scan() {
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatal("toolcall mcp serve --listen did not say where it listens")
	}
	go func() {
		for lines.Scan() { // keep the pipe from filling
		}
	}()

	inspect := func(args ...string) string {
		t.Helper()
		args = append([]string{"--cli", addr + "mcp", "--transport", "http"}, args...)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "mcp-inspector"), args...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcp-inspector %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal([]byte(inspect("--method", "tools/list")), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if want := "calculator current_time datetime get_weather list_dir read_file"; strings.Join(names, " ") != want {
		t.Errorf("tools/list over HTTP: %v, want %s", names, want)
	}
	got := inspect("--method", "tools/call", "--tool-name", "calculator", "--tool-arg", "expression=6*7")
	if !strings.Contains(got, `"text": "42"`) {
		t.Errorf("tools/call calculator 6*7 over HTTP:\n%s", got)
	}
}
