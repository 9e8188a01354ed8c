package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the pipe buffer parse asks for on its stdin and stdout. A
// pipe holds 64 KiB by default, so each stage of cat | toolcall parse | cat
// waits for the next at every 64 KiB; with 256 KiB between them, fewer
// waits and wakeups (docs/performance.md has the figures). Four times the
// kernel memory of a default pipe, counted against the user's
// pipe-user-pages-soft like any.
const pipeSize = 256 << 10

// growPipe asks the kernel for a buffer of pipeSize bytes when v is an
// *os.File that is a pipe with a smaller one. It never shrinks one, and
// gives up quietly where the kernel refuses (not a pipe, past
// /proc/sys/fs/pipe-max-size or the user's pipe limits): the pipe works
// as it was.
func growPipe(v any) {
	f, ok := v.(*os.File)
	if !ok {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && n < pipeSize {
			unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
		}
	})
}
