//go:build !unix

package launch

import (
	"os"
	"syscall"
)

// Without process groups only the child itself can be stopped; processes
// it starts may outlive it.
func groupAttr() *syscall.SysProcAttr { return nil }

func (g *group) signalGroup(kill bool) { g.proc.Kill() }

func exitSignal(st *os.ProcessState) string { return "" }
