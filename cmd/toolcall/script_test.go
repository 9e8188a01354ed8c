package main

import (
	"path/filepath"
	"testing"

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
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(moduleRoot, "testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		// $EXAMPLES is the bundled example tools directory.
		Setup: func(env *testscript.Env) error {
			dir, err := filepath.Abs(filepath.Join(moduleRoot, "testdata", "tools"))
			env.Setenv("EXAMPLES", dir)
			return err
		},
	})
}
