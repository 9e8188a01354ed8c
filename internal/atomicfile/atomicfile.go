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
	"io"
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

// CreateIn starts a file to be named in dir once it is written, for a
// name made from what it holds (CommitNew): a new file ".new.RANDOM.tmp"
// there, private (0600) until CommitNew gives it perm.
func CreateIn(dir string, perm fs.FileMode) (*File, error) {
	f, err := os.CreateTemp(dir, ".new.*.tmp")
	if err != nil {
		return nil, err
	}
	return &File{perm: perm, f: f}, nil
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
	if a.path == "" {
		return errors.New("a file made with CreateIn is named by CommitNew")
	}
	err := a.finish()
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	return a.syncDir()
}

// CommitNew gives the file the name path, which must be in its directory,
// never replacing or writing through what is there: a hard link, which
// fails when the name is taken (by anything, a symbolic link included),
// or where the file system has no hard links a new file (O_EXCL) it is
// copied to. A name taken is an error that errors.Is fs.ErrExist. The new
// file is removed either way; the file and the directory are synced.
func (a *File) CommitNew(path string) error {
	if a.done {
		return errors.New("the file was already committed or abandoned")
	}
	a.path = path
	err := a.finish()
	if err == nil {
		err = os.Link(a.f.Name(), path)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			err = copyNew(a.f.Name(), path, a.perm)
		}
	}
	os.Remove(a.f.Name())
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return a.syncDir()
}

// finish gives the file its mode, syncs and closes it.
func (a *File) finish() error {
	a.done = true
	err := a.f.Chmod(a.perm)
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (a *File) syncDir() error {
	if err := SyncDir(filepath.Dir(a.path)); err != nil {
		return fmt.Errorf("writing %s: the file is in place, but its directory could not be synced: %w", a.path, err)
	}
	return nil
}

// copyNew copies the file src to a new file dst, which must not exist:
// O_EXCL fails on any name taken, a symbolic link included.
func copyNew(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
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
