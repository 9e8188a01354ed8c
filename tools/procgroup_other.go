//go:build !unix

package tools

import "os/exec"

// KillGroupOnCancel kills only cmd itself where process groups are not
// available; see the unix version.
func KillGroupOnCancel(cmd *exec.Cmd) {}
