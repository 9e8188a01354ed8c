package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func pipeBuf(t *testing.T, f *os.File) int {
	t.Helper()
	n, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// growPipe grows a default pipe to pipeSize, from either end; leaves a
// larger one as it is; and does nothing to what is not a pipe.
func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if n := pipeBuf(t, r); n >= pipeSize {
		t.Skipf("pipes here hold %d bytes already", n)
	}
	growPipe(w)
	if n := pipeBuf(t, r); n != pipeSize {
		t.Fatalf("after growPipe on the write end: %d bytes, want %d", n, pipeSize)
	}

	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	defer w2.Close()
	growPipe(r2)
	if n := pipeBuf(t, w2); n != pipeSize {
		t.Fatalf("after growPipe on the read end: %d bytes, want %d", n, pipeSize)
	}
	if _, err := unix.FcntlInt(w2.Fd(), unix.F_SETPIPE_SZ, 2*pipeSize); err != nil {
		t.Skip("cannot grow a pipe past pipeSize here:", err)
	}
	growPipe(r2)
	if n := pipeBuf(t, w2); n != 2*pipeSize {
		t.Fatalf("growPipe shrank a pipe of %d bytes to %d", 2*pipeSize, n)
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(f) // not a pipe: nothing happens, nothing fails
	growPipe(nil)
}
