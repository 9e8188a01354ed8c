package run

import (
	"math/bits"

	"github.com/toolcall/toolcall/tools/event"
)

// What a batch says of its turns' phases: the median and 95th percentile
// of each step event's model_ms, parse_ms, validate_ms and exec_ms over
// every turn of every request it ran. A batch's memory does not grow
// with its requests, so the timings are counted in a histogram of fixed
// size rather than kept: a value under 128 ms is counted exactly, a
// larger one in a bucket 1/64 of its power of two wide, so a percentile
// is the bucket's lower bound, at most 1.6% under the true value.

// phaseKeys are the phases, in the order the batch event gives them.
var phaseKeys = [...]string{"model_ms", "parse_ms", "validate_ms", "exec_ms"}

const (
	histExact = 128 // values counted one by one
	histSub   = 64  // buckets per power of two above them
	// histBuckets covers every non-negative int64.
	histBuckets = histExact + (63-7)*histSub
)

// histogram counts non-negative millisecond values.
type histogram struct {
	n      int64
	counts [histBuckets]int64
}

// bucket is the bucket of v (negative counts as 0).
func bucket(v int64) int {
	if v < histExact {
		return int(max(v, 0))
	}
	shift := bits.Len64(uint64(v)) - 7 // v>>shift is in [64, 128)
	return histExact + (shift-1)*histSub + int(v>>shift) - histSub
}

// lowest is the least value of bucket b.
func lowest(b int) int64 {
	if b < histExact {
		return int64(b)
	}
	b -= histExact
	shift := b/histSub + 1
	return int64(b%histSub+histSub) << shift
}

func (h *histogram) add(v int64) {
	h.counts[bucket(v)]++
	h.n++
}

// quantile is the value at or below which a fraction q of the values
// lie (the nearest-rank method): the lower bound of its bucket.
func (h *histogram) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n) + 0.9999999) // ceil, for a q of two digits
	rank = min(max(rank, 1), h.n)
	var seen int64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return lowest(b)
		}
	}
	return lowest(histBuckets - 1)
}

// phaseStats counts the phases of a batch's steps.
type phaseStats struct {
	steps  int
	phases [len(phaseKeys)]histogram
}

// stepTimes are one step's timings, in the order of phaseKeys.
type stepTimes [len(phaseKeys)]int64

func timesOf(s *event.Step) stepTimes {
	return stepTimes{s.ModelMS, s.ParseMS, s.ValidateMS, s.ExecMS}
}

// add counts one step's timings.
func (p *phaseStats) add(t stepTimes) {
	p.steps++
	for i, v := range t {
		p.phases[i].add(v)
	}
}

// percentiles are p50 and p95 of each phase, none when no step was
// counted.
func (p *phaseStats) percentiles() []event.Phase {
	if p.steps == 0 {
		return nil
	}
	out := make([]event.Phase, len(phaseKeys))
	for i, k := range phaseKeys {
		out[i] = event.Phase{Key: k, P50: p.phases[i].quantile(0.50), P95: p.phases[i].quantile(0.95)}
	}
	return out
}
