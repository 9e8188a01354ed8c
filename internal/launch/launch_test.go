//go:build unix

package launch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// script writes an executable sh script and returns its path. The fork
// lock keeps a concurrent fork from inheriting the file open for writing
// ("text file busy").
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "child")
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// lockedBuffer is a bytes.Buffer that a test may read while Run writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRunPassesArgumentsStdinAndEnvironment(t *testing.T) {
	t.Parallel()
	child := script(t, `printf '%s|' "$@"; cat; echo "$GREETING"; echo oops >&2; exit 3`)
	var out, errOut lockedBuffer
	r := Run(context.Background(), Spec{
		Path: child, Args: []string{"a b", "c"}, Env: []string{"GREETING=hi"},
		Stdin: []byte("in\n"), Stdout: &out, Stderr: &errOut,
	})
	if r.StartErr != nil || r.ExitCode != 3 || r.Signal != "" || r.TimedOut || r.Interrupted {
		t.Fatalf("result %+v, want exit 3", r)
	}
	if got := out.String(); got != "a b|c|in\nhi\n" {
		t.Errorf("stdout %q", got)
	}
	if got := errOut.String(); got != "oops\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestRunLooksUpBareNamesOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	r := Run(context.Background(), Spec{Path: "sh", Args: []string{"-c", "echo found"}, LookPath: true, Stdout: &out})
	if r.StartErr != nil || out.String() != "found\n" {
		t.Errorf("with LookPath: %+v, stdout %q", r, out.String())
	}
	r = Run(context.Background(), Spec{Path: "toolcall-no-such-program", LookPath: true})
	if r.StartErr == nil || !strings.Contains(r.StartErr.Error(), "toolcall-no-such-program") {
		t.Errorf("a missing program: %v, want an error naming it", r.StartErr)
	}
	r = Run(context.Background(), Spec{Path: "sh", Dir: t.TempDir()})
	if !errors.Is(r.StartErr, os.ErrNotExist) {
		t.Errorf("without LookPath a bare name is a file in the working directory: %v", r.StartErr)
	}
}

// A descendant that left the group and holds stdout open cannot keep Run
// waiting once the leader is done, and what the leader wrote arrives.
func TestRunDoesNotWaitForAnEscapedHolderOfStdout(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	child := script(t, "setsid sleep 30 &\necho $!")
	var out lockedBuffer
	done := make(chan Result)
	go func() {
		done <- Run(context.Background(), Spec{Path: child, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out})
	}()
	select {
	case r := <-done:
		if r.ExitCode != 0 {
			t.Errorf("result %+v, want exit 0", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run waited for the escaped process")
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(out.String())); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestRunStopsTheGroupWhenCancelled(t *testing.T) {
	t.Parallel()
	// The leader ignores SIGTERM; SIGKILL after the grace ends it.
	child := script(t, "trap '' TERM\necho ready\nwhile :; do sleep 1; done")
	ctx, cancel := context.WithCancel(context.Background())
	out := &readySignal{ready: make(chan struct{})}
	go func() { <-out.ready; cancel() }()
	r := Run(ctx, Spec{Path: child, Env: []string{"PATH=/usr/bin:/bin"}, Stdout: out, Grace: 100 * time.Millisecond})
	if !r.Interrupted || r.TimedOut || r.ExitCode != -1 || r.Signal != "SIGKILL" {
		t.Errorf("result %+v, want interrupted and SIGKILLed", r)
	}
}

// readySignal closes ready at the first newline written to it.
type readySignal struct {
	once  sync.Once
	ready chan struct{}
}

func (r *readySignal) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') >= 0 {
		r.once.Do(func() { close(r.ready) })
	}
	return len(p), nil
}

// A child that talks back and forth gets its stdin as it comes; a child
// that exits while the stream is still open does not keep Run waiting.
func TestRunStreamsStdinFrom(t *testing.T) {
	t.Parallel()
	child := script(t, `read line; echo "got $line"; read again; exit 0`)
	in, feed := io.Pipe()
	out, toTest := io.Pipe()
	done := make(chan Result, 1)
	go func() {
		done <- Run(context.Background(), Spec{Path: child, StdinFrom: in, Stdout: toTest})
		toTest.Close()
	}()
	feed.Write([]byte("one\n"))
	reply := make([]byte, 64)
	n, _ := out.Read(reply)
	if got := string(reply[:n]); got != "got one\n" {
		t.Errorf("reply %q", got)
	}
	feed.Write([]byte("two\n")) // the child exits; the stream stays open
	if r := <-done; r.ExitCode != 0 {
		t.Errorf("result %+v", r)
	}
	if _, err := feed.Write([]byte("three\n")); err == nil {
		t.Error("StdinFrom was not closed when the child ended")
	}
}
