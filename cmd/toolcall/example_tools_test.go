package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The example tools in testdata/tools/src are programs of their own, and
// go test ./... skips testdata, so they are tested here: built once into a
// temporary directory and run as toolcall runs them, one line of JSON on
// stdin.

// exampleTools builds every example tool into a temporary directory, beside
// its sidecar, and returns it.
func exampleTools(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the example tools; skipped with -short")
	}
	return buildExamples(t)
}

// toolRun is what one run of a tool gave.
type toolRun struct {
	stdout, stderr string
	code           int
}

// runTool runs the tool name from bin in the directory wd with args on
// stdin, and the environment toolcall gives it plus env.
func runTool(t *testing.T, bin, name, wd, args string, env ...string) toolRun {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name))
	cmd.Dir = wd
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "TOOLCALL_TOOL=" + name, "TOOLCALL_CALL_ID=call_1"}, env...)
	cmd.Stdin = strings.NewReader(args + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", name, err)
	}
	r := toolRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	// A panic is never an answer: every bad input has a message.
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Fatalf("%s %s panicked:\n%s", name, args, r.stderr)
	}
	return r
}

// wantOK checks a successful run and returns its stdout.
func (r toolRun) wantOK(t *testing.T, args string) string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return r.stdout
}

// wantFail checks a run that refused its arguments: exit 2, a message on
// stderr containing want, nothing on stdout.
func (r toolRun) wantFail(t *testing.T, args, want string) {
	t.Helper()
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, want) {
		t.Errorf("%s: got exit %d, stdout %q, stderr %q; want exit 2 and a message containing %q", args, r.code, r.stdout, r.stderr, want)
	}
}

func TestExampleCalculator(t *testing.T) {
	bin := exampleTools(t)
	for _, tc := range []struct{ expr, want string }{
		{"2 + 3 * 4", "14"},
		{"(2 + 3) * 4", "20"},
		{"17 * 25 + 3", "428"},
		{"10 - 4 - 3", "3"},
		{"2 ^ 3 ^ 2", "512"},
		{"-2 ^ 2", "-4"},
		{"2 ^ -1", "0.5"},
		{"- -3", "3"},
		{"7 % 3", "1"},
		{"-7 % 3", "-1"},
		{"0.1 + 0.2", "0.3"},
		{".5 * 4", "2"},
		{"1 / 3", "0.333333333333333"},
		{"sqrt(16) + abs(-2) + round(2.5) + floor(1.9) + ceil(1.1)", "12"},
		{"2 * pi", "6.28318530717959"},
		{"\n 1 +\t1 \n", "2"},
	} {
		args, _ := json.Marshal(map[string]string{"expression": tc.expr})
		got := runTool(t, bin, "calculator", t.TempDir(), string(args)).wantOK(t, string(args))
		if got != tc.want+"\n" {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
	}
	for _, tc := range []struct{ args, want string }{
		{`{"expression": "1 / 0"}`, "at position 3: division by zero"},
		{`{"expression": "1 / (2 - 2)"}`, "at position 3: division by zero"},
		{`{"expression": "5 % 0"}`, "at position 3: division by zero"},
		{`{"expression": "0 ^ -1"}`, "division by zero"},
		{`{"expression": "(1 + 2"}`, `at position 7: expected ")" to close the "(" at position 1`},
		{`{"expression": "1 + * 2"}`, `at position 5: expected a number`},
		{`{"expression": "2 3"}`, "at position 3: unexpected number 3"},
		{`{"expression": "1; rm -rf /"}`, `at position 2: ";" is not an operator`},
		{`{"expression": "1.2.3"}`, `"1.2.3" is not a number`},
		{`{"expression": "system(1)"}`, `unknown name "system"`},
		{`{"expression": "sqrt 4"}`, "sqrt needs its argument in parentheses"},
		{`{"expression": "sqrt(-1)"}`, "sqrt of a negative number"},
		{`{"expression": "10 ^ 400"}`, "too large"},
		{`{"expression": ""}`, "the expression is empty"},
		{`{"expression": "` + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200) + `"}`, "nested more than"},
		{`{"expression": 5}`, `argument "expression" must be a string`},
		{`{"expr": "1"}`, `unknown argument "expr"`},
		{`{}`, `missing argument "expression"`},
		{`not json`, "must be a JSON object"},
		{``, "no arguments on stdin"},
	} {
		runTool(t, bin, "calculator", t.TempDir(), tc.args).wantFail(t, tc.args, tc.want)
	}
}

