package parse

// Finding the next byte where something other than prose may start: the
// one search over prose, so each byte is looked at once.

import (
	"bytes"

	"github.com/toolcall/toolcall/internal/byteset"
)

// triggers are the bytes at which something other than prose can start.
// Everything else is copied through, found with byteset.Index.
//
// '(' and 0xE2 are last, and triggers only with Options.KnownTool: a
// bare pythonic call to a known tool (get_weather(city="Paris") on a line
// of its own), and the first byte of '‹', a tag the generic reader reads
// (generic_block.go).
const triggers = "<[{>`(\xe2"

// knownTriggers is how many of triggers only Options.KnownTool adds.
const knownTriggers = 2

// triggerSets are triggers without those two and with them, for nextTrigger.
var triggerSets = [2]*byteset.Set{byteset.New(triggers[:len(triggers)-knownTriggers]), byteset.New(triggers)}

// oneScan: a new Parser searches for all the triggers at once, as
// byteset.Index does in one pass where it can; else for each trigger in
// turn. Tests turn it off to compare.
var oneScan = byteset.OnePass()

func (p *Parser) resetTriggers() {
	for k := range p.next {
		p.next[k], p.searched[k] = -1, 0
	}
}

// nextTrigger returns the position of the first trigger byte at or after
// from, or -1. Each byte of input is searched at most once: for all the
// triggers at once with oneScan, else once per trigger.
func (p *Parser) nextTrigger(from int) int {
	if p.oneScan {
		return p.cachedNext(0, from)
	}
	best := -1
	for k := 0; k < p.ntrig; k++ {
		if n := p.cachedNext(k, from); n >= 0 && (best < 0 || n < best) {
			best = n
		}
	}
	return best
}

// cachedNext returns next[k] brought up to from: the position of the
// first trigger byte k (with oneScan, of any trigger) at or after from, or
// -1.
func (p *Parser) cachedNext(k, from int) int {
	if p.next[k] >= 0 && p.next[k] < from || p.searched[k] < from {
		p.next[k], p.searched[k] = -1, from
	}
	if p.next[k] < 0 && p.searched[k] < len(p.buf) {
		rest := p.buf[p.searched[k]:]
		var j int
		if p.oneScan {
			j = byteset.Index(rest, p.trigSet)
		} else {
			j = bytes.IndexByte(rest, triggers[k])
		}
		if j >= 0 {
			p.next[k] = p.searched[k] + j
		}
		p.searched[k] = len(p.buf)
		if p.next[k] >= 0 {
			p.searched[k] = p.next[k]
		}
	}
	return p.next[k]
}
