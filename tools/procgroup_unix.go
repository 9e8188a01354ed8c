//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// KillGroupOnCancel runs cmd in a process group of its own and makes the
// cancellation of its context kill the whole group, so that a command's
// children (a shell script's sleep, a Python worker) die with it instead of
// running on and holding its output open.
func KillGroupOnCancel(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error {
		// The negative pid names the group, whose id is the leader's pid.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
