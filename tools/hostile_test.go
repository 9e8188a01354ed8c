//go:build unix

package tools

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tools that misbehave in every way we know, run through runProcess. Each
// must end within its limits, leave nothing running and tell the truth
// about what happened.

// writeTestTool writes an executable sh script into a new temporary
// directory and returns its path. It holds syscall.ForkLock while the file
// is open for writing: otherwise a test forking at the same moment carries
// the writable descriptor into its child, and running the script fails
// with "text file busy".
func writeTestTool(t testing.TB, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// pidsIn reads the process ids a test tool printed, one a line.
func pidsIn(t *testing.T, out []byte) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("tool printed %q, want process ids", out)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		t.Fatal("tool printed no process id")
	}
	return pids
}

// assertGone fails unless every process in pids is dead (a zombie counts as
// dead: it runs nothing). SIGKILL takes effect asynchronously, so it allows
// a few seconds.
func assertGone(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for !processGone(pid) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("process %d is still running after runProcess returned", pid)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // no /proc: only ESRCH says it is gone
	}
	// The state follows the command name, which is in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

func TestHostileToolThatHangs(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "hang", "sleep 30 &\necho $!\nwait\n")
	start := time.Now()
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("runProcess took %v with a 200ms timeout", elapsed)
	}
	if !r.TimedOut || r.Interrupted || r.ExitCode != -1 || r.Signal != "SIGTERM" {
		t.Errorf("timedOut=%v interrupted=%v exit=%d signal=%q, want a timeout that SIGTERMed the tool",
			r.TimedOut, r.Interrupted, r.ExitCode, r.Signal)
	}
	assertGone(t, pidsIn(t, r.Stdout)...)
}

func TestHostileGrandchildIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	// The subshell ignores TERM and passes that on to sleep through exec;
	// the script itself dies of the TERM.
	tool := writeTestTool(t, "stubborn", "(trap '' TERM; exec sleep 30) &\necho $!\nwait\n")
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 200 * time.Millisecond, Grace: 300 * time.Millisecond})
	if !r.TimedOut || r.Signal != "SIGTERM" {
		t.Errorf("timedOut=%v signal=%q, want a timeout and the leader dead of SIGTERM", r.TimedOut, r.Signal)
	}
	assertGone(t, pidsIn(t, r.Stdout)...)
}

func TestHostileToolWrites1GB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GB through a pipe")
	}
	const size = 1_000_000_000
	tool := writeTestTool(t, "flood", "exec head -c "+strconv.Itoa(size)+" /dev/zero\n")

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 2 * time.Minute, MaxOutput: 16 << 10})
	close(stop)
	<-sampled

	if r.ExitCode != 0 || r.TimedOut || r.TotalBytes != size || !r.Truncated {
		t.Fatalf("exit=%d timedOut=%v total=%d truncated=%v, want all %d bytes read and cut", r.ExitCode, r.TimedOut, r.TotalBytes, r.Truncated, size)
	}
	if len(r.Head) != 8<<10 || len(r.Tail) != 8<<10 || len(r.Stdout) > 17<<10 {
		t.Errorf("kept head %d, tail %d, stdout %d bytes; want 8 KiB, 8 KiB and little more than 16 KiB", len(r.Head), len(r.Tail), len(r.Stdout))
	}
	t.Logf("heap in use: %.1f MB before, %.1f MB at most while reading 1 GB in %v", float64(base)/1e6, float64(peak)/1e6, r.Duration)
	if peak > base+16<<20 {
		t.Errorf("heap grew from %d to %d bytes while the tool wrote 1 GB; want it to stay within 16 MiB of where it started", base, peak)
	}
}

func TestHostileToolWritesInvalidUTF8(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "binary", `printf 'ok \377\376 \300\n'`+"\n")
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 10 * time.Second})
	if want := "ok \xff\xfe \xc0\n"; string(r.Stdout) != want || r.ExitCode != 0 {
		t.Errorf("stdout %q exit %d, want %q byte for byte (making it valid is the caller's job)", r.Stdout, r.ExitCode, want)
	}
}

