package tools

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// ToolsDirsEnv names the variable that tells every tool which directories
// hold the tools in use (their sidecars and executables), separated as in
// PATH, so that a tool that writes files can refuse to write there: no
// tool may replace another (README.md, Trust model).
const ToolsDirsEnv = "TOOLCALL_TOOLS_DIRS"

// executableStamp is what is known of a tool's executable when it was
// loaded.
type executableStamp struct{ info os.FileInfo }

// RecordExecutable notes the identity, size and modification time of the
// tool's executable, so that a run can tell when it was replaced after the
// tools were loaded. The catalog calls it as it loads each tool; a tool
// made another way is recorded when it first runs.
func (t *Tool) RecordExecutable() {
	if t.Command == "" {
		return
	}
	if fi, err := os.Stat(t.Command); err == nil {
		t.loaded.Store(&executableStamp{fi})
	}
}

// changedSinceLoaded says how the executable differs from what
// RecordExecutable saw, or "" when it does not.
func (t *Tool) changedSinceLoaded() string {
	if t.Command == "" {
		return ""
	}
	was := t.loaded.Load()
	fi, err := os.Stat(t.Command)
	if was == nil {
		if err == nil {
			t.loaded.CompareAndSwap(nil, &executableStamp{fi})
		}
		return ""
	}
	switch {
	case err != nil:
		return "it cannot be found any more"
	case !os.SameFile(was.info, fi):
		return "it is another file now"
	case was.info.Size() != fi.Size():
		return fmt.Sprintf("it was %d bytes and is %d", was.info.Size(), fi.Size())
	case !was.info.ModTime().Equal(fi.ModTime()):
		return "it was modified"
	}
	return ""
}

// toolsDirs lists, absolute and sorted, the directories that hold the
// sidecars and executables of the tools in set.
func toolsDirs(set ToolSet) []string {
	seen := map[string]bool{}
	add := func(file string) {
		if file == "" {
			return
		}
		if abs, err := filepath.Abs(filepath.Dir(file)); err == nil {
			seen[abs] = true
		}
	}
	for _, name := range set.Names() {
		if t, ok := set.Lookup(name); ok {
			add(t.File)
			add(t.Command)
		}
	}
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs
}

// toolsDirsOnce computes ToolsDirsEnv's value for a set once, when the
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
// ToolsDirsEnv set by toolcall whatever the parent had.
func (x *executor) environ(t *Tool, callID string) []string {
	env := Environ(x.opts.Environ, t, callID, x.opts.Env)
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, ToolsDirsEnv+"=") })
	kv := ToolsDirsEnv + "=" + x.dirs.get(x.v.set)
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
