//go:build unix

package tools

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEnviron(t *testing.T) {
	parent := []string{
		"ZED=1", "PATH=/bin", "HOME=/root", "LANG=en_US.UTF-8", "LC_TIME=de_DE", "LC_ALL=C",
		"TZ=UTC", "TMPDIR=/tmp", "OPENAI_API_KEY=sk-secret", "KEYBOARD=us", "WEATHER_KEY=w123",
		"TOOLCALL_TOOL=forged", "TOOLCALL_CALL_ID=forged", "PATH=/usr/bin:/bin", "NOEQUALS", "=C:=C:\\",
		"EMPTY=",
	}
	tests := []struct {
		name  string
		tool  *Tool
		extra []string
		want  []string
	}{
		{
			name: "only the base names",
			tool: &Tool{Name: "t"},
			want: []string{"HOME=/root", "LANG=en_US.UTF-8", "LC_ALL=C", "LC_TIME=de_DE", "PATH=/usr/bin:/bin",
				"TMPDIR=/tmp", "TOOLCALL_CALL_ID=c1", "TOOLCALL_TOOL=t", "TZ=UTC"},
		},
		{
			name:  "names from --env and the sidecar; missing ones stay missing, empty ones empty",
			tool:  &Tool{Name: "weather", Env: []string{"WEATHER_KEY", "NOT_SET"}},
			extra: []string{"ZED", "EMPTY", "ALSO_NOT_SET"},
			want: []string{"EMPTY=", "HOME=/root", "LANG=en_US.UTF-8", "LC_ALL=C", "LC_TIME=de_DE", "PATH=/usr/bin:/bin",
				"TMPDIR=/tmp", "TOOLCALL_CALL_ID=c1", "TOOLCALL_TOOL=weather", "TZ=UTC", "WEATHER_KEY=w123", "ZED=1"},
		},
		{
			name:  "our own names cannot be forged",
			tool:  &Tool{Name: "t", Env: []string{"TOOLCALL_TOOL"}},
			extra: []string{"TOOLCALL_CALL_ID"},
			want: []string{"HOME=/root", "LANG=en_US.UTF-8", "LC_ALL=C", "LC_TIME=de_DE", "PATH=/usr/bin:/bin",
				"TMPDIR=/tmp", "TOOLCALL_CALL_ID=c1", "TOOLCALL_TOOL=t", "TZ=UTC"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Environ(parent, tt.tool, "c1", tt.extra)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Environ (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunProcessFeedsStdinAndReportsTheExit(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "echo", "cat\necho \"to stderr\" >&2\nexit 0\n")
	in := []byte(`{"city":"Paris"}` + "\n")
	r := runProcess(context.Background(), processSpec{Path: tool, Stdin: in, Timeout: 10 * time.Second})
	if r.StartErr != nil || r.ExitCode != 0 || r.Signal != "" || r.TimedOut || r.Interrupted || r.Truncated {
		t.Fatalf("got %+v, want a clean run", r)
	}
	if !bytes.Equal(r.Stdout, in) || r.TotalBytes != int64(len(in)) || string(r.StderrTail) != "to stderr\n" {
		t.Errorf("stdout %q (%d bytes), stderr %q; want the input echoed and the stderr line", r.Stdout, r.TotalBytes, r.StderrTail)
	}
	if r.Duration <= 0 {
		t.Errorf("duration %v", r.Duration)
	}
}

func TestRunProcessWorkdirAndRelativePath(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "pwd", "pwd\n")
	work := t.TempDir()
	r := runProcess(context.Background(), processSpec{Path: tool, Dir: work, Timeout: 10 * time.Second})
	if got := strings.TrimSpace(string(r.Stdout)); got != work {
		t.Errorf("tool ran in %q, want %q", got, work)
	}

	// A relative path means relative to where we are, not to Dir.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, tool)
	if err != nil {
		t.Skip(err)
	}
	r = runProcess(context.Background(), processSpec{Path: rel, Dir: work, Timeout: 10 * time.Second})
	if r.StartErr != nil || strings.TrimSpace(string(r.Stdout)) != work {
		t.Errorf("relative path: startErr=%v stdout=%q", r.StartErr, r.Stdout)
	}

	r = runProcess(context.Background(), processSpec{Path: tool, Dir: filepath.Join(work, "missing"), Timeout: 10 * time.Second})
	if r.StartErr == nil {
		t.Error("a missing working directory was not reported")
	}
}

func TestRunProcessNilEnvIsEmpty(t *testing.T) {
	t.Setenv("TOOLCALL_TEST_SECRET_TOKEN", "must-not-leak-0451")
	tool := writeTestTool(t, "env", "exec env\n")
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 10 * time.Second})
	if bytes.Contains(r.Stdout, []byte("must-not-leak-0451")) || bytes.Contains(r.Stdout, []byte("PATH=")) {
		t.Errorf("with a nil Env the tool saw our environment:\n%s", r.Stdout)
	}
}

func TestRunProcessCancelKillsTheGroup(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "sleeper", "sleep 30 &\necho $!\nwait\n")
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel once the tool has started its child and said so, not after
	// a fixed time that a loaded machine may not be done starting it in.
	started := &lineSignal{seen: make(chan struct{})}
	go func() {
		<-started.seen
		cancel()
	}()
	start := time.Now()
	r := runProcess(ctx, processSpec{Path: tool, Timeout: 30 * time.Second, Grace: 200 * time.Millisecond, SaveTo: started})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("cancelled run took %v", elapsed)
	}
	if !r.Interrupted || r.TimedOut {
		t.Errorf("interrupted=%v timedOut=%v, want interrupted", r.Interrupted, r.TimedOut)
	}
	assertGone(t, pidsIn(t, r.Stdout)...)

	r = runProcess(ctx, processSpec{Path: tool, Timeout: 30 * time.Second})
	if !r.Interrupted || r.StartErr != nil || len(r.Stdout) != 0 {
		t.Errorf("with ctx already done: %+v, want interrupted and nothing run", r)
	}
}

