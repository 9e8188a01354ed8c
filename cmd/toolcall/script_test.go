package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as toolcall itself, so that the
// scripts exec the real main in a subprocess.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"toolcall": main})
}

// TestScripts runs the end-to-end scripts in testdata/script at the top of
// the module. With -update, the expected output in a script is rewritten
// where a cmp fails: review the diff before committing it.
func TestScripts(t *testing.T) {
	examples := buildExamples(t)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(moduleRoot, "testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"cmpevents": cmpEvents,
		},
		// $EXAMPLES is the bundled example tools directory, built.
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			testdata, err := filepath.Abs(filepath.Join(moduleRoot, "testdata"))
			env.Setenv("MODELS", filepath.Join(testdata, "models"))
			env.Setenv("TESTDATA", testdata)
			return err
		},
	})
}

// buildExamples builds the example tools of testdata/tools into a new
// directory beside copies of their sidecars, as make does in place.
func buildExamples(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(moduleRoot, "testdata", "tools")
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./testdata/tools/src/...")
	cmd.Dir = moduleRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the example tools: %v\n%s", err, out)
	}
	sidecars, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(sidecars) == 0 {
		t.Fatalf("no example sidecars in %s (%v)", src, err)
	}
	for _, f := range sidecars {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// volatile matches the event fields that change from run to run
// (DESIGN.md §2), which golden comparisons ignore.
var volatile = regexp.MustCompile(`,"duration_ms":[0-9]+`)

// cmpEvents is the script command "cmpevents got want": like cmpenv (want
// may use $WORK and other variables; got may be stdout), ignoring volatile
// fields.
func cmpEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpevents got want")
	}
	got := volatile.ReplaceAllString(ts.ReadFile(args[0]), "")
	want := volatile.ReplaceAllString(ts.ReadFile(args[1]), "")
	want = os.Expand(want, ts.Getenv)
	if got != want {
		// What to paste as the new want, should the change be right.
		paste := strings.ReplaceAll(got, ts.Getenv("WORK"), "$WORK")
		paste = strings.ReplaceAll(paste, ts.Getenv("EXAMPLES"), "$EXAMPLES")
		ts.Logf("new %s, if the change is right:\n%s", args[1], paste)
		ts.Fatalf("%s and %s differ (duration_ms ignored):\n%s", args[0], args[1], cmp.Diff(want, got))
	}
}
