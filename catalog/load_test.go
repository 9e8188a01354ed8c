package catalog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
	"github.com/toolcall/toolcall/internal/golden"

	"github.com/toolcall/toolcall/tools"
)

// testDir copies testdata/dirs/name into a temporary directory and sets
// the executable bit on every file but sidecars and those that say NOEXEC:
// git does not keep modes reliably.
func testDir(t testing.TB, root, name string) string {
	t.Helper()
	src := filepath.Join("testdata", "dirs", name)
	dst := filepath.Join(root, name)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if !strings.HasSuffix(p, ".json") && !bytes.Contains(data, []byte("NOEXEC")) {
			mode = 0o755
		}
		return os.WriteFile(out, data, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// fakePath finds only the commands it is given, and counts lookups.
type fakePath struct {
	have  map[string]bool
	calls map[string]int
}

func (f *fakePath) look(name string) (string, error) {
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[name]++
	if f.have[name] {
		return "/usr/bin/" + name, nil
	}
	return "", errors.New("not found")
}

func linuxOpts(warns *[]string) LoadOptions {
	return LoadOptions{
		Warn:     func(s string) { *warns = append(*warns, s) },
		LookPath: (&fakePath{have: map[string]bool{"jq": true}}).look,
		GOOS:     "linux", GOARCH: "amd64",
	}
}

func TestLoad(t *testing.T) {
	dir := testDir(t, t.TempDir(), "basic")
	var warns []string
	c, err := Load([]string{dir}, linuxOpts(&warns))
	if err != nil {
		t.Fatal(err)
	}
	commands := map[string]string{}
	for _, tool := range c.All() {
		if tool.Unavailable != "" {
			t.Errorf("%s unavailable: %s", tool.Name, tool.Unavailable)
		}
		rel, err := filepath.Rel(dir, tool.Command)
		if err != nil || !filepath.IsAbs(tool.Command) {
			t.Errorf("%s: command %q is not an absolute path in %s", tool.Name, tool.Command, dir)
		}
		commands[tool.Name] = filepath.ToSlash(rel)
	}
	want := map[string]string{
		"get_weather":    "get_weather.py",
		"math":           "math.sh",
		"math.factorial": "math.factorial", // not math's, though it is math plus an extension
		"run_script":     "bin/helper",
	}
	if diff := cmp.Diff(want, commands); diff != "" {
		t.Errorf("executables (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"get_weather", "math", "math.factorial", "run_script"}, c.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	// Only the BFCL mapping in math.factorial.json is worth a word.
	if len(warns) != 1 || !strings.Contains(warns[0], "math.factorial.json") || !strings.Contains(warns[0], "dict -> object") {
		t.Errorf("warnings: %q", warns)
	}
	if tool, _ := c.Lookup("math.factorial"); tool == nil || string(tool.InputSchema) != `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}` {
		t.Errorf("math.factorial schema not mapped: %+v", tool)
	}
}

func TestLoadDuplicates(t *testing.T) {
	root := t.TempDir()
	a, b := testDir(t, root, "dup_a"), testDir(t, root, "dup_b")
	_, err := Load([]string{a, b}, LoadOptions{})
	if err == nil {
		t.Fatal("duplicate names across directories loaded")
	}
	for _, want := range []string{filepath.Join(a, "lookup.json"), filepath.Join(b, "lookup.json"), `"lookup"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}

	// The same directory twice is one directory, not a clash.
	if _, err := Load([]string{a, a + string(filepath.Separator)}, LoadOptions{}); err != nil {
		t.Errorf("one directory given twice: %v", err)
	}

	within := testDir(t, root, "dup_within")
	_, err = Load([]string{within}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(within, "one.json")) || !strings.Contains(err.Error(), filepath.Join(within, "two.json")) {
		t.Errorf("duplicate within one directory: error %v does not name both files", err)
	}
}

func TestLoadMissingExecutable(t *testing.T) {
	dir := testDir(t, t.TempDir(), "missing_exe")
	var warns []string
	c, err := Load([]string{dir}, linuxOpts(&warns))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Available()); n != 0 {
		t.Errorf("%d tools available without executables", n)
	}
	lonely, _ := c.Lookup("lonely")
	plain, _ := c.Lookup("plain")
	if lonely == nil || plain == nil {
		t.Fatalf("tools without executables not loaded: %v", c.Names())
	}
	// The operator's warning names the file and the fix; what the model
	// reads (Unavailable) has neither our paths nor a chmod.
	if want := "no executable beside " + filepath.Join(dir, "lonely.json") + ": add an executable named lonely"; len(warns) != 2 || !strings.Contains(warns[0], want) {
		t.Errorf("want a warning for lonely.json first, containing %q: %q", want, warns)
	}
	if len(warns) != 2 || !strings.Contains(warns[1], "plain.sh is not executable (chmod +x") {
		t.Errorf("want a warning that plain.sh needs chmod +x: %q", warns)
	}
	for _, tool := range []*tools.Tool{lonely, plain} {
		if tool.Unavailable != "its program is not installed on this machine" || strings.Contains(tool.Unavailable, dir) {
			t.Errorf("%s: the model would read %q", tool.Name, tool.Unavailable)
		}
	}
}

func TestLoadTwoExecutables(t *testing.T) {
	dir := testDir(t, t.TempDir(), "two_exes")
	_, err := Load([]string{dir}, LoadOptions{})
	if err == nil {
		t.Fatal("loaded a tool with two executables")
	}
	for _, want := range []string{filepath.Join(dir, "tool.json"), "tool.py and tool.sh", `"command"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestLoadRequires(t *testing.T) {
	dir := testDir(t, t.TempDir(), "requires")
	path := &fakePath{have: map[string]bool{"jq": true}}
	c, err := Load([]string{dir}, LoadOptions{LookPath: path.look})
	if err != nil {
		t.Fatal(err)
	}
	needs, _ := c.Lookup("needs_jq")
	too, _ := c.Lookup("needs_jq_too")
	if needs.Unavailable != "requires definitely-not-here, not found on PATH" {
		t.Errorf("needs_jq: Unavailable %q", needs.Unavailable)
	}
	if too.Unavailable != "" {
		t.Errorf("needs_jq_too: Unavailable %q, but jq is there", too.Unavailable)
	}
	if path.calls["jq"] != 1 {
		t.Errorf("jq looked up %d times, want once", path.calls["jq"])
	}
	if got := c.Available(); len(got) != 1 || got[0].Name != "needs_jq_too" {
		t.Errorf("available: %v", got)
	}
}

func TestLoadPlatforms(t *testing.T) {
	dir := testDir(t, t.TempDir(), "platforms")
	for _, tc := range []struct {
		goos, goarch string
		want         map[string]string
	}{
		{"linux", "amd64", map[string]string{
			"mac_only":  "runs on darwin only, this is linux/amd64",
			"linux_arm": "runs on linux/arm64, windows only, this is linux/amd64",
		}},
		{"darwin", "arm64", map[string]string{
			"mac_only":  "",
			"linux_arm": "runs on linux/arm64, windows only, this is darwin/arm64",
		}},
		{"linux", "arm64", map[string]string{"mac_only": "runs on darwin only, this is linux/arm64", "linux_arm": ""}},
		{"windows", "386", map[string]string{"mac_only": "runs on darwin only, this is windows/386", "linux_arm": ""}},
	} {
		c, err := Load([]string{dir}, LoadOptions{GOOS: tc.goos, GOARCH: tc.goarch})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, tool := range c.All() {
			got[tool.Name] = tool.Unavailable
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s/%s (-want +got):\n%s", tc.goos, tc.goarch, diff)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "nope")
	_, err := Load([]string{missing}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "tools directory "+missing) {
		t.Errorf("missing directory: error %v does not name it", err)
	}

	// Every invalid sidecar is reported at once, each with its file.
	bad := testDir(t, root, "bad")
	_, err = Load([]string{bad}, LoadOptions{})
	if err == nil {
		t.Fatal("loaded a directory of invalid sidecars")
	}
	for _, f := range []string{"bad!name.json", "broken.json", "remote.json"} {
		if !strings.Contains(err.Error(), filepath.Join(bad, f)+": ") {
			t.Errorf("error does not name %s:\n%v", f, err)
		}
	}
}

// TestCheck lists every problem of the bad directory, and of the others,
// in the order a user reads them.
func TestCheck(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, name := range []string{"bad", "missing_exe", "two_exes", "requires", "platforms", "dup_a", "dup_b"} {
		dirs = append(dirs, testDir(t, root, name))
	}
	dirs = append(dirs, filepath.Join(root, "absent"))
	var warns []string
	problems, skipped := Check(dirs, linuxOpts(&warns))
	var b strings.Builder
	for _, p := range problems {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	for _, p := range skipped {
		fmt.Fprintf(&b, "skipped: %s\n", p)
	}
	for _, w := range warns {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	got := strings.ReplaceAll(b.String(), root, "DIR")
	golden.Check(t, filepath.Join("testdata", "dirs", "check.golden"), []byte(got))
}

// The directories that load cleanly have nothing to report.
func TestCheckClean(t *testing.T) {
	dir := testDir(t, t.TempDir(), "basic")
	problems, skipped := Check([]string{dir}, LoadOptions{})
	if len(problems) != 0 || len(skipped) != 0 {
		t.Errorf("problems %v, skipped %v", problems, skipped)
	}
}

// bfclDefinitions holds a subset of the BFCL v4 function definitions,
// vendored with their license so the test runs in every clone.
const bfclDefinitions = "../testdata/bfcl"

// TestLoadBFCL loads every function definition of the BFCL data as a
// sidecar with an executable beside it, and compiles each schema with
// jsonschema directly. A name defined more than once goes to another
// directory each time, since names must be unique within a catalog.
func TestLoadBFCL(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(bfclDefinitions, "BFCL_v4_*.json"))
	if len(files) == 0 {
		t.Fatalf("no BFCL data in %s", bfclDefinitions)
	}
	root := t.TempDir()
	seen := map[string]int{}
	var dirs []string
	total := 0
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			gjson.GetBytes(sc.Bytes(), "function").ForEach(func(_, fn gjson.Result) bool {
				name := fn.Get("name").Str
				n := seen[name]
				seen[name]++
				if n == len(dirs) {
					dirs = append(dirs, filepath.Join(root, fmt.Sprint(n)))
					if err := os.Mkdir(dirs[n], 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(dirs[n], name+".json"), []byte(fn.Raw), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dirs[n], name), []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				total++
				return true
			})
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	loaded := 0
	for _, dir := range dirs {
		c, err := Load([]string{dir}, LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, tool := range c.All() {
			loaded++
			if tool.Unavailable != "" {
				t.Errorf("%s: %s", tool.File, tool.Unavailable)
			}
			if err := compileDirectly(tool.InputSchema); err != nil {
				t.Errorf("%s: schema does not compile after mapping: %v\n%s", tool.File, err, tool.InputSchema)
			}
		}
	}
	if loaded != total || total == 0 {
		t.Errorf("loaded %d of %d functions", loaded, total)
	}
	t.Logf("%d BFCL functions loaded and compiled (%d names)", total, len(seen))
}

func compileDirectly(schema []byte) error {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) { return nil, fmt.Errorf("would fetch %s", u) }
	if err := c.AddResource("mem:///schema.json", bytes.NewReader(schema)); err != nil {
		return err
	}
	_, err := c.Compile("mem:///schema.json")
	return err
}

// BenchmarkLoad10k loads a directory of 10,000 BFCL-shaped tools.
func BenchmarkLoad10k(b *testing.B) {
	dir := b.TempDir()
	for i := range 10000 {
		name := fmt.Sprintf("pkg%d.tool_%d", i%97, i)
		sidecar := fmt.Sprintf(`{"name": %q, "description": "Computes thing %d from the inputs given, for benchmarks.", "parameters": {"type": "dict", "properties": {"x": {"type": "integer", "description": "The x value."}, "y": {"type": "float", "description": "The y value."}, "unit": {"type": "string", "enum": ["m", "km"], "description": "The unit."}, "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["x", "y"]}}`, name, i)
		ext := []string{"", ".py", ".sh"}[i%3]
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(sidecar), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+ext), []byte("#!/bin/sh\n"), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	opts := LoadOptions{Warn: func(string) {}}
	for b.Loop() {
		c, err := Load([]string{dir}, opts)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(c.Available()); n != 10000 {
			b.Fatalf("%d tools available", n)
		}
	}
}
