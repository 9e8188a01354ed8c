//go:build !unix

package tools

import "os"

// Elsewhere the open cannot refuse links by itself; readSaved still
// checks the name and the content.
const (
	noFollow = 0
	nonBlock = 0
)

func writtenByUs(info os.FileInfo) bool { return info.Mode()&os.ModeSymlink == 0 }
