package chattemplate

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
)

// A template is code from outside, and a few bytes of it can ask for any
// amount of memory: "a" * 300000000, a string doubled in a loop, a range
// of 10**12 made a list. Go cannot stop a goroutine, nor catch an
// allocation that fails, so the values a render builds are checked before
// they are built:
//
//   - The engine (internal/jinja, patched for this) refuses an operator,
//     *, ~ or +, that would build a string longer than maxValue bytes or
//     a list longer than maxItems items, and counts a step for each.
//   - range, and the filters and str methods whose size comes from an
//     argument (center, indent, join, replace, ljust, format, …), are
//     toolcall's own, and check first (filters.go, strmethods.go).
//   - Each loop iteration and macro call ticks, as each checked operator
//     does: past maxSteps of them, past maxHeapGrowth of heap grown since
//     the render began (a list filled in a loop), or once the render has
//     been given up (its time is over), the next tick fails it; a render
//     given up stops at its next tag.

const (
	// maxValue bounds one string: no more than a render may write.
	maxValue = maxRender
	// maxItems bounds one list built by the template.
	maxItems = 1 << 20
	// maxSteps bounds the loop iterations, macro calls and checked
	// operators of one render: real templates take thousands; it stops a
	// runaway loop within seconds, sooner than the render's time bound.
	maxSteps = 1 << 18
	// maxHeapGrowth bounds what the heap may grow while a render runs.
	maxHeapGrowth = 256 << 20
	// maxMacroDepth is far deeper than any schema a template walks.
	maxMacroDepth = 200
)

// errTooLarge is why a render that would build too large a value fails.
var errTooLarge = errors.New("the template builds a value larger than toolcall allows")

// guard is one render's bounds.
type guard struct {
	heap0    uint64
	ticks    int
	maxSteps int
	maxHeap  uint64
	stopped  atomic.Bool // the render was given up
}

// newGuard starts a render's guard; steps and heap bound its steps and
// heap growth, 0 meaning maxSteps and maxHeapGrowth.
func newGuard(steps, heap int) *guard {
	if steps <= 0 {
		steps = maxSteps
	}
	if heap <= 0 {
		heap = maxHeapGrowth
	}
	return &guard{heap0: heapBytes(), maxSteps: steps, maxHeap: uint64(heap)}
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

// heapBytes is the memory held by live and not yet swept heap objects.
func heapBytes() uint64 {
	s := []metrics.Sample{heapSample[0]}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// check fails a render that was given up or whose heap grew too much;
// the heap is sampled once every 16 calls (a sample costs about a
// microsecond; between two, a loop adds at most 16 values of maxValue).
func (g *guard) check() error {
	if g.stopped.Load() {
		return errors.New("the render was given up")
	}
	g.ticks++
	if g.ticks > g.maxSteps {
		return fmt.Errorf("it ran more than %d loop iterations, macro calls and operators", g.maxSteps)
	}
	if g.ticks%16 == 0 {
		if h := heapBytes(); h > g.heap0 && h-g.heap0 > g.maxHeap {
			// The sample counts garbage not yet swept: collect it, and
			// fail only on what is still held.
			runtime.GC()
			if h := heapBytes(); h > g.heap0 && h-g.heap0 > g.maxHeap {
				return fmt.Errorf("the heap grew by more than %d MiB while it rendered", g.maxHeap>>20)
			}
		}
	}
	return nil
}

// size checks a string of n bytes (n < 0: past any bound) and ticks.
func (g *guard) size(n int) error {
	if n > maxValue || n < 0 {
		return fmt.Errorf("%w: a string of more than %d MiB", errTooLarge, maxValue>>20)
	}
	return g.check()
}

// items checks a list of n items and ticks.
func (g *guard) items(n int) error {
	if n > maxItems || n < 0 {
		return fmt.Errorf("%w: a list of more than %d items", errTooLarge, maxItems)
	}
	return g.check()
}
