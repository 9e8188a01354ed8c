package tools

import (
	"syscall"
	"unsafe"
)

func init() { peekExit = waitidNoReap }

// waitidNoReap waits for pid to exit and leaves it a zombie (WNOWAIT), so
// that its pid, which is also its group's id, stays taken until we have
// killed the rest of the group and reaped it ourselves.
func waitidNoReap(pid int) bool {
	const pPID = 1     // P_PID: wait for the one process named by id
	var info [128]byte // siginfo_t; we only need the wait, not its contents
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch e {
		case 0:
			return true
		case syscall.EINTR:
			continue
		default:
			return false
		}
	}
}
