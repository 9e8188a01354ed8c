//go:build !linux

package tools

import (
	"os"
	"time"
)

// changeTime: without st_ctim the size, the mtime and the hash are what
// tell a rewritten executable.
func changeTime(os.FileInfo) time.Time { return time.Time{} }
