//go:build unix

package run

import "syscall"

// openNonBlock opens without waiting: a FIFO planted where a transcript
// should be would otherwise hold the open until a writer came, and the
// batch with it, past any interrupt.
const openNonBlock = syscall.O_NONBLOCK
