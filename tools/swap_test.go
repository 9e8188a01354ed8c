//go:build linux

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The attack of a rename race, with the race won every time: another
// file is renamed over the tool's executable after exec checked it and
// before it starts (the Started hook runs in that window). What runs must
// be the file that was checked.
func TestHostileExecutableRenamedBetweenCheckAndExec(t *testing.T) {
	dir := t.TempDir()
	set := execSet{"echo": shTool(t, dir, "echo", `echo checked`)}
	set["echo"].RecordExecutable()
	evil := filepath.Join(t.TempDir(), "evil")
	swapped := false
	opts := ExecOptions{Started: func(tool *Tool, _ *Call) {
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
		if err := os.WriteFile(evil, []byte("#!/bin/sh\necho swapped in\n"), 0o755); err != nil {
			t.Error(err)
		}
		swapped = os.Rename(evil, tool.Command) == nil
	}}
	out, _, err := runExec(t, context.Background(), set, callLine("1", "echo", `{}`), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !swapped {
		t.Fatal("the test did not swap the executable")
	}
	obs := strings.Split(strings.TrimSpace(out), "\n")[1]
	if got := gjson.Get(obs, "content").Str; got != "checked\n" && got != "checked" {
		t.Errorf("a file swapped in after the check ran:\n%s", obs)
	}
}

// The attack of a rewrite in place: the same size, the same inode, and
// the modification time set back to what it was. The status-change time
// and the content hash still tell.
func TestHostileExecutableRewrittenWithMtimeRestored(t *testing.T) {
	dir := t.TempDir()
	set := execSet{"echo": shTool(t, dir, "echo", `echo good`)}
	path := set["echo"].Command
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	set["echo"].RecordExecutable()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.ForkLock.RLock()
	_, err = f.WriteAt([]byte("echo evil"), int64(len("#!/bin/sh\n")))
	f.Close()
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Fatal("the rewrite did not keep the inode, size and mtime")
	}
	out, st, err := runExec(t, context.Background(), set, callLine("1", "echo", `{}`), ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Failed != 1 || strings.Contains(out, "evil") || !strings.Contains(out, "changed since it was loaded") {
		t.Errorf("a rewritten executable ran:\n%s", out)
	}
}

// Only the content is checked when everything else was made to match: a
// hash mismatch alone refuses the run (the stamp as a clock set back by
// root, or a file system without ctime, would leave it).
func TestStampDiffersOnContentAlone(t *testing.T) {
	dir := t.TempDir()
	tool := shTool(t, dir, "x", `echo one`)
	f, err := os.Open(tool.Command)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	was, err := stampOf(f)
	if err != nil {
		t.Fatal(err)
	}
	now := *was
	now.sum[0] ^= 1
	if why := was.differs(&now); why != "its content is not the same" {
		t.Errorf("differs = %q", why)
	}
	now = *was
	now.ctime = now.ctime.Add(time.Nanosecond)
	if why := was.differs(&now); why == "" {
		t.Error("a moved ctime went unseen")
	}
}

// The attack: a FIFO put where the executable was. Opening it to check
// it waited for a writer, forever; it is another file, and refused.
func TestHostileExecutableReplacedByAFIFO(t *testing.T) {
	dir := t.TempDir()
	set := execSet{"echo": shTool(t, dir, "echo", `echo good`)}
	set["echo"].RecordExecutable()
	path := set["echo"].Command
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o700); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	out, st, err := runExec(t, context.Background(), set, callLine("1", "echo", `{}`), ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Failed != 1 || !strings.Contains(out, "changed since it was loaded") {
		t.Errorf("a FIFO in the executable's place:\n%s", out)
	}
}

// Load records the executable by its inode, size and times; the first
// run adds the hash of what it opened and checked, for the runs to come.
func TestFirstRunRecordsTheHash(t *testing.T) {
	dir := t.TempDir()
	set := execSet{"echo": shTool(t, dir, "echo", `echo good`)}
	set["echo"].RecordExecutable()
	if set["echo"].loaded.Load().hashed {
		t.Fatal("load read the executable")
	}
	if _, st, err := runExec(t, context.Background(), set, callLine("1", "echo", `{}`), ExecOptions{}); err != nil || st.Failed != 0 {
		t.Fatalf("%+v %v", st, err)
	}
	if !set["echo"].loaded.Load().hashed {
		t.Error("the first run did not record the hash")
	}
}
