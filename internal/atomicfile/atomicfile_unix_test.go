//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// With $TMPDIR on another file system than the target (tmpfs at
// /dev/shm, where there is one), nothing is made in $TMPDIR and the
// rename stays within the target's.
func TestAcrossFileSystems(t *testing.T) {
	dir := t.TempDir()
	tmp, err := os.MkdirTemp("/dev/shm", "atomicfile-")
	if err != nil {
		t.Skip("no /dev/shm here:", err)
	}
	defer os.RemoveAll(tmp)
	if sameDevice(t, dir, tmp) {
		t.Skip("/dev/shm is on the same file system as", dir)
	}
	t.Chdir(dir)
	t.Setenv("TMPDIR", tmp)
	f, err := Create("rec.jsonl", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("kept\n"))
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("%d files made in $TMPDIR", len(entries))
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "rec.jsonl")); string(b) != "kept\n" {
		t.Errorf("rec.jsonl holds %q", b)
	}
}

func sameDevice(t *testing.T, a, b string) bool {
	var sa, sb syscall.Stat_t
	if err := errors.Join(syscall.Stat(a, &sa), syscall.Stat(b, &sb)); err != nil {
		t.Skip(err)
	}
	return sa.Dev == sb.Dev
}
