//go:build !unix

package mcpserve

import "os"

// fileOwner: this system has no user ids in a file's status (on Windows,
// access is the ACL's), so nothing is checked.
func fileOwner(os.FileInfo) (int, bool) { return 0, false }
