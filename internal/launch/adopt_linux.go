package launch

import (
	"bytes"
	"os"
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

// ourChildren lists this process's children that an orphan sweep is
// after. The kernel re-parents an orphan to the first live thread of the
// subreaper, which is the main thread (Go never ends it), and publishes
// each thread's children in /proc/self/task/TID/children: reading the main
// thread's file costs microseconds, where listing every thread or every
// process costs milliseconds. Children that other threads forked are the
// leaders of runs, and a sweep happens only when none is live. Where the
// kernel does not publish the file, every process's parent is read.
func ourChildren() []int {
	pid := os.Getpid()
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		return childrenByParent(pid)
	}
	var pids []int
	for _, field := range bytes.Fields(b) {
		if child, err := strconv.Atoi(string(field)); err == nil {
			pids = append(pids, child)
		}
	}
	return pids
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