// lineSignal closes seen when the first newline is written to it.
type lineSignal struct {
	once sync.Once
	seen chan struct{}
}

func (l *lineSignal) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') >= 0 {
		l.once.Do(func() { close(l.seen) })
	}
	return len(p), nil
}

func TestRunProcessReportsTheSignal(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "suicide", "kill -USR1 $$\nsleep 5\n")
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 10 * time.Second})
	if r.Signal != "SIGUSR1" || r.ExitCode != -1 || r.TimedOut {
		t.Errorf("signal=%q exit=%d timedOut=%v, want SIGUSR1 and -1", r.Signal, r.ExitCode, r.TimedOut)
	}
}

// syncBuffer is a bytes.Buffer safe for the reader goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func TestRunProcessSavesAndTeesWhatItCuts(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "counter", "seq 1 20000\nseq 1 6000 >&2\n")
	var saved, tee syncBuffer
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 10 * time.Second, MaxOutput: 1000, SaveTo: &saved, StderrTo: &tee})
	out, err := exec.Command("seq", "1", "20000").Output()
	if err != nil {
		t.Skip("no seq(1):", err)
	}
	if !bytes.Equal(saved.b.Bytes(), out) {
		t.Errorf("saved %d bytes, want the whole %d", saved.b.Len(), len(out))
	}
	if !r.Truncated || r.TotalBytes != int64(len(out)) || !bytes.HasPrefix(r.Stdout, []byte("1\n2\n")) || !bytes.HasSuffix(r.Stdout, []byte("19999\n20000\n")) {
		t.Errorf("truncated=%v total=%d stdout %q...%q", r.Truncated, r.TotalBytes, r.Stdout[:10], r.Stdout[len(r.Stdout)-12:])
	}
	if !bytes.Contains(r.Stdout, []byte("bytes cut here")) {
		t.Errorf("no cut marker in %q", r.Stdout)
	}
	errOut, _ := exec.Command("seq", "1", "6000").Output()
	if !bytes.Equal(tee.b.Bytes(), errOut) || !bytes.HasSuffix(errOut, r.StderrTail) || len(r.StderrTail) != stderrKeep+stderrSlack {
		t.Errorf("tee got %d bytes (want %d), tail %d bytes", tee.b.Len(), len(errOut), len(r.StderrTail))
	}
}

// The two benchmarks run the same trivial tool, so that runProcess's cost
// per call beyond a bare fork/exec reads off their difference.

func BenchmarkRunProcess(b *testing.B) {
	tool := writeTestTool(b, "ok", "echo ok\n")
	spec := processSpec{Path: tool, Stdin: []byte("{}\n"), Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second}
	for b.Loop() {
		if r := runProcess(context.Background(), spec); r.ExitCode != 0 || string(r.Stdout) != "ok\n" {
			b.Fatalf("%+v", r)
		}
	}
}

func BenchmarkBareExec(b *testing.B) {
	tool := writeTestTool(b, "ok", "echo ok\n")
	for b.Loop() {
		if err := exec.Command(tool).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRunProcessConcurrentRunsKeepTheirOwnStreams(t *testing.T) {
	t.Parallel()
	// Runs started side by side, one of them long: a pipe end leaking
	// into another run's child would mix their outputs.
	fast := writeTestTool(t, "fast", "cat\n")
	slow := writeTestTool(t, "slow", "cat\nsleep 30\n")
	ctx, cancel := context.WithCancel(context.Background())
	slowDone := make(chan processResult)
	go func() {
		slowDone <- runProcess(ctx, processSpec{Path: slow, Stdin: []byte("slow\n"), Timeout: 20 * time.Second, Grace: 100 * time.Millisecond})
	}()
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			in := []byte(strings.Repeat(string(rune('a'+i%26)), 1000+i) + "\n")
			r := runProcess(context.Background(), processSpec{Path: fast, Stdin: in, Timeout: 10 * time.Second})
			if r.ExitCode != 0 || !bytes.Equal(r.Stdout, in) {
				t.Errorf("run %d: exit %d, stdout %d bytes, want its own %d bytes back", i, r.ExitCode, len(r.Stdout), len(in))
			}
		})
	}
	wg.Wait()
	cancel()
	if r := <-slowDone; !r.Interrupted || string(r.Stdout) != "slow\n" {
		t.Errorf("slow run: interrupted=%v stdout=%q, want interrupted with its own output", r.Interrupted, r.Stdout)
	}
}
