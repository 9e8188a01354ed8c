package launch

import (
	"os"
	"strconv"
)

// execFile returns the path under which the child, once it holds exe as
// its descriptor fd, executes exactly that open file: /proc/self/fd/N
// names the child's own descriptor, so the kernel runs the inode the
// caller opened and checked, even if the name it was opened by now
// points at another file (a rename race) — what execveat(2) with
// AT_EMPTY_PATH does, which os.StartProcess cannot call. A script's
// interpreter is handed the same name and reads the same file through
// the descriptor, which stays open in the child (it is not close-on-exec
// there); the script therefore sees its $0 as /proc/self/fd/N, and
// finds files beside it through the resolved name (readlink -f,
// os.path.realpath). ok is false where /proc is not mounted: the caller
// then runs the file by its name, and a swap between its check and the
// exec goes unseen.
func execFile(exe *os.File, fd int) (path string, ok bool) {
	ours, err := os.Stat("/proc/self/fd/" + strconv.FormatUint(uint64(exe.Fd()), 10))
	if err != nil {
		return "", false
	}
	if st, err := exe.Stat(); err != nil || !os.SameFile(st, ours) {
		return "", false
	}
	return "/proc/self/fd/" + strconv.Itoa(fd), true
}