func TestHostileToolPrintsItsEnvironment(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "env", "exec env\n")
	secrets := []string{
		"OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234",
		"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"DATABASE_URL=postgres://u:hunter22@db/x",
		"SSH_AUTH_SOCK=/tmp/ssh-agent.sock",
	}
	parent := append([]string{"PATH=/usr/bin:/bin", "HOME=/home/u", "LC_ALL=C.UTF-8", "WEATHER_UNITS=metric"}, secrets...)
	tl := &Tool{Name: "env", Env: []string{"WEATHER_UNITS"}}
	r := runProcess(context.Background(), processSpec{Path: tool, Env: Environ(parent, tl, "call_7", nil), Timeout: 10 * time.Second})
	got := strings.Split(strings.TrimSpace(string(r.Stdout)), "\n")
	want := map[string]bool{
		"PATH=/usr/bin:/bin": true, "HOME=/home/u": true, "LC_ALL=C.UTF-8": true, "WEATHER_UNITS=metric": true,
		"TOOLCALL_TOOL=env": true, "TOOLCALL_CALL_ID=call_7": true,
	}
	for _, kv := range got {
		if name, _, _ := strings.Cut(kv, "="); name == "PWD" || name == "SHLVL" || name == "_" {
			continue // set by the shell itself (bash does)
		}
		if !want[kv] {
			t.Errorf("the tool saw %q, which it was not given", kv)
		}
		delete(want, kv)
	}
	for kv := range want {
		t.Errorf("the tool did not see %q", kv)
	}
	for _, s := range secrets {
		_, v, _ := strings.Cut(s, "=")
		if bytes.Contains(r.Stdout, []byte(v)) {
			t.Errorf("secret %q reached the tool", s)
		}
	}
}

func TestHostileToolClosesStdoutAndKeepsRunning(t *testing.T) {
	t.Parallel()
	// Its stdout reaches end of file at once, but the tool is still at
	// work: it is the tool's exit that ends a run, so the timeout does.
	tool := writeTestTool(t, "closer", "echo before\nexec >&-\nsleep 30\n")
	start := time.Now()
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("runProcess took %v with a 300ms timeout", elapsed)
	}
	if !r.TimedOut || string(r.Stdout) != "before\n" {
		t.Errorf("timedOut=%v stdout=%q, want a timeout reporting the output written before stdout was closed", r.TimedOut, r.Stdout)
	}
}

func TestHostileToolExits3WithLargeStderr(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "loud", "yes 'something went wrong somewhere' | head -c 1048576 >&2\necho 'the last line' >&2\necho partial\nexit 3\n")
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 10 * time.Second})
	if r.ExitCode != 3 || r.Signal != "" || r.TimedOut {
		t.Errorf("exit=%d signal=%q timedOut=%v, want exit status 3", r.ExitCode, r.Signal, r.TimedOut)
	}
	// The 4 KiB shown and the slack before them, where a secret cut by the
	// shown window is seen whole (redact.Redactor.Tail).
	if len(r.StderrTail) != stderrKeep+stderrSlack || !bytes.HasSuffix(r.StderrTail, []byte("somewhere\nsthe last line\n")) {
		t.Errorf("stderr tail is %d bytes ending %q, want the last %d bytes", len(r.StderrTail), r.StderrTail[max(0, len(r.StderrTail)-40):], stderrKeep+stderrSlack)
	}
	if string(r.Stdout) != "partial\n" {
		t.Errorf("stdout = %q, want what the tool printed before failing", r.Stdout)
	}
}

func TestHostileToolIsNotExecutable(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "plain", "echo never\n")
	if err := os.Chmod(tool, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 10 * time.Second})
	if !errors.Is(r.StartErr, fs.ErrPermission) || !strings.Contains(r.StartErr.Error(), tool) {
		t.Errorf("StartErr = %v, want a permission error naming %s", r.StartErr, tool)
	}
	if r.ExitCode != -1 || len(r.Stdout) != 0 {
		t.Errorf("exit=%d stdout=%q for a tool that never ran", r.ExitCode, r.Stdout)
	}
}

