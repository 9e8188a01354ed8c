// Package atomicfile writes a file whole or not at all: into a new file
// beside the name it is meant for, which Commit renames over that name
// once the file, then its directory, are on disk. Until then whatever had
// the name (a good recording, a finished transcript, the bearer token)
// stays as it was, and a process killed half way leaves it so.
//
// The new file is made in the target's own directory, never in the
// system's temporary directory: a rename cannot cross file systems
// (EXDEV), and $TMPDIR is often another mount (tmpfs) than the working
// directory, or unusable.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// File is a file being written for a path, given that path by Commit.
type File struct {
	path string
	perm fs.FileMode
	f    *os.File
	done bool
}

// Create starts the file meant for path: a new file ".BASE.RANDOM.tmp"
// (RANDOM all digits) in path's directory, "." for a bare name, private
// (0600) while it is written; Commit gives it perm. Callers that clean up
// after a killed run find leftovers by that pattern.
func Create(path string, perm fs.FileMode) (*File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &File{path: path, perm: perm, f: f}, nil
}

// Write writes to the new file.
func (a *File) Write(p []byte) (int, error) { return a.f.Write(p) }

// Name is the new file's name until Commit, beside the path.
func (a *File) Name() string { return a.f.Name() }

// Commit gives the file its mode and its name, replacing what had it,
// with the file synced before the rename and the directory after, so that
// after a crash the name holds the old file or the whole new one. After
// an error before the rename the new file is removed and the name is as
// it was.
func (a *File) Commit() error {
	if a.done {
		return errors.New("the file was already committed or abandoned")
	}
	a.done = true
	err := a.f.Chmod(a.perm)
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	if err := SyncDir(filepath.Dir(a.path)); err != nil {
		return fmt.Errorf("writing %s: the file is in place, but its directory could not be synced: %w", a.path, err)
	}
	return nil
}

// Abort drops the new file, leaving what had the name as it was; after
// Commit it does nothing, so it can be deferred.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	os.Remove(a.f.Name())
}

// SyncDir makes what was renamed or linked into dir durable. A file
// system that cannot sync a directory (EINVAL) has nothing more to do.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
