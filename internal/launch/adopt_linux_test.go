package launch

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An orphan that left its group is adopted and killed, but only once no
// run is live: a run going on beside the one that left it may be using it.
// Not parallel: it needs to know when no other run is live.
func TestAdoptedOrphansDieWhenTheLastRunEnds(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	if !AdoptOrphans() {
		t.Skip("cannot become a child subreaper here")
	}
	env := []string{"PATH=/usr/bin:/bin"}

	// A run that stays live until cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	ready := &readySignal{ready: make(chan struct{})}
	longDone := make(chan Result)
	go func() {
		longDone <- Run(ctx, Spec{Path: script(t, "echo ready\nexec sleep 30"), Env: env, Stdout: ready, Grace: 100 * time.Millisecond})
	}()
	<-ready.ready

	var out lockedBuffer
	r := Run(context.Background(), Spec{Path: script(t, "setsid sleep 30 >/dev/null 2>&1 &\necho $!"), Env: env, Stdout: &out})
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if r.ExitCode != 0 || err != nil {
		t.Fatalf("result %+v, stdout %q", r, out.String())
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if !isChild(pid) {
		t.Fatalf("process %d was not adopted", pid)
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("the orphan %d was killed while another run was live", pid)
	}

	cancel()
	<-longDone
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the orphan %d outlived the last run", pid)
	}
}

// isChild reports whether pid's parent is this process.
func isChild(pid int) bool {
	for _, c := range ourChildren() {
		if c == pid {
			return true
		}
	}
	return false
}