func TestHostileToolDeletedBeforeTheRun(t *testing.T) {
	t.Parallel()
	tool := writeTestTool(t, "gone", "echo never\n")
	if err := os.Remove(tool); err != nil {
		t.Fatal(err)
	}
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 10 * time.Second})
	if !errors.Is(r.StartErr, fs.ErrNotExist) || !strings.Contains(r.StartErr.Error(), tool) {
		t.Errorf("StartErr = %v, want a not-exist error naming %s", r.StartErr, tool)
	}
}

func TestHostileToolReadsNoStdin(t *testing.T) {
	t.Parallel()
	// 1 MB is far more than a pipe holds: the write blocks until the tool
	// exits, and then fails, which must not matter.
	input := bytes.Repeat([]byte("x"), 1<<20)
	for _, body := range []string{"echo done\n", "sleep 0.1\necho done\n"} {
		tool := writeTestTool(t, "deaf", body)
		start := time.Now()
		r := runProcess(context.Background(), processSpec{Path: tool, Stdin: input, Timeout: 10 * time.Second})
		if r.ExitCode != 0 || r.TimedOut || r.StartErr != nil || string(r.Stdout) != "done\n" {
			t.Errorf("%q: exit=%d timedOut=%v startErr=%v stdout=%q, want a clean run", body, r.ExitCode, r.TimedOut, r.StartErr, r.Stdout)
		}
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("%q: took %v", body, elapsed)
		}
	}
}

func TestHostileToolLeavesABackgroundProcessHoldingStdout(t *testing.T) {
	t.Parallel()
	// The script exits at once; its child keeps the stdout pipe open. We
	// must neither wait for the child nor let it live on.
	tool := writeTestTool(t, "leaver", "sleep 30 &\necho $!\n")
	start := time.Now()
	r := runProcess(context.Background(), processSpec{Path: tool, Timeout: 20 * time.Second})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("runProcess took %v: it waited for the background process", elapsed)
	}
	if r.ExitCode != 0 || r.TimedOut {
		t.Errorf("exit=%d timedOut=%v, want a clean exit", r.ExitCode, r.TimedOut)
	}
	assertGone(t, pidsIn(t, r.Stdout)...)
}

func TestHostileToolEscapesItsGroup(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	// A process in a session of its own is out of reach of the group
	// kill; holding our stdout and stdin (fd 3 gets past the /dev/null an
	// asynchronous list is given), it may delay us by the drain time, no
	// more.
	// The script waits until its child has left the group (the child
	// writes its pid after setsid), or the group kill would beat it.
	tool := writeTestTool(t, "escaper", `exec 3<&0
/usr/bin/setsid sh -c 'echo $$ > "$0.pid"; exec sleep 30' "$0" <&3 &
while [ ! -s "$0.pid" ]; do sleep 0.01; done
cat "$0.pid"
`)
	start := time.Now()
	r := runProcess(context.Background(), processSpec{Path: tool, Stdin: bytes.Repeat([]byte("x"), 1<<20), Timeout: 20 * time.Second})
	elapsed := time.Since(start)
	for _, pid := range pidsIn(t, r.Stdout) {
		if processGone(pid) {
			t.Errorf("process %d did not escape the group; the test tests nothing", pid)
		}
		syscall.Kill(pid, syscall.SIGKILL) // it is beyond runProcess's reach by design
	}
	if elapsed > 5*time.Second {
		t.Errorf("runProcess took %v: it waited for a process outside the group", elapsed)
	}
	if r.ExitCode != 0 || r.TimedOut {
		t.Errorf("exit=%d timedOut=%v, want a clean run", r.ExitCode, r.TimedOut)
	}
}