func TestExampleDatetime(t *testing.T) {
	bin := exampleTools(t)
	type moment struct {
		Time, Zone, Abbreviation string
		DST                      bool
	}
	var got struct {
		From, To moment
		Note     string
	}
	convert := func(args string) {
		t.Helper()
		got.Note = ""
		out := runTool(t, bin, "datetime", t.TempDir(), args).wantOK(t, args)
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v in %q", args, err, out)
		}
	}

	convert(`{"action": "convert", "time": "2026-11-25T10:00", "from": "Europe/Paris", "to": "Asia/Tokyo"}`)
	if got.From.Time != "2026-11-25T10:00:00+01:00" || got.To.Time != "2026-11-25T18:00:00+09:00" || got.To.Abbreviation != "JST" {
		t.Errorf("Paris to Tokyo: %+v", got)
	}
	// Across DST: New York moves its clocks on 8 March 2026, Paris on 29
	// March, so the gap between them is 5 hours before, 4 between, 6 after.
	for _, tc := range []struct{ time, want string }{
		{"2026-03-07T12:00", "2026-03-07T06:00:00-05:00"},
		{"2026-03-28T12:00", "2026-03-28T07:00:00-04:00"},
		{"2026-03-30T12:00", "2026-03-30T06:00:00-04:00"},
	} {
		convert(`{"action": "convert", "time": "` + tc.time + `", "from": "Europe/Paris", "to": "America/New_York"}`)
		if got.To.Time != tc.want {
			t.Errorf("%s Paris in New York = %s, want %s", tc.time, got.To.Time, tc.want)
		}
	}
	// "to" defaults to UTC; seconds are accepted.
	convert(`{"action": "convert", "time": "2026-07-01 23:30:15", "from": "America/Los_Angeles"}`)
	if got.To.Time != "2026-07-02T06:30:15Z" || got.To.Zone != "UTC" || !got.From.DST {
		t.Errorf("Los Angeles to UTC: %+v", got)
	}
	// 02:30 on 29 March 2026 does not exist in Paris; on 25 October it
	// happens twice, and the first (summer time) is chosen.
	convert(`{"action": "convert", "time": "2026-03-29T02:30", "from": "Europe/Paris"}`)
	if got.From.Time != "2026-03-29T03:30:00+02:00" || !strings.Contains(got.Note, "does not exist") {
		t.Errorf("a skipped time: %+v", got)
	}
	convert(`{"action": "convert", "time": "2026-10-25T02:30", "from": "Europe/Paris"}`)
	if got.To.Time != "2026-10-25T00:30:00Z" || !strings.Contains(got.Note, "happens twice") {
		t.Errorf("a repeated time: %+v", got)
	}

	args := `{"action": "now", "to": "Asia/Kolkata"}`
	var now moment
	if err := json.Unmarshal([]byte(runTool(t, bin, "datetime", t.TempDir(), args).wantOK(t, args)), &now); err != nil {
		t.Fatal(err)
	}
	if now.Zone != "Asia/Kolkata" || !strings.HasSuffix(now.Time, "+05:30") {
		t.Errorf("now in Kolkata: %+v", now)
	}

	for _, tc := range []struct{ args, want string }{
		{`{"action": "convert", "time": "2026-11-25T10:00", "from": "Paris"}`, `unknown time zone "Paris"`},
		{`{"action": "convert", "time": "2026-11-25T10:00+01:00", "from": "Europe/Paris"}`, "without an offset"},
		{`{"action": "convert", "time": "2026-11-25T10:00"}`, `needs "time"`},
		{`{"action": "now", "time": "2026-11-25T10:00"}`, `action "now" takes only "to"`},
		{`{"action": "now", "to": "Local"}`, "is not accepted"},
		{`{"action": "later"}`, `unknown action "later"`},
		{`{}`, `missing argument "action"`},
	} {
		runTool(t, bin, "datetime", t.TempDir(), tc.args).wantFail(t, tc.args, tc.want)
	}
}

// fileTree makes a root directory for the file tools and, beside it, a
// directory outside it, with links from the one to the other:
//
//	base/root/a.txt          three lines
//	base/root/sub/b.txt
//	base/root/bin.dat        has a NUL byte
//	base/root/inlink   -> sub                  inside: allowed
//	base/root/outfile  -> ../outside/secret.txt
//	base/root/outlink  -> ../outside           a linked parent directory
//	base/outside/secret.txt
//	base/rootlink      -> root                 the root by another name
func fileTree(t *testing.T) (base, root string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "root")
	for path, content := range map[string]string{
		"root/a.txt":          "one\ntwo\nthree\n",
		"root/sub/b.txt":      "bee\n",
		"root/bin.dat":        "PK\x03\x04\x00\x00binary",
		"outside/secret.txt":  "secret\n",
		"root/empty/.keep":    "",
		"root/sub/deeper/c.c": "int main;\n",
	} {
		path = filepath.Join(base, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"root/inlink":  "sub",
		"root/outfile": filepath.Join("..", "outside", "secret.txt"),
		"root/outlink": filepath.Join("..", "outside"),
		"rootlink":     "root",
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			if runtime.GOOS == "windows" {
				t.Skipf("symbolic links: %v", err)
			}
			t.Fatal(err)
		}
	}
	return base, root
}

