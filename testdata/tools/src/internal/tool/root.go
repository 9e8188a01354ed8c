package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Root is the directory the file tools are confined to: $TOOLCALL_ROOT when
// set, else the working directory.
//
// Confinement is checked twice. Resolve first evaluates every symbolic link
// in a path and refuses one that ends outside the root, which gives a clear
// message; then the tool opens the resolved name through an os.Root, which
// refuses any escape on its own, so a link swapped in between the check and
// the open (a race) cannot lead out either.
//
// The directories of the tools in use ($TOOLCALL_TOOLS_DIRS, which toolcall
// sets, separated as in PATH) are off limits even inside the root: a file
// tool that could write there could replace another tool with new code.
// Resolve refuses any path that ends inside one, links resolved; a writer
// also checks the directory it holds open (see Spared).
type Root struct {
	Dir   string // absolute, every symbolic link resolved
	given string // absolute, as given, for absolute paths that use this spelling
	FS    *os.Root
	tools []string // the tools' directories, absolute, links resolved
}

// ToolsDirsEnv names the variable toolcall lists the tools' directories in.
const ToolsDirsEnv = "TOOLCALL_TOOLS_DIRS"

// OpenRoot opens the root directory named by $TOOLCALL_ROOT or, when it is
// unset, the working directory.
func OpenRoot() (*Root, error) {
	dir, what := os.Getenv("TOOLCALL_ROOT"), "TOOLCALL_ROOT"
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("no root directory: TOOLCALL_ROOT is unset and the working directory is unknown (%v)", err)
		}
		dir, what = wd, "the working directory"
	}
	given, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("root directory %s %q: %v", what, dir, err)
	}
	real, err := filepath.EvalSymlinks(given)
	if err != nil {
		return nil, fmt.Errorf("root directory %s %q does not exist; set TOOLCALL_ROOT to an existing directory", what, dir)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("root directory %s %q: %v", what, dir, err)
	}
	return &Root{Dir: real, given: given, FS: r, tools: toolsDirs()}, nil
}

// toolsDirs reads $TOOLCALL_TOOLS_DIRS. A directory that does not exist
// holds no tool, and one that cannot be resolved is kept as written.
func toolsDirs() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv(ToolsDirsEnv)) {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			real = abs
		}
		dirs = append(dirs, real)
	}
	return dirs
}

// toolsDir returns the tools' directory that the absolute, resolved path
// is in, if any.
func (r *Root) toolsDir(path string) (string, bool) {
	for _, d := range r.tools {
		if _, in := inside(d, path); in {
			return d, true
		}
	}
	return "", false
}

// Spared reports an error when dir, a directory the caller holds open, is
// one of the tools' directories. Resolve has checked the path by name;
// this checks the very directory about to be written, so that a link
// swapped in on the way after Resolve cannot lead a write among the tools.
func (r *Root) Spared(dir *os.Root) error {
	here, err := dir.Stat(".")
	if err != nil {
		return err
	}
	for _, d := range r.tools {
		if fi, err := os.Stat(d); err == nil && os.SameFile(fi, here) {
			return fmt.Errorf("the directory is %s, which holds the tools in use; file tools may not change tools", d)
		}
	}
	return nil
}

// Resolve turns a path argument, relative to the root or absolute, into a
// name relative to the root with every symbolic link resolved, or refuses
// it with a message meant for the caller. With mayBeNew, the last element
// need not exist (a file about to be written), but its directory must.
func (r *Root) Resolve(path string, mayBeNew bool) (string, error) {
	if path == "" {
		return "", errors.New(`the path is empty; give a path relative to the root, or "." for the root itself`)
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", errors.New("the path contains a NUL byte")
	}
	// Lexically first: a path that names a place outside the root is
	// refused before anything is looked up, so the answer says nothing
	// about what exists out there.
	full, ok := r.lexical(path)
	if !ok {
		return "", fmt.Errorf("%q is outside the root directory %s; give a path inside it", path, r.Dir)
	}
	real, err := filepath.EvalSymlinks(full)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) && mayBeNew:
		if _, lerr := os.Lstat(full); lerr == nil {
			// A dangling link: writing through it would create a file
			// wherever it points.
			return "", fmt.Errorf("%q is a symbolic link to a file that does not exist; write to the target's own path instead", path)
		}
		parent, perr := filepath.EvalSymlinks(filepath.Dir(full))
		if perr != nil {
			return "", fmt.Errorf("the directory of %q does not exist; this tool does not create directories", path)
		}
		real = filepath.Join(parent, filepath.Base(full))
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%q does not exist; list_dir shows what does", path)
	default:
		return "", fmt.Errorf("%q: %v", path, err)
	}
	rel, ok := inside(r.Dir, real)
	if !ok {
		return "", fmt.Errorf("%q goes through a symbolic link that points outside the root directory %s; only files under the root can be used", path, r.Dir)
	}
	if d, in := r.toolsDir(real); in {
		return "", fmt.Errorf("%q is inside %s, which holds the tools in use; file tools may not read or change tools, so use a path elsewhere", path, d)
	}
	return rel, nil
}

// lexical joins path to the root and reports whether the result, before
// any link is followed, is inside it. An absolute path may spell the root
// as given or as resolved.
func (r *Root) lexical(path string) (string, bool) {
	if !filepath.IsAbs(path) {
		full := filepath.Join(r.Dir, path)
		_, ok := inside(r.Dir, full)
		return full, ok
	}
	path = filepath.Clean(path)
	if rel, ok := inside(r.Dir, path); ok {
		return filepath.Join(r.Dir, rel), true
	}
	if rel, ok := inside(r.given, path); ok {
		return filepath.Join(r.Dir, rel), true
	}
	return "", false
}

// inside reports whether path is dir or below it, and the relative name.
func inside(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
