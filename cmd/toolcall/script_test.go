package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/toolcall/toolcall/internal/golden"
)

// TestMain lets the test binary run as toolcall itself, so that the
// scripts exec the real main in a subprocess.
func TestMain(m *testing.M) {
	testscript.Main(cleanupM{m}, map[string]func(){"toolcall": main})
}

// cleanupM removes what the tests built once for all of them, after they
// ran.
type cleanupM struct{ m *testing.M }

func (c cleanupM) Run() int {
	// run --record notes the last recording for -c: in a directory of
	// the tests', not the user's.
	state, err := os.MkdirTemp("", "toolcall-state-")
	if err == nil {
		os.Setenv("XDG_STATE_HOME", state)
		defer os.RemoveAll(state)
	}
	code := c.m.Run()
	if examples.dir != "" {
		os.RemoveAll(examples.dir)
	}
	return code
}

// TestScripts runs the end-to-end scripts in testdata/script at the top of
// the module. With -update, the expected output in a script is rewritten
// where a cmp fails: review the diff before committing it.
func TestScripts(t *testing.T) {
	examples := buildExamples(t)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(moduleRoot, "testdata", "script"),
		UpdateScripts:       *golden.Update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"cmpevents": cmpEvents,
		},
		// [gnuparallel]: GNU parallel is installed (not moreutils' parallel).
		Condition: func(cond string) (bool, error) {
			if cond != "gnuparallel" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			return gnuParallel(), nil
		},
		// $EXAMPLES is the bundled example tools directory, built.
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			testdata, err := filepath.Abs(filepath.Join(moduleRoot, "testdata"))
			env.Setenv("MODELS", filepath.Join(testdata, "models"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state")) // -c's last recording
			env.Setenv("TESTDATA", testdata)
			// toolcall new --lang go builds with the cache of the
			// tests' own go command rather than a cold one.
			env.Setenv("GOCACHE", goCache())
			return err
		},
	})
}

// goCache is the build cache of the go command running the tests.
func goCache() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "go-build")
	}
	return ""
}

// examples is the example tools, built once for every test of the process
// that needs them: linking seven programs per test was most of this
// package's test time. Tests only read the directory.
var examples struct {
	once sync.Once
	dir  string
	err  error
}

// buildExamples builds the example tools of testdata/tools into a
// directory beside copies of their sidecars, as make does in place, and
// returns it.
func buildExamples(t *testing.T) string {
	t.Helper()
	examples.once.Do(func() { examples.dir, examples.err = buildExamplesOnce() })
	if examples.err != nil {
		t.Fatal(examples.err)
	}
	return examples.dir
}

func buildExamplesOnce() (string, error) {
	dir, err := os.MkdirTemp("", "toolcall-examples-")
	if err != nil {
		return "", err
	}
	src := filepath.Join(moduleRoot, "testdata", "tools")
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./testdata/tools/src/...")
	cmd.Dir = moduleRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, fmt.Errorf("building the example tools: %v\n%s", err, out)
	}
	sidecars, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(sidecars) == 0 {
		return dir, fmt.Errorf("no example sidecars in %s (%v)", src, err)
	}
	for _, f := range sidecars {
		data, err := os.ReadFile(f)
		if err != nil {
			return dir, err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// volatile matches the event fields that change from run to run
// (README.md, Events), which golden comparisons ignore.
var volatile = regexp.MustCompile(`,"(duration_ms|model_ms|parse_ms|validate_ms|exec_ms)":[0-9]+`)

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
		ts.Fatalf("%s and %s differ (duration_ms and step timings ignored):\n%s", args[0], args[1], cmp.Diff(want, got))
	}
}

// gnuParallel reports whether the parallel on PATH is GNU parallel, which
// the batch recipe of docs/batch.md uses. Its absence is said loudly: the recipe's
// test is skipped then.
var gnuParallel = sync.OnceValue(func() bool {
	out, err := exec.Command("parallel", "--version").Output()
	if err != nil || !strings.Contains(string(out), "GNU parallel") {
		fmt.Fprintln(os.Stderr, "toolcall tests: GNU parallel is not installed (apt-get install parallel): the batch recipe of docs/batch.md is NOT tested")
		return false
	}
	return true
})
