//go:build unix

package launch

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// groupAttr puts the child in a new process group whose id is its pid, so
// that one signal reaches everything it starts.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to the whole
// group of g's leader.
func (g *group) signalGroup(kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	// The negative pid names the group. Where the child has not yet made
	// its group (fork without vfork), fall back to the leader itself;
	// os.Process refuses to signal a pid it has already reaped.
	if err := syscall.Kill(-g.proc.Pid, sig); errors.Is(err, syscall.ESRCH) {
		g.proc.Signal(sig)
	}
}

// exitSignal names the signal that ended a process, if one did.
func exitSignal(st *os.ProcessState) string {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	return signalName(ws.Signal())
}

// signalName is the conventional name of sig, "SIGKILL" rather than the
// "killed" of Signal.String, since that is what people search for.
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGTRAP:
		return "SIGTRAP"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGALRM:
		return "SIGALRM"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGXCPU:
		return "SIGXCPU"
	case syscall.SIGXFSZ:
		return "SIGXFSZ"
	case syscall.SIGSYS:
		return "SIGSYS"
	}
	return "signal " + strconv.Itoa(int(sig))
}
