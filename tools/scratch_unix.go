//go:build unix

package tools

import (
	"os"
	"syscall"
)

// Open flags for files in the scratch directory: never through a
// symlink, and never waiting on a FIFO.
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)

// writtenByUs reports whether a scratch file could be one finishScratch
// wrote: owned by this user and with a single link (a hard link to a file
// elsewhere has two).
func writtenByUs(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1 && int(st.Uid) == os.Geteuid()
}
