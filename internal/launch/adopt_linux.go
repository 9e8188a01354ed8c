package launch

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// sweepWait bounds a sweep: a SIGKILLed process dies at once unless it is
// stuck in the kernel, and then it is left for the next sweep.
const sweepWait = time.Second

func becomeSubreaper() bool {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
}

// sweepOrphans kills and reaps every child of ours. Killing one may
// re-parent its own children to us, so it looks again until none is left.
func sweepOrphans() {
	deadline := time.Now().Add(sweepWait)
	for range 64 {
		pids := ourChildren()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			unix.Kill(pid, unix.SIGKILL)
		}
		for _, pid := range pids {
			if !reapBy(pid, deadline) {
				return
			}
		}
	}
}

// reapBy waits for pid until deadline; false when it is still there.
func reapBy(pid int, deadline time.Time) bool {
	pause := 100 * time.Microsecond
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if got == pid || (err != nil && err != unix.EINTR) {
			return true // reaped, or not ours to reap (ECHILD)
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}

// ourChildren lists this process's children. The kernel keeps a list per
// thread (/proc/self/task/*/children); where it does not publish it, every
// process's parent is read instead.
func ourChildren() []int {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var pids []int
	listed := false
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		listed = true
		for _, field := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(field)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if listed {
		return pids
	}
	return childrenByParent(os.Getpid())
}

// childrenByParent scans /proc for the processes whose parent is ppid.
func childrenByParent(ppid int) []int {
	dirs, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold anything, so read
		// after its last parenthesis.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(stat[i+1:])
		if len(fields) > 1 && string(fields[1]) == strconv.Itoa(ppid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func init() { peekExit = waitidNoReap }

// waitidNoReap waits for pid to exit and leaves it a zombie (WNOWAIT), so
// that its pid, which is also its group's id, stays taken until we have
// killed the rest of the group and reaped it ourselves.
func waitidNoReap(pid int) bool {
	var info unix.Siginfo // we only need the wait, not its contents
	for {
		switch err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err {
		case nil:
			return true
		case unix.EINTR:
			continue
		default:
			return false
		}
	}
}
