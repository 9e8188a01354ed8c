//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecSignals sends SIGINT and SIGTERM to a toolcall exec whose tool
// hangs: the tool must be killed, its call answered with kind
// interrupted, and toolcall must exit 130 or 143.
func TestExecSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildToolcall(t, t.TempDir())
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir, pidFile := hangingTool(t)
			cmd := exec.Command(bin, "exec", "--tools", dir)
			cmd.Stdin = strings.NewReader(`{"type":"tool_call","id":"call_1","name":"hang","arguments":{}}` + "\n")
			stdout, stderr := interrupt(t, cmd, pidFile, tc.sig)
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", got, tc.code, stderr)
			}
			if !strings.Contains(stdout, `"kind":"interrupted"`) {
				t.Errorf("no interrupted observation:\n%s", stdout)
			}
		})
	}
}

// An interrupted exec answers every call it handled, and says on stderr
// how many of the calls it had read it left unread: together, all of them.
func TestExecSignalSaysWhatWasLeftUnread(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildToolcall(t, t.TempDir())
	dir, pidFile := hangingTool(t)
	var in strings.Builder
	for i := range 4 {
		fmt.Fprintf(&in, `{"type":"tool_call","id":"call_%d","name":"hang","arguments":{}}`+"\n", i+1)
	}
	cmd := exec.Command(bin, "exec", "--tools", dir, "--parallel", "1")
	cmd.Stdin = strings.NewReader(in.String())
	stdout, stderr := interrupt(t, cmd, pidFile, syscall.SIGINT)
	answered := strings.Count(stdout, `"kind":"interrupted"`)
	unread := 0
	if m := regexp.MustCompile(`; (\d+) calls? left unread`).FindStringSubmatch(stderr); m != nil {
		unread, _ = strconv.Atoi(m[1])
	}
	if answered+unread != 4 || answered == 0 {
		t.Errorf("%d calls answered, %d said to be left unread; want the 4 calls, the running one answered\nstdout:\n%s\nstderr:\n%s", answered, unread, stdout, stderr)
	}
	if strings.Contains(stderr, "was not read") {
		t.Errorf("stderr says input was not read, though it was read to its end:\n%s", stderr)
	}
}

// TestRunSignals interrupts toolcall run while a tool hangs: the tool is
// killed, the transcript ends with stop interrupted, and the exit code is
// 130.
func TestRunSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildToolcall(t, t.TempDir())
	dir, pidFile := hangingTool(t)
	model := filepath.Join(t.TempDir(), "model")
	writeFile(t, model, "#!/bin/sh\ncat > /dev/null\necho '{\"type\":\"tool_call\",\"name\":\"hang\",\"arguments\":{}}'\n", 0o755)

	cmd := exec.Command(bin, "run", "--tools", dir, "--model-cmd", model, "Go")
	stdout, stderr := interrupt(t, cmd, pidFile, syscall.SIGINT)
	if got := cmd.ProcessState.ExitCode(); got != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", got, stderr)
	}
	for _, want := range []string{`"kind":"interrupted"`, `{"type":"stop","reason":"interrupted","iterations":1}`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %s in the transcript:\n%s", want, stdout)
		}
	}
}

// An interrupted run says how many calls of the turn it left unread; with
// those it answered, that is every call the model made.
func TestRunSignalSaysWhatWasLeftUnread(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildToolcall(t, t.TempDir())
	dir, pidFile := hangingTool(t)
	model := filepath.Join(t.TempDir(), "model")
	call := `{"type":"tool_call","name":"hang","arguments":{"n":%d}}`
	writeFile(t, model, "#!/bin/sh\ncat > /dev/null\n"+fmt.Sprintf("printf '%s\\n%s\\n%s\\n'\n", fmt.Sprintf(call, 1), fmt.Sprintf(call, 2), fmt.Sprintf(call, 3)), 0o755)

	cmd := exec.Command(bin, "run", "--tools", dir, "--model-cmd", model, "--parallel", "1", "Go")
	stdout, stderr := interrupt(t, cmd, pidFile, syscall.SIGINT)
	answered := strings.Count(stdout, `"kind":"interrupted"`)
	unread := 0
	if m := regexp.MustCompile(`; (\d+) calls? of the last turn left unread`).FindStringSubmatch(stderr); m != nil {
		unread, _ = strconv.Atoi(m[1])
	}
	if answered+unread != 3 || answered == 0 {
		t.Errorf("%d calls answered, %d said to be left unread; want the 3 calls\nstdout:\n%s\nstderr:\n%s", answered, unread, stdout, stderr)
	}
}

// hangingTool writes a tools directory holding "hang", which writes its
// pid to pidFile and sleeps.
func hangingTool(t *testing.T) (dir, pidFile string) {
	t.Helper()
	dir = t.TempDir()
	pidFile = filepath.Join(dir, "pid")
	writeFile(t, filepath.Join(dir, "hang.json"), `{"description":"Hangs.","input_schema":{"type":"object"}}`, 0o644)
	writeFile(t, filepath.Join(dir, "hang"), "#!/bin/sh\necho $$ > "+pidFile+"\nexec sleep 60\n", 0o755)
	return dir, pidFile
}

// interrupt starts cmd, sends it sig once the hanging tool runs, waits for
// it to end, and checks that the tool is gone too.
func interrupt(t *testing.T, cmd *exec.Cmd, pidFile string, sig syscall.Signal) (stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitForPID(t, pidFile)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("toolcall did not stop after %v", sig)
	}
	if syscall.Kill(pid, 0) == nil && !zombie(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the tool (pid %d) still runs", pid)
	}
	return out.String(), errs.String()
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	syscall.ForkLock.RLock() // no fork may inherit it open: "text file busy"
	err := os.WriteFile(path, []byte(data), mode)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}

// waitForPID waits for the tool to write its pid.
func waitForPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(file); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the tool never started")
	return 0
}

// zombie reports whether pid has exited but not been reaped yet.
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
	return strings.HasPrefix(strings.TrimSpace(rest), "Z")
}
