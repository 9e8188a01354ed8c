// Command write_file writes text to a file under the root directory
// ($TOOLCALL_ROOT, else the working directory), replacing what it held.
// It has side effects, so its sidecar says "safe": false and toolcall runs
// it only with consent.
//
// The text is written exactly, with no newline added. The write is atomic:
// the text goes to a temporary file beside the target, which is then
// renamed over it, so a reader never sees half a file and a failure leaves
// the old content. An existing file keeps its permissions but never an
// executable bit; a new one gets 0644 (less the umask). Directories are not
// created: a missing one is an error, so that a mistyped path does not grow
// a tree.
//
// It never writes among the tools in use ($TOOLCALL_TOOLS_DIRS), and never
// leaves a file executable: no tool may replace another, or make one.
//
// The result is JSON: {"path": ..., "bytes": ..., "created": ...}. An
// error is a message on stderr with exit status 2 when the caller should
// change the arguments, 1 otherwise.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolcall/toolcall/testdata/tools/src/internal/tool"
)

type args struct {
	Path *string `json:"path"`
	Text *string `json:"text"`
}

type result struct {
	Path    string `json:"path"` // relative to the root, links resolved
	Bytes   int    `json:"bytes"`
	Created bool   `json:"created"`
}

func main() {
	var a args
	if err := tool.ReadArgs(&a); err != nil {
		tool.Fail(2, "%v", err)
	}
	if a.Path == nil || a.Text == nil {
		tool.Fail(2, `"path" and "text" are both required, e.g. {"path": "notes.txt", "text": "hello\n"}`)
	}
	root, err := tool.OpenRoot()
	if err != nil {
		tool.Fail(1, "%v", err)
	}
	rel, err := root.Resolve(*a.Path, true)
	if err != nil {
		tool.Fail(2, "%v", err)
	}
	res, code, err := write(root, rel, *a.Text)
	if err != nil {
		tool.Fail(code, "%v", err)
	}
	tool.WriteJSON(res)
}

func write(r *tool.Root, rel, text string) (result, int, error) {
	// The directory is opened once and every step after works in it, by
	// the file's base name: a link swapped in on the way cannot send the
	// write elsewhere, and the directory itself is checked not to be a
	// tools directory.
	root, err := r.FS.OpenRoot(filepath.Dir(rel))
	if err != nil {
		return result{}, 1, err
	}
	defer root.Close()
	if err := r.Spared(root); err != nil {
		return result{}, 2, err
	}
	name := filepath.Base(rel)

	perm, created := fs.FileMode(0o644), true
	switch info, err := root.Lstat(name); {
	case err == nil && info.IsDir():
		return result{}, 2, fmt.Errorf("%q is a directory; give the path of a file", rel)
	case err == nil && !info.Mode().IsRegular():
		return result{}, 2, fmt.Errorf("%q is not a regular file; write_file replaces regular files only", rel)
	case err == nil:
		perm, created = info.Mode().Perm()&^0o111, false
	case !errors.Is(err, fs.ErrNotExist):
		return result{}, 1, err
	}

	// The temporary name starts with a dot and is random, so it neither
	// shows among the files nor collides with a concurrent write.
	var suffix [8]byte
	rand.Read(suffix[:])
	tmp := "." + name + ".tmp-" + hex.EncodeToString(suffix[:])
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return result{}, 1, err
	}
	_, err = f.WriteString(text)
	if err == nil {
		err = f.Sync() // the content is on disk before the name points at it
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !created {
		err = root.Chmod(tmp, perm) // the umask may have narrowed it
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
		return result{}, 1, err
	}
	return result{Path: filepath.ToSlash(rel), Bytes: len(text), Created: created}, 0, nil
}
