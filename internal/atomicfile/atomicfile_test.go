package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// What had the name is replaced only on Commit: it stays whole until
// then, Abort leaves nothing behind, and Commit gives the file its mode.
func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(path, []byte("good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	if b, _ := os.ReadFile(path); string(b) != "good\n" {
		t.Errorf("before Commit the file holds %q", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "good\n" {
		t.Errorf("after Abort the file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Abort left %d files", len(entries))
	}
	f, _ = Create(path, 0o640)
	f.Write([]byte("new\n"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if err := f.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("after Commit the file holds %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Commit left %d files", len(entries))
	}
}

// A bare name is written in the working directory, not in $TMPDIR: there
// the rename would cross file systems (EXDEV) when the working directory
// is on another mount, and fail outright when $TMPDIR is unusable.
func TestBareNameIsWrittenBesideIt(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("TMPDIR", filepath.Join(dir, "no-such-dir"))
	f, err := Create("rec.jsonl", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(f.Name()) != "." {
		t.Errorf("the new file is %s, not beside rec.jsonl", f.Name())
	}
	f.Write([]byte("kept\n"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "rec.jsonl")); string(b) != "kept\n" {
		t.Errorf("rec.jsonl holds %q, %v", b, err)
	}
}

// A directory that is not there is the error of the create, which names
// the file.
func TestMissingDirectory(t *testing.T) {
	_, err := Create(filepath.Join(t.TempDir(), "no", "rec.jsonl"), 0o644)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v", err)
	}
}

// CommitNew names a file never replacing or writing through what has the
// name: a file or a symbolic link there is fs.ErrExist, and stays as it
// was; the new file is gone either way.
func TestCommitNew(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, []byte("theirs\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "taken.txt"), []byte("old\n"), 0o644)
	if err := os.Symlink(target, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"taken.txt", "link.txt"} {
		f, err := CreateIn(dir, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("mine\n"))
		if err := f.CommitNew(filepath.Join(dir, name)); !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s: err = %v, want fs.ErrExist", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "taken.txt")); string(b) != "old\n" {
		t.Errorf("taken.txt holds %q", b)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs\n" {
		t.Errorf("the link's target holds %q", b)
	}
	f, _ := CreateIn(dir, 0o600)
	f.Write([]byte("mine\n"))
	if err := f.Commit(); err == nil {
		t.Error("Commit of a file without a name succeeded")
	}
	f.Abort()
	f, _ = CreateIn(dir, 0o600)
	f.Write([]byte("mine\n"))
	if err := f.CommitNew(filepath.Join(dir, "new.txt")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "new.txt")); string(b) != "mine\n" {
		t.Errorf("new.txt holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("%d files in the directory, want elsewhere, taken, link and new", len(entries))
	}
}
