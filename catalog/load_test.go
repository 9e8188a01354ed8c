package catalog

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// A tool whose schema does not compile makes the load fail, naming each
// file and the keyword at fault. With SkipInvalid it is withheld, like
// one without an executable: loaded, not available, with one warning line
// naming the file and the keyword.
func TestLoadWithholdsSchemasThatDoNotCompile(t *testing.T) {
	dir := testDir(t, t.TempDir(), "no_compile")
	_, err := Load([]string{dir}, linuxOpts(new([]string)))
	for _, want := range []string{
		filepath.Join(dir, "remote_meta.json") + `: the input schema of tool "remote_meta" does not compile: "$schema" "https://example.com/meta.json" is not a draft toolcall knows`,
		filepath.Join(dir, "typo.json") + `: the input schema of tool "typo" does not compile: "type" at /properties/n: value must be one of`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load error %v\nwant it to hold %q", err, want)
		}
	}
	var warns []string
	opts := linuxOpts(&warns)
	opts.SkipInvalid = true
	c, err := Load([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var avail []string
	for _, tool := range c.Available() {
		avail = append(avail, tool.Name)
	}
	if !slices.Equal(avail, []string{"good"}) {
		t.Errorf("available %v, want only good", avail)
	}
	typo, _ := c.Lookup("typo")
	if typo == nil || !strings.Contains(typo.Unavailable, `its input schema does not compile: "type" at /properties/n`) {
		t.Errorf("typo: Unavailable %q", typo.Unavailable)
	}
	want := []string{
		filepath.Join(dir, "remote_meta.json") + `: tool "remote_meta" is withheld: its input schema does not compile: "$schema" "https://example.com/meta.json" is not a draft toolcall knows`,
		filepath.Join(dir, "typo.json") + `: tool "typo" is withheld: its input schema does not compile: "type" at /properties/n: value must be one of`,
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q; want %d", warns, len(want))
	}
	for i, w := range warns {
		if !strings.HasPrefix(w, want[i]) || strings.Contains(w, "\n") {
			t.Errorf("warning %q\nwant one line starting %q", w, want[i])
		}
	}
	// catalog --check counts each as a problem.
	problems, _ := Check([]string{dir}, linuxOpts(new([]string)))
	if len(problems) != 2 || problems[0].Tool != "remote_meta" || problems[1].Tool != "typo" {
		t.Errorf("Check found %v; want the two tools", problems)
	}
}

// A schema without "$schema" that is draft-07 only loads and validates as
// draft-07; catalog --check says so in a warning, not a problem.
func TestLoadDraft7Fallback(t *testing.T) {
	dir := testDir(t, t.TempDir(), "legacy")
	var warns []string
	c, err := Load([]string{dir}, linuxOpts(&warns))
	if err != nil || len(warns) != 0 {
		t.Fatalf("%v %q", err, warns)
	}
	tuple, _ := c.Lookup("tuple")
	if tuple == nil || tuple.Unavailable != "" {
		t.Fatalf("tuple not available: %+v", tuple)
	}
	for args, want := range map[string]bool{`{"pair":["a",1]}`: true, `{"pair":[1,"a"]}`: false, `{"pair":["a",1,2]}`: false} {
		got, err := tuple.CheckArguments([]byte(args), false)
		if err != nil || got.Validated != want {
			t.Errorf("%s: validated %v, want %v (%v)", args, got.Validated, want, err)
		}
	}
	var checkWarns []string
	problems, _ := Check([]string{dir}, linuxOpts(&checkWarns))
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	want := filepath.Join(dir, "tuple.json") + `: tool "tuple": the input schema has no "$schema" and is not valid draft 2020-12 ("items" at /properties/pair: expected object or boolean, but got array), so it is read as draft-07`
	if len(checkWarns) != 1 || !strings.HasPrefix(checkWarns[0], want) {
		t.Errorf("check warnings %q\nwant one starting %q", checkWarns, want)
	}
}

// A .json file that is not a tool (package.json, tsconfig.json: no tool
// keys, no executable beside it) is skipped; catalog --check lists it as
// skipped, not as a problem.
func TestLoadSkipsJSONThatIsNotATool(t *testing.T) {
	dir := testDir(t, t.TempDir(), "project")
	var warns []string
	c, err := Load([]string{dir}, linuxOpts(&warns))
	if err != nil {
		t.Fatal(err)
	}
	if names := c.Names(); !slices.Equal(names, []string{"lookup"}) || len(warns) != 0 {
		t.Errorf("tools %v, warnings %q; want lookup alone and no warning", names, warns)
	}
	problems, skipped := Check([]string{dir}, linuxOpts(new([]string)))
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	var got []string
	for _, p := range skipped {
		got = append(got, p.String())
	}
	want := []string{
		filepath.Join(dir, "package.json") + ": not a tool: no input_schema, parameters or other key of a tool definition, and no executable named package beside it",
		filepath.Join(dir, "tsconfig.json") + ": not a tool: no input_schema, parameters or other key of a tool definition, and no executable named tsconfig beside it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A tools directory with no tool in it is said: a warning when loading, a
// problem for catalog --check.
func TestLoadEmptyDirectory(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	config := testDir(t, root, "only_config")
	tools := testDir(t, root, "project")
	var warns []string
	c, err := Load([]string{empty, tools, config}, linuxOpts(&warns))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.All()) != 1 {
		t.Errorf("tools %v", c.Names())
	}
	want := []string{
		"tools directory " + empty + " holds no tools: it has no NAME.json sidecar; a tool is a sidecar NAME.json beside its executable NAME (check --tools and TOOLCALL_TOOLS)",
		"tools directory " + config + " holds no tools: its one .json file is not a tool sidecar; a tool is a sidecar NAME.json beside its executable NAME (check --tools and TOOLCALL_TOOLS)",
	}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warns, "\n"), strings.Join(want, "\n"))
	}
	problems, _ := Check([]string{empty}, linuxOpts(new([]string)))
	if len(problems) != 1 || problems[0].File != empty || !strings.HasPrefix(problems[0].Message, "holds no tools") {
		t.Errorf("Check of an empty directory: %v", problems)
	}
}

