package chattemplate

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
)

// A template is code from outside, and a few bytes of it can ask for any
// amount of memory: "a" * 300000000, a string doubled in a loop, a range
// of 10**12 made a list. Go cannot stop a goroutine, nor catch an
// allocation that fails, so the values a render builds are checked before
// they are built:
//
//   - The engine (internal/jinja) sizes every string and list an
//     operator, filter or method builds against its Limits (maxValue
//     bytes, maxItems items), and counts a step for each loop iteration,
//     call and such operator, past maxSteps failing the render; it stops
//     too when the render's context is done.
//   - range, and the filters and str methods whose size comes from an
//     argument (center, indent, join, replace, ljust, format, …), are
//     the engine's too, and size their result first.
//   - At each step the engine calls the guard, which fails the render
//     once the heap has grown past maxHeapGrowth since it began (a list
//     filled in a loop, each value within the bounds).

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
	// 128 MiB keeps a render that fills the heap, with the process
	// around it, within 256 MB.
	maxHeapGrowth = 128 << 20
	// maxMacroDepth is far deeper than any schema a template walks.
	maxMacroDepth = 200
)

// errTooLarge is why a render that would build too large a value fails.
var errTooLarge = errors.New("the template builds a value larger than toolcall allows")

// guard is one render's heap bound, and its step bound for the engine.
type guard struct {
	heap0    uint64
	ticks    int
	maxSteps int
	maxHeap  uint64
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

// check fails a render whose heap grew too much; the heap is sampled
// once every 16 calls (a sample costs about a microsecond; between two, a
// loop adds at most 16 values of maxValue).
func (g *guard) check() error {
	g.ticks++
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
