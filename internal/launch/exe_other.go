//go:build !linux

package launch

import "os"

// execFile: only Linux names a descriptor as a path that execve accepts
// (/proc/self/fd/N), and os.StartProcess has no fexecve. Elsewhere the
// file is run by its name, after the caller's check: a file swapped in
// between that check and the exec runs instead, unseen. docs/security.md (Trust
// model) states this weaker guarantee.
func execFile(exe *os.File, fd int) (path string, ok bool) { return "", false }
