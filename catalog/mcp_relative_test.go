//go:build unix

package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The attack: a sidecar says "command": ["./srv"], and toolcall is run
// from a directory where someone else put a program named srv. The
// command must be the srv beside the sidecar, as a tool's "command" is.
func TestHostileRelativeServerCommandIsBesideTheSidecar(t *testing.T) {
	dir := t.TempDir()
	syscall.ForkLock.RLock()
	err := os.WriteFile(filepath.Join(dir, "srv"), []byte("#!/bin/sh\necho the server beside the sidecar >&2\nexit 1\n"), 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "srv.json"), []byte(`{"mcp_server":{"command":["./srv"],"timeout":"5s"}}`), 0o644)
	var warns []string
	c, err := Load([]string{dir}, LoadOptions{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got := strings.Join(warns, "\n"); !strings.Contains(got, "the server beside the sidecar") || !strings.Contains(got, filepath.Join(dir, "srv")) {
		t.Errorf("the server run was not the one beside the sidecar:\n%s", got)
	}
}
