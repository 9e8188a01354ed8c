// Command list_dir lists a directory under the root directory
// ($TOOLCALL_ROOT, else the working directory), one name a line, sorted,
// marked as ls -F does: a trailing / for a directory, @ for a symbolic
// link. A path that leads out of the root, by "..", as an absolute path or
// through a symbolic link, is refused.
//
// The result is plain text; an error is a message on stderr with exit
// status 2 when the caller should change the arguments, 1 otherwise.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/testdata/tools/src/internal/tool"
)

const (
	defaultLimit = 200
	maxLimit     = 1000
)

type args struct {
	Path  string `json:"path"`
	Limit *int   `json:"limit"`
}

func main() {
	var a args
	if err := tool.ReadArgs(&a); err != nil {
		tool.Fail(2, "%v", err)
	}
	limit := defaultLimit
	if a.Limit != nil {
		if limit = *a.Limit; limit < 1 || limit > maxLimit {
			tool.Fail(2, `"limit" must be between 1 and %d entries, not %d`, maxLimit, limit)
		}
	}
	if a.Path == "" {
		a.Path = "."
	}
	root, err := tool.OpenRoot()
	if err != nil {
		tool.Fail(1, "%v", err)
	}
	rel, err := root.Resolve(a.Path, false)
	if err != nil {
		tool.Fail(2, "%v", err)
	}
	if info, err := root.FS.Stat(rel); err != nil {
		tool.Fail(1, "%v", err)
	} else if !info.IsDir() {
		tool.Fail(2, "%q is a file, not a directory; read_file reads it", a.Path)
	}
	dir, err := root.FS.Open(rel)
	if err != nil {
		tool.Fail(1, "%v", err)
	}
	// File.ReadDir returns directory order, so sort here: by name, in byte
	// order, like ls in the C locale.
	entries, err := dir.ReadDir(-1)
	if err != nil {
		tool.Fail(1, "listing %q: %v", a.Path, err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		switch {
		case e.Type()&os.ModeSymlink != 0:
			names[i] = e.Name() + "@"
		case e.IsDir():
			names[i] = e.Name() + "/"
		default:
			names[i] = e.Name()
		}
	}
	slices.Sort(names)
	write(os.Stdout, names, limit)
}

func write(w io.Writer, names []string, limit int) {
	var b strings.Builder
	if len(names) == 0 {
		b.WriteString("(empty directory)\n")
	}
	for i, name := range names {
		if i == limit {
			fmt.Fprintf(&b, "... and %d more; call list_dir again with a larger limit (at most %d)\n", len(names)-limit, maxLimit)
			break
		}
		b.WriteString(name)
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		tool.Fail(1, "writing the result: %v", err)
	}
}
