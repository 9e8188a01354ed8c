//go:build unix

package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A sidecar is read only when it is a regular file of at most 1 MiB: a
// FIFO named *.json (which would block the load for ever) and an oversized
// one are errors naming them, beside a good tool that still loads.
func TestLoadReadsOnlyRegularSidecarsOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) {
		t.Helper()
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("fine.json", `{"description": "fine", "input_schema": {"type": "object"}}`, 0o644)
	write("fine", "#!/bin/sh\n", 0o755)
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("cannot make a FIFO:", err)
	}
	big := `{"description": "` + strings.Repeat("x", maxSidecar) + `", "input_schema": {"type": "object"}}`
	write("big.json", big, 0o644)

	done := make(chan error, 1)
	go func() {
		_, err := Load([]string{dir}, LoadOptions{})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Load did not return: it waits on the FIFO")
	}
	if err == nil {
		t.Fatal("loaded a FIFO and an oversized sidecar without an error")
	}
	msg := err.Error()
	if !strings.Contains(msg, fifo+": ") || !strings.Contains(msg, "not a regular file (a FIFO)") {
		t.Errorf("the FIFO is not named as such:\n%s", msg)
	}
	if !strings.Contains(msg, filepath.Join(dir, "big.json")+": ") || !strings.Contains(msg, "more than the 1024 KiB a sidecar may have") {
		t.Errorf("the oversized sidecar is not named as such:\n%s", msg)
	}
}
