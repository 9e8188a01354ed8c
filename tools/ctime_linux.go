package tools

import (
	"os"
	"syscall"
	"time"
)

// changeTime is fi's status-change time (st_ctim), which the kernel sets
// on every change to the inode and no call can set back.
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return time.Time{}
}
