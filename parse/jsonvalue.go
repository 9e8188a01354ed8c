package parse

// Where a JSON value in the buffer ends, and its reading: in one pass where
// it is strict, with the repairer where not, the same however the input
// was cut up.

import (
	"errors"

	"github.com/toolcall/toolcall/parse/jsonrepair"
)

// jsonEnd finds the end of the lenient JSON value that starts at buf[j]
// ('{' or '['). complete is false when the input ends inside it (at EOF,
// end is then the end of the input).
func (p *Parser) jsonEnd(j int, python bool) (end int, complete bool) {
	if d := &p.decoded; d.out != nil && d.start == j && d.python == python && !d.body {
		// Read whole before, and waiting for what follows it (bodyEnd):
		// a complete value ends where it ended, whatever comes after.
		return d.end, true
	}
	// The transcoding overwrites p.scratch, and with it any value decoded
	// before: that one must be decoded again if asked for.
	p.decoded = decoded{}
	// Read as a value that came whole is read, each time more of it has
	// arrived (run's throttle keeps that linear in a long value): the
	// repairer may end a value where a scanner, stricter about closers
	// and quotes, would not, and how the input was cut up must not decide
	// where a value ends.
	n, ok, cut := p.readWhole(j, python)
	if ok {
		return j + n, true
	}
	if cut && !p.closed {
		// Only what follows can tell how it reads: the scanner, which
		// reads some quotes otherwise, must not end it first.
		return len(p.buf), false
	}
	// Where the repairer gives up on a value (elided content, say), or
	// the input ends inside it, its brackets still say where it ends, for
	// the parse_error to cover.
	if p.scanFrom != j {
		p.scanner.Reset(python)
		p.scanFrom = j
	}
	n, done := p.scanner.Scan(p.buf[j:])
	if !done {
		return len(p.buf), false
	}
	return j + n, true
}

// readWhole reads the value at buf[j] as one that arrived whole: most in
// one pass (strict JSON, the work decodeJSON needs done on the way), the
// rest with the repairer. n is its length in buf; ok is false when it is
// not whole in buf, cut too when the input so far ends before it can be
// read.
func (p *Parser) readWhole(j int, python bool) (n int, ok, cut bool) {
	switch n := p.readLean(j, python); {
	case n > 0:
		return n, true, false
	case n == leanShort:
		// A call as most are written, cut off by the end of the input so
		// far: nothing to transcode.
		return 0, false, true
	}
	if out, n, last, ok := jsonrepair.AppendCompact(p.scratch[:0], p.buf[j:], &p.members); ok && !noMembers {
		// Strict JSON, as most calls are, copied in one pass that also
		// finds its members for jsonCalls: what appendJSON would give.
		p.scratch = out[:0]
		res := repairResult{N: n, Cut: len(out), Last: last}
		p.decoded = decoded{start: j, end: j + n, python: python, out: out, res: res, members: p.members.N >= 0}
		return n, true, false
	}
	return p.transcode(j, python)
}

// transcode reads the value at buf[j] with the repairer into p.scratch,
// and keeps it in p.decoded when it is whole; n is its length in buf, and
// cut says the repairer found it cut off.
func (p *Parser) transcode(j int, python bool) (n int, ok, cut bool) {
	out, res, err := appendJSON(p.scratch[:0], p.buf[j:], p.opts.NoRepair, python)
	p.scratch = out[:0]
	if err != nil || res.Truncated {
		var se *syntaxError
		return 0, false, res.Truncated || errors.As(err, &se) && se.Truncated
	}
	p.decoded = decoded{start: j, end: j + res.N, python: python, out: out, res: res}
	return res.N, true, false
}

// readLean reads the value at buf[j] with leanObject, into p.decoded
// when it is one, and returns leanObject's n.
func (p *Parser) readLean(j int, python bool) int {
	if noMembers {
		return 0
	}
	c := &p.lean
	c.gaps, c.runs = 0, 0
	n, last, flat := leanObject(p.buf[j:], &p.members, c)
	switch {
	case n <= 0:
	case c.gaps == 0:
		// Already what transcoding would give, so not copied.
		p.keepLean(j, n, python, p.buf[j:j+n:j+n], last, true, flat)
	default:
		out, ok := c.end(p.scratch, p.buf[j:], n)
		if !ok {
			return 0 // AppendCompact's
		}
		p.scratch = out[:0]
		p.keepLean(j, n, python, out, last, false, flat)
	}
	return n
}

// keepLean sets p.decoded to leanObject's reading of buf[j:j+n], out
// (lean: buf's own bytes), its last member at last. It is filled in place:
// a decoded literal would be built beside it and copied, on every call.
func (p *Parser) keepLean(j, n int, python bool, out []byte, last int, lean, flat bool) {
	d := &p.decoded
	*d = decoded{}
	d.start, d.end, d.python, d.out = j, j+n, python, out
	d.res.N, d.res.Cut, d.res.Last = n, len(out), last
	d.members, d.plain, d.lean, d.flat = true, true, lean, flat
}

// decoded is a value jsonEnd already transcoded into p.scratch, for the
// decodeJSON call that usually follows it.
type decoded struct {
	start, end int
	python     bool
	// body: readBody's reading, in a buffer of its own, kept for every
	// decodeJSON of the body until the block is consumed.
	body bool
	// members: p.members says where out's top-level members lie.
	members bool
	// plain: leanObject read the value: its keys and strings need no
	// unescaping. lean: and out is buf[start:end] itself (compact moves it
	// along), the value having no whitespace to drop. flat: leanObject's
	// flat, every object in it one level deep.
	plain, lean, flat bool
	out               []byte
	res               repairResult
}
