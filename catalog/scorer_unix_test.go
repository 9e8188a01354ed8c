//go:build unix

package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScorerTimeoutKillsChildren checks that a scorer that times out takes
// its children with it: a sleep started by a scorer script must not run on.
func TestScorerTimeoutKillsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := scorerScript(t, "sleep 30 & echo $! > "+pidFile+"; wait")
	c := New(rankTools())
	_, err := c.Select(context.Background(), Selection{
		Query: "weather", Scorer: []string{"sh", script}, ScorerTimeout: 300 * time.Millisecond,
		Warn: func(string) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The child is killed, then reaped by whatever adopted it; a container
	// whose first process does not reap leaves a zombie, which is dead too.
	deadline := time.Now().Add(5 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the scorer's child %d still runs after the scorer timed out", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running reports whether the process pid exists and is not a zombie.
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	// pid (comm) state ...: the state follows the last ')'.
	rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
	return !strings.HasPrefix(strings.TrimSpace(string(rest)), "Z")
}
