package leaktest

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// NoGoroutine fails t if, after a grace of up to five seconds for
// goroutines on their way out, a goroutine is still running a function
// whose qualified name contains fn (as "tools.readAhead"). It looks at
// stacks rather than counting goroutines, so that goroutines of other
// tests or of the runtime do not count.
func NoGoroutine(t testing.TB, fn string) {
	t.Helper()
	var left string
	for range 500 {
		if left = goroutineIn(fn); left == "" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("a goroutine in %s was left behind:\n%s", fn, left)
}

// goroutineIn returns the stack of a goroutine with fn in its stack, or "".
func goroutineIn(fn string) string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			return g
		}
	}
	return ""
}