// --tools may name a file holding several definitions: its tools join the
// catalog, with schemas and without executables, and are not offered
// where a call would run them.
func TestLoadListOfTools(t *testing.T) {
	root := t.TempDir()
	dir := testDir(t, root, "project")
	list := filepath.Join(root, "mcp.json")
	if err := os.WriteFile(list, []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","description":"Echo.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}},{"name":"bad","description":"Bad.","inputSchema":{"type":"object","properties":{"n":{"type":"integr"}}}}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load([]string{dir, list}, linuxOpts(new([]string))); err == nil || !strings.Contains(err.Error(), list+`: result.tools[1]: the input schema of tool "bad" does not compile`) {
		t.Errorf("Load error %v; want one naming result.tools[1]", err)
	}
	var warns []string
	opts := linuxOpts(&warns)
	opts.SkipInvalid = true
	c, err := Load([]string{dir, list}, opts)
	if err != nil {
		t.Fatal(err)
	}
	echo, _ := c.Lookup("echo")
	if echo == nil || !echo.Definition || echo.Unavailable != "" || echo.Command != "" {
		t.Fatalf("echo: %+v", echo)
	}
	// A schema that does not compile is withheld here too.
	if bad, _ := c.Lookup("bad"); bad == nil || bad.Unavailable == "" || len(warns) != 1 || !strings.Contains(warns[0], list+": result.tools[1]: tool \"bad\" is withheld") {
		t.Errorf("bad: %+v, warnings %q", bad, warns)
	}
	names := func(sel Selection) []string {
		picked, err := c.Select(context.Background(), sel)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range picked {
			out = append(out, r.Tool.Name)
		}
		return out
	}
	if got := names(Selection{}); !slices.Equal(got, []string{"echo", "lookup"}) {
		t.Errorf("listed %v", got)
	}
	if got := names(Selection{Runnable: true}); !slices.Equal(got, []string{"lookup"}) {
		t.Errorf("offered to run %v", got)
	}
	// A file that is not a list is an error naming it.
	notList := filepath.Join(root, "one.json")
	if err := os.WriteFile(notList, []byte(`{"description":"d","input_schema":{"type":"object"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load([]string{notList}, linuxOpts(new([]string))); err == nil || !strings.HasPrefix(err.Error(), notList+": not a list of tools") {
		t.Errorf("Load(%s): %v", notList, err)
	}
}
