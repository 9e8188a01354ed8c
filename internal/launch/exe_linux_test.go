package launch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The attack: a file is opened and checked, then another is renamed over
// its name before the exec. Run with Exe must run what was opened.
func TestRunExecutesTheOpenFileNotWhatItsNameNowIs(t *testing.T) {
	t.Parallel()
	checked := script(t, `echo checked "$@"`)
	exe, err := os.Open(checked)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	swapped := script(t, `echo swapped`)
	if err := os.Rename(swapped, checked); err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	r := Run(context.Background(), Spec{Path: checked, Exe: exe, Args: []string{"x"}, Stdout: &out})
	if r.StartErr != nil || r.ExitCode != 0 {
		t.Fatalf("Run = %+v", r)
	}
	if got := out.String(); got != "checked x\n" {
		t.Errorf("stdout = %q, want the checked file's %q", got, "checked x\n")
	}
}

// A script run from its open file can still find the files beside it by
// resolving its name, as README.md tells tool writers to.
func TestRunOpenFileScriptResolvesItsOwnDirectory(t *testing.T) {
	t.Parallel()
	path := script(t, `dirname "$(readlink -f "$0")"`)
	exe, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	var out lockedBuffer
	r := Run(context.Background(), Spec{Path: path, Exe: exe, Stdout: &out})
	if r.StartErr != nil || r.ExitCode != 0 {
		t.Fatalf("Run = %+v", r)
	}
	dir, _ := filepath.EvalSymlinks(filepath.Dir(path))
	if got := out.String(); got != dir+"\n" {
		t.Errorf("stdout = %q, want %q", got, dir+"\n")
	}
}