func TestExampleReadFile(t *testing.T) {
	bin := exampleTools(t)
	base, root := fileTree(t)
	// read runs read_file in the root and decodes its MCP result.
	read := func(args string, env ...string) (texts []string, isError bool) {
		t.Helper()
		out := runTool(t, bin, "read_file", root, args, env...).wantOK(t, args)
		var res struct {
			Content []struct{ Type, Text string }
			IsError *bool
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.IsError == nil {
			t.Fatalf("%s: not an MCP CallToolResult: %q", args, out)
		}
		for _, c := range res.Content {
			if c.Type != "text" {
				t.Errorf("%s: content of type %q", args, c.Type)
			}
			texts = append(texts, c.Text)
		}
		return texts, *res.IsError
	}

	for _, tc := range []struct {
		args string
		env  []string
		want []string
	}{
		{args: `{"path": "a.txt"}`, want: []string{"one\ntwo\nthree\n"}},
		{args: `{"path": "a.txt", "offset": 2, "limit": 1}`, want: []string{"two\n", "Lines 2-2 shown; more follow: call read_file again with offset 3."}},
		{args: `{"path": "a.txt", "offset": 3}`, want: []string{"three\n"}},
		{args: `{"path": "sub/../a.txt", "limit": 1}`, want: []string{"one\n", "Lines 1-1 shown; more follow: call read_file again with offset 2."}},
		{args: `{"path": "inlink/b.txt"}`, want: []string{"bee\n"}},
		{args: `{"path": "` + filepath.ToSlash(filepath.Join(root, "sub", "b.txt")) + `"}`, want: []string{"bee\n"}},
		// The root named through a link, in TOOLCALL_ROOT and in the path.
		{args: `{"path": "` + filepath.ToSlash(filepath.Join(base, "rootlink", "a.txt")) + `", "limit": 1}`,
			env: []string{"TOOLCALL_ROOT=" + filepath.Join(base, "rootlink")}, want: []string{"one\n", "Lines 1-1 shown; more follow: call read_file again with offset 2."}},
		{args: `{"path": "b.txt"}`, env: []string{"TOOLCALL_ROOT=" + filepath.Join(root, "sub")}, want: []string{"bee\n"}},
	} {
		texts, isError := read(tc.args, tc.env...)
		if isError || !slices.Equal(texts, tc.want) {
			t.Errorf("%s: got %q (isError %v), want %q", tc.args, texts, isError, tc.want)
		}
	}

	secret := filepath.ToSlash(filepath.Join(base, "outside", "secret.txt"))
	for _, tc := range []struct {
		args, want string
		env        []string
	}{
		{args: `{"path": "../outside/secret.txt"}`, want: "outside the root"},
		{args: `{"path": "sub/../../outside/secret.txt"}`, want: "outside the root"},
		{args: `{"path": "` + secret + `"}`, want: "outside the root"},
		{args: `{"path": "outfile"}`, want: "symbolic link that points outside"},
		{args: `{"path": "outlink/secret.txt"}`, want: "symbolic link that points outside"},
		{args: `{"path": "../a.txt"}`, env: []string{"TOOLCALL_ROOT=" + filepath.Join(root, "sub")}, want: "outside the root"},
		{args: `{"path": "bin.dat"}`, want: "binary file"},
		{args: `{"path": "sub"}`, want: "is a directory"},
		{args: `{"path": "nothing.txt"}`, want: "does not exist"},
		{args: `{"path": "a.txt", "offset": 9}`, want: "past the end"},
		{args: `{"path": "a.txt", "limit": 0}`, want: `"limit" must be between 1 and 2000`},
		{args: `{"path": "a.txt", "lines": 5}`, want: `unknown argument "lines"`},
		{args: `{"path": ""}`, want: "the path is empty"},
		{args: `{"path": "a.txt"}`, env: []string{"TOOLCALL_ROOT=" + filepath.Join(base, "nowhere")}, want: "does not exist"},
	} {
		texts, isError := read(tc.args, tc.env...)
		if !isError || len(texts) != 1 || !strings.Contains(texts[0], tc.want) || strings.Contains(texts[0], "secret\n") {
			t.Errorf("%s: got %q (isError %v), want an error containing %q", tc.args, texts, isError, tc.want)
		}
	}
}

func TestExampleListDir(t *testing.T) {
	bin := exampleTools(t)
	base, root := fileTree(t)
	for _, tc := range []struct{ args, want string }{
		{`{}`, "a.txt\nbin.dat\nempty/\ninlink@\noutfile@\noutlink@\nsub/\n"},
		{`{"path": "."}`, "a.txt\nbin.dat\nempty/\ninlink@\noutfile@\noutlink@\nsub/\n"},
		{`{"path": "inlink"}`, "b.txt\ndeeper/\n"},
		{`{"path": "sub/deeper"}`, "c.c\n"},
		{`{"path": "", "limit": 2}`, "a.txt\nbin.dat\n... and 5 more; call list_dir again with a larger limit (at most 1000)\n"},
	} {
		if got := runTool(t, bin, "list_dir", root, tc.args).wantOK(t, tc.args); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.args, got, tc.want)
		}
	}
	if err := os.Remove(filepath.Join(root, "empty", ".keep")); err != nil {
		t.Fatal(err)
	}
	if got := runTool(t, bin, "list_dir", root, `{"path": "empty"}`).wantOK(t, "empty"); got != "(empty directory)\n" {
		t.Errorf("an empty directory: %q", got)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"path": ".."}`, "outside the root"},
		{`{"path": "` + filepath.ToSlash(base) + `"}`, "outside the root"},
		{`{"path": "outlink"}`, "symbolic link that points outside"},
		{`{"path": "a.txt"}`, "is a file, not a directory"},
		{`{"limit": 1001}`, `"limit" must be between 1 and 1000`},
	} {
		runTool(t, bin, "list_dir", root, tc.args).wantFail(t, tc.args, tc.want)
	}
}

func TestExampleWriteFile(t *testing.T) {
	bin := exampleTools(t)
	base, root := fileTree(t)
	write := func(args string) map[string]any {
		t.Helper()
		var res map[string]any
		out := runTool(t, bin, "write_file", root, args).wantOK(t, args)
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v in %q", args, err, out)
		}
		return res
	}
	file := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	if res := write(`{"path": "new.txt", "text": "hello"}`); res["created"] != true || res["bytes"] != 5.0 || file("new.txt") != "hello" {
		t.Errorf("a new file: %v, content %q", res, file("new.txt"))
	}
	// Replacing keeps the file's mode, and through a link inside the root
	// writes the link's target, leaving the link a link.
	if err := os.Chmod(filepath.Join(root, "sub", "b.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := write(`{"path": "inlink/b.txt", "text": "replaced\n"}`); res["created"] != false || res["path"] != "sub/b.txt" || file("sub/b.txt") != "replaced\n" {
		t.Errorf("a replaced file: %v, content %q", res, file("sub/b.txt"))
	}
	if info, err := os.Stat(filepath.Join(root, "sub", "b.txt")); err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("the replaced file's mode: %v %v, want 0600", info.Mode(), err)
	}
	// The temporary files are gone.
	if entries, err := os.ReadDir(filepath.Join(root, "sub")); err != nil || len(entries) != 2 {
		t.Errorf("sub holds %v (%v), want b.txt and deeper only", entries, err)
	}

	for _, tc := range []struct{ args, want string }{
		{`{"path": "../outside/new.txt", "text": "x"}`, "outside the root"},
		{`{"path": "` + filepath.ToSlash(filepath.Join(base, "outside", "secret.txt")) + `", "text": "x"}`, "outside the root"},
		{`{"path": "outfile", "text": "x"}`, "symbolic link that points outside"},
		{`{"path": "outlink/secret.txt", "text": "x"}`, "symbolic link that points outside"},
		{`{"path": "outlink/new.txt", "text": "x"}`, "symbolic link that points outside"},
		{`{"path": "missing/new.txt", "text": "x"}`, "does not create directories"},
		{`{"path": "sub", "text": "x"}`, "is a directory"},
		{`{"path": "a.txt"}`, `"path" and "text" are both required`},
	} {
		runTool(t, bin, "write_file", root, tc.args).wantFail(t, tc.args, tc.want)
	}
	if b, err := os.ReadFile(filepath.Join(base, "outside", "secret.txt")); err != nil || string(b) != "secret\n" {
		t.Errorf("the file outside the root changed: %q %v", b, err)
	}
	if entries, err := os.ReadDir(filepath.Join(base, "outside")); err != nil || len(entries) != 1 {
		t.Errorf("outside holds %v (%v), want secret.txt only", entries, err)
	}
	if _, err := os.Stat(filepath.Join(root, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("write_file created a directory: %v", err)
	}
}

func TestExampleWeatherAndTime(t *testing.T) {
	bin := exampleTools(t)
	wd := t.TempDir()
	args := `{"city": "Paris", "unit": "fahrenheit"}`
	if got := runTool(t, bin, "get_weather", wd, args).wantOK(t, args); got != `{"city":"Paris","temperature":64,"unit":"fahrenheit","conditions":"light rain"}`+"\n" {
		t.Errorf("get_weather: %q", got)
	}
	args = `{"city": "Reykjavik"}`
	first := runTool(t, bin, "get_weather", wd, args).wantOK(t, args)
	if again := runTool(t, bin, "get_weather", wd, args).wantOK(t, args); first != again || !strings.Contains(first, `"unit":"celsius"`) {
		t.Errorf("get_weather for another city: %q, then %q", first, again)
	}
	runTool(t, bin, "get_weather", wd, `{"city": "Paris", "unit": "kelvin"}`).wantFail(t, "kelvin", `unknown unit "kelvin"`)
	runTool(t, bin, "get_weather", wd, `{"unit": "celsius"}`).wantFail(t, "no city", `missing argument "city"`)
	// current_time has no schema: whatever arrives is ignored.
	if got := runTool(t, bin, "current_time", wd, `{"anything": [1, 2]}`).wantOK(t, "current_time"); !strings.HasSuffix(got, "Z\n") || len(got) != len("2006-01-02T15:04:05Z\n") {
		t.Errorf("current_time: %q", got)
	}
}

// TestExampleFileToolsSpareTools checks that no file tool reads, lists or
// writes inside a directory of the tools in use (TOOLCALL_TOOLS_DIRS),
// however the path is spelt, and that write_file never leaves an
// executable bit: no tool may replace another.
func TestExampleFileToolsSpareTools(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("executable bits and links")
	}
	bin := exampleTools(t)
	base, root := fileTree(t)
	tools := filepath.Join(root, "tools")
	victim := filepath.Join(tools, "victim")
	if err := os.MkdirAll(filepath.Join(tools, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, mode := range map[string]os.FileMode{victim: 0o755, victim + ".json": 0o644, filepath.Join(tools, "bin", "helper"): 0o755} {
		if err := os.WriteFile(path, []byte("#!/bin/sh\necho the tool\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("tools", filepath.Join(root, "toollink")); err != nil {
		t.Fatal(err)
	}
	// The directories as toolcall gives them: absolute, one spelt
	// through a link, and one that does not exist.
	env := "TOOLCALL_TOOLS_DIRS=" + strings.Join([]string{filepath.Join(base, "nowhere"), filepath.Join(base, "rootlink", "tools")}, string(os.PathListSeparator))

	for _, path := range []string{"tools/victim", "toollink/victim", "tools/new", "tools/../tools/victim", "tools/bin/helper", victim} {
		args := `{"path": "` + path + `", "text": "#!/bin/sh\necho replaced\n"}`
		runTool(t, bin, "write_file", root, args, env).wantFail(t, args, "tools in use")
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "#!/bin/sh\necho the tool\n" {
		t.Errorf("the tool was changed: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(tools, "new")); err == nil {
		t.Error("write_file created a file among the tools")
	}
	for _, args := range []string{`{"path": "tools/victim.json"}`, `{"path": "toollink/victim"}`} {
		out := runTool(t, bin, "read_file", root, args, env).stdout
		if !strings.Contains(out, `"isError":true`) || !strings.Contains(out, "tools in use") {
			t.Errorf("read_file %s: %s", args, out)
		}
	}
	for _, args := range []string{`{"path": "tools"}`, `{"path": "toollink/bin"}`} {
		runTool(t, bin, "list_dir", root, args, env).wantFail(t, args, "tools in use")
	}
	// Elsewhere the tools still work, and listing the root is fine.
	runTool(t, bin, "list_dir", root, `{"path": "."}`, env).wantOK(t, "list_dir .")

	// No executable bit is created or kept.
	script := filepath.Join(root, "script.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"script.sh", "fresh.sh"} {
		args := `{"path": "` + path + `", "text": "#!/bin/sh\necho hi\n"}`
		runTool(t, bin, "write_file", root, args, env).wantOK(t, args)
		if info, err := os.Stat(filepath.Join(root, path)); err != nil || info.Mode().Perm()&0o111 != 0 {
			t.Errorf("%s after write_file: %v %v, want no executable bit", path, info.Mode(), err)
		}
	}
}
