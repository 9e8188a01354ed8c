// Package golden is the one place for the golden-file rule of the project:
// a test's expected output lives in a golden file under the package's
// testdata/ directory, go test -update rewrites the golden files from what
// the code produces now, and the resulting diff is reviewed like code before
// it is committed. Tests call Check instead of repeating the
// update-or-compare block, so the rule and its messages stay the same
// everywhere.
package golden

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update is the -update flag of the test binary: with it, Check rewrites
// golden files instead of comparing with them. Expected output that is not
// one file per case reads it too (cmd/toolcall's generated man/ and
// completions/, the expected output in its testscript scripts), so one
// flag rewrites every kind of expected output.
var Update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Check compares got with the golden file at path. With -update it writes
// got to path instead, creating the parent directories as needed.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("golden file %s does not exist (run go test -update to create it)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}
