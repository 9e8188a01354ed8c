package tools

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// toolsDirsEnv names the variable that tells every tool which directories
// hold the tools in use (their sidecars and executables), separated as in
// PATH, so that a tool that writes files can refuse to write there: no
// tool may replace another (docs/security.md, Trust model).
const toolsDirsEnv = "TOOLCALL_TOOLS_DIRS"

// hashLimit is the largest executable whose content is hashed before each
// run: a script or a small binary hashes in well under a millisecond; a
// larger one is known by its identity, size and times only (see
// executableStamp).
const hashLimit = 1 << 20

// executableStamp is what is known of a tool's executable when it was
// loaded: the file (device and inode), its size, its modification time
// and its status-change time, which no user can set back (a rewrite that
// restores the mtime still moves it), and for a file of at most hashLimit
// bytes a SHA-256 of its content. The hash is taken at the first run, not
// at load, where listing 10,000 tools would pay for reading them all: a
// file whose inode, size and times are still those seen at load holds
// what it held then, since any write moves the status-change time.
type executableStamp struct {
	info   os.FileInfo
	ctime  time.Time
	sum    [sha256.Size]byte
	hashed bool
}

// stampOf records f, which must be open for reading.
func stampOf(f *os.File) (*executableStamp, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st := &executableStamp{info: fi, ctime: changeTime(fi)}
	if fi.Mode().IsRegular() && fi.Size() <= hashLimit {
		// ReadAt: the hash does not depend on, nor move, the offset.
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size()+1)); err != nil {
			return nil, err
		}
		h.Sum(st.sum[:0])
		st.hashed = true
	}
	return st, nil
}

// RecordExecutable notes what the tool's executable is now (see
// executableStamp), so that a run can tell when it was replaced after the
// tools were loaded. The catalog calls it as it loads each tool; a tool
// made another way is recorded when it first runs.
func (t *Tool) RecordExecutable() {
	if t.Command == "" {
		return
	}
	if fi, err := os.Stat(t.Command); err == nil {
		t.loaded.Store(&executableStamp{info: fi, ctime: changeTime(fi)})
	}
}

// openChecked opens the tool's executable and checks that what was opened
// is what RecordExecutable saw. The caller runs that open file (see
// launch.Spec.Exe), so that the check holds for what runs, even if the
// name points at another file by then; it closes it after the run. why
// says how the executable differs, when it does, and f is then nil. A
// tool without a Command gives neither.
func (t *Tool) openChecked() (f *os.File, why string) {
	if t.Command == "" {
		return nil, ""
	}
	f, err := openExecutable(t.Command)
	if err != nil {
		if t.loaded.Load() == nil {
			return nil, "" // never seen: starting it says what is wrong
		}
		return nil, "it cannot be found any more"
	}
	now, err := stampOf(f)
	if err != nil {
		f.Close()
		return nil, fmt.Sprintf("it cannot be read: %v", err)
	}
	was := t.loaded.Load()
	if was == nil && t.loaded.CompareAndSwap(nil, now) {
		return f, ""
	}
	if was == nil {
		was = t.loaded.Load()
	}
	if why := was.differs(now); why != "" {
		f.Close()
		return nil, why
	}
	if !was.hashed && now.hashed {
		t.loaded.CompareAndSwap(was, now) // the content, for the runs to come
	}
	return f, ""
}

// openExecutable opens path to read it, without waiting: a FIFO put where
// the executable was would otherwise hold the open, and the call, until
// a writer came. (Its stamp then shows another file, and it is refused.)
func openExecutable(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
}

// differs says how now differs from was, or "" when it does not.
func (was *executableStamp) differs(now *executableStamp) string {
	switch {
	case !os.SameFile(was.info, now.info):
		return "it is another file now"
	case was.info.Size() != now.info.Size():
		return fmt.Sprintf("it was %d bytes and is %d", was.info.Size(), now.info.Size())
	case !was.info.ModTime().Equal(now.info.ModTime()):
		return "it was modified"
	case !was.ctime.Equal(now.ctime):
		return "it was modified, or its owner or mode changed"
	case was.hashed && (!now.hashed || was.sum != now.sum):
		return "its content is not the same"
	}
	return ""
}

// ServerSet is a ToolSet that knows its MCP servers, those without a tool
// in it too (catalog.Catalog).
type ServerSet interface {
	ToolSet
	Servers() []Server
}

// WholeSet is a ToolSet that holds some of the tools in use (run --pick,
// mcp serve --tag): Whole gives them all, whose directories are all
// protected.
type WholeSet interface {
	ToolSet
	Whole() ToolSet
}

// toolsDirs lists, absolute and sorted, the directories that hold the
// sidecars and executables of the tools in set, and of its MCP servers
// (every file their commands run, Server.Files): the directory of each executable as named and,
// when it is a symbolic link, of the file it resolves to, since writing
// either replaces what runs.
func toolsDirs(set ToolSet) []string {
	if ws, ok := set.(WholeSet); ok {
		set = ws.Whole()
	}
	seen := map[string]bool{}
	add := func(file string) {
		if file == "" {
			return
		}
		if abs, err := filepath.Abs(filepath.Dir(file)); err == nil {
			seen[abs] = true
		}
		if real, err := filepath.EvalSymlinks(file); err == nil {
			if abs, err := filepath.Abs(filepath.Dir(real)); err == nil {
				seen[abs] = true
			}
		}
	}
	servers := map[Server]bool{}
	addServer := func(s Server) {
		if s == nil || servers[s] {
			return
		}
		servers[s] = true
		for _, f := range s.Files() {
			add(f) // its directory: for a directory it runs (npx ./pkg), the one holding it
		}
	}
	for _, name := range set.Names() {
		t, ok := set.Lookup(name)
		if !ok {
			continue
		}
		add(t.File)
		add(t.Command)
		addServer(t.Server)
	}
	// A server with no tool in the set (one that failed to start, or
	// lists none this time) runs again at the next load: its files are
	// protected all the same.
	if ss, ok := set.(ServerSet); ok {
		for _, s := range ss.Servers() {
			addServer(s)
		}
	}
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs
}

// toolsDirsOnce computes toolsDirsEnv's value for a set once, when the
// first tool runs.
type toolsDirsOnce struct {
	once  sync.Once
	value string
}

func (d *toolsDirsOnce) get(set ToolSet) string {
	d.once.Do(func() { d.value = strings.Join(toolsDirs(set), string(os.PathListSeparator)) })
	return d.value
}

// environ is the environment of one run of t: Environ's, with
// toolsDirsEnv set by toolcall whatever the parent had.
func (x *executor) environ(t *Tool, callID string) []string {
	env := Environ(x.opts.Environ, t, callID, x.opts.Env)
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, toolsDirsEnv+"=") })
	kv := toolsDirsEnv + "=" + x.dirs.get(x.v.set)
	i, _ := slices.BinarySearchFunc(env, kv, func(a, b string) int {
		an, _, _ := strings.Cut(a, "=")
		bn, _, _ := strings.Cut(b, "=")
		return strings.Compare(an, bn)
	})
	return slices.Insert(env, i, kv)
}

// cappedWriter passes on at most left bytes and counts the rest, which it
// drops: saved output stays within --max-scratch-bytes while the tool's
// output is still read to the end.
type cappedWriter struct {
	w       io.Writer
	left    int64
	dropped int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	n := len(p)
	if int64(n) > c.left {
		c.dropped += int64(n) - c.left
		p = p[:c.left]
	}
	c.left -= int64(len(p))
	if len(p) > 0 {
		if _, err := c.w.Write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
}
