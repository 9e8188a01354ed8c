package parse

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolcall/toolcall/tools"
)

// Dense input, calls one after another as in a replayed transcript or a
// batch of saved outputs, costs CPU per call, so a large piece of it is
// parsed on several cores. Such input leaves the Parser quiet (see quiet)
// in the same few states line after line. The stream's Parser reads the
// first lines of the piece until it is quiet in a state it was in before
// (see lead); the rest is cut into blocks right after lines like the one
// that led there, the first parsed by the stream's Parser and each other
// one, at the same time, by a fork: a Parser set up in that state. A
// fork's events are kept only when the block before it left the stream's
// Parser quiet in that very state, and the fork then becomes the stream's
// Parser; otherwise the rest of the piece is parsed by the stream's
// Parser as it would have been without forks. The events are the same
// either way (TestSpreadSameEvents, FuzzSpread).

// spreadBlock is the least input a fork is given: below it, starting a
// fork costs more than the parsing it saves.
var spreadBlock = 16 << 10

// maxForks bounds the forks per piece of input.
const maxForks = 7

// spreadProcs is how many cores a piece may be spread over; tests raise it.
var spreadProcs = func() int { return runtime.GOMAXPROCS(0) }

// forksKept counts the forks whose events were kept, for tests.
var forksKept atomic.Int64

// quietState is what a quiet Parser carries into the bytes after it: its
// flags, and the bytes from the start of its pending text or the end of
// the last block it consumed, whichever is first, with where those two and
// the end of its last call lie in them (-1: before them).
type quietState struct {
	written, prose, explicitOnly, outputStart bool
	tail                                      string
	seg, lineAt, afterCall                    int
}

// maxTail bounds quietState.tail: a Parser with more pending is not
// taken as quiet.
const maxTail = 4 << 10

// quiet returns the state p carries forward when p is quiet: every byte
// written to it is read, nothing is pending but text, and nothing it
// does with the bytes to come looks further back than the tail. (Looking
// back stops at seg or at lineAt; see atLineStart and the closer
// handlers.)
func (p *Parser) quiet() (quietState, bool) {
	t := min(p.seg, p.lineAt)
	if p.closed || p.err != nil || !p.started || !p.written || p.mode != modeProse || p.section != "" ||
		p.pos != len(p.buf) || t < 0 || p.pos-t > maxTail ||
		p.waitAt >= 0 || p.scanFrom >= 0 || p.decoded.out != nil ||
		len(p.reasoning) > 0 || p.bareCallAt >= p.pos || p.modelIDs != nil || p.noExp || p.flatArgs {
		return quietState{}, false
	}
	q := quietState{
		written: p.written, prose: p.prose, explicitOnly: p.explicitOnly, outputStart: p.outputStart,
		tail: string(p.buf[t:p.pos]), seg: p.seg - t, lineAt: p.lineAt - t, afterCall: -1,
	}
	if p.afterCall >= t {
		q.afterCall = p.afterCall - t
	}
	return q, true
}

// fork makes f a Parser in state q whose next byte is at stream offset
// off, which emits to emit and numbers its calls from 1. f may be a Parser
// used before, or a new one: only its buffers are kept.
func (p *Parser) fork(f *Parser, q quietState, off int64, emit func(*Event) error) {
	*f = Parser{
		opts: p.opts, emit: emit, extra: p.extra,
		ntrig: p.ntrig, trigSet: p.trigSet, oneScan: p.oneScan,
		buf: append(f.buf[:0], q.tail...), base: off - int64(len(q.tail)),
		pos: len(q.tail), seg: q.seg, lineAt: q.lineAt, afterCall: q.afterCall,
		started: true, written: q.written, prose: q.prose,
		explicitOnly: q.explicitOnly, outputStart: q.outputStart,
		scanFrom: -1, waitAt: -1, bareCallAt: -1,
		idBuf: f.idBuf[:0], scratch: f.scratch[:0],
	}
	f.opts.FirstID = 0
	f.resetTriggers()
}

// takeOver makes f, a fork whose block directly followed what p parsed,
// the stream's Parser in p's place: its calls are counted on from p's.
func (f *Parser) takeOver(p *Parser) {
	f.emit = p.emit
	f.opts.FirstID = p.opts.FirstID
	f.nextID += p.nextID
	f.ids = "" // numbered from 1, not from p's count
}

// forkOut collects a fork's events, encoded as the stream writes them,
// with where each call id the fork numbered itself lies in them.
type forkOut struct {
	eventBuffer
	f        *Parser
	emit     func(*Event) error // add
	block    []byte
	numbered []int // offsets of call events whose id the fork numbered
	err      error
}

// newForkOut returns a forkOut with a Parser of its own, its events noted
// with Options.File as the stream's are.
func newForkOut(file string) *forkOut {
	o := &forkOut{f: new(Parser), eventBuffer: eventBuffer{file: file}}
	o.emit = o.add
	return o
}

// start sets o's Parser up as p's fork in state q at stream offset off
// (see fork), with no events yet.
func (o *forkOut) start(p *Parser, q quietState, off int64) {
	o.out, o.numbered, o.stats, o.err = o.out[:0], o.numbered[:0], Stats{}, nil
	p.fork(o.f, q, off, o.emit)
}

// parse parses b on o's Parser, noting the error that stops it.
func (o *forkOut) parse(b []byte) {
	if _, err := o.f.Write(b); err != nil {
		o.err = err
	}
}

func (o *forkOut) add(e *Event) error {
	if e.Type == tools.TypeToolCall && strings.HasPrefix(e.Call.ID, numberedPrefix) {
		// A fork with model ids of the form call_N is not kept (see
		// spread), so every such id here is one the fork numbered.
		o.numbered = append(o.numbered, len(o.out))
	}
	o.eventBuffer.add(e)
	return nil
}

// idAt is where, in an encoded call event, the digits of its id start.
var idAt = len(`{"type":"tool_call","id":"` + numberedPrefix)

// appendRenumbered appends o's events to dst with the ids the fork
// numbered counted on from first calls before it.
func (o *forkOut) appendRenumbered(dst []byte, first int) []byte {
	from := 0
	var digits [20]byte
	id, last := digits[:0], -1 // the last id written, and its digits
	for _, at := range o.numbered {
		d := at + idAt
		n, end := 0, d
		for ; o.out[end] != '"'; end++ {
			n = n*10 + int(o.out[end]-'0')
		}
		// The fork numbers its calls one after another, but for those
		// a model gave ids to: count up the digits while they follow.
		if next := first + n; next == last+1 {
			id = countUp(id, int64(next))
		} else {
			id = strconv.AppendInt(id[:0], int64(next), 10)
		}
		last = first + n
		dst = append(dst, o.out[from:d]...)
		dst = append(dst, id...)
		from = end
	}
	return append(dst, o.out[from:]...)
}

// guess is a quiet state a Parser is expected to be in again, with the
// line that had just ended when it was in it.
type guess struct {
	q    quietState
	line []byte
}

// lead parses the first lines of b on the stream's Parser until it is
// quiet in a state it will likely be in again: the last piece's guess, or
// one it was already in a few lines before (input that repeats itself
// every few lines, such as a call block and a line of prose). It returns
// the rest of b, and whether s.guess now holds such a state.
func (s *streamWriter) lead(b []byte) ([]byte, bool, error) {
	var seen [16]guess
	for k := range seen {
		n := bytes.IndexByte(b[:min(len(b), maxTail)], '\n') + 1
		if n == 0 || len(b)-n < 2*spreadBlock {
			break
		}
		if _, err := s.p.Write(b[:n]); err != nil {
			return b, false, err
		}
		line := b[:n]
		b = b[n:]
		q, ok := s.p.quiet()
		if !ok {
			continue
		}
		if s.guess.line != nil && q == s.guess.q {
			return b, true, nil
		}
		for _, g := range seen[:k] {
			if g.line != nil && g.q == q {
				s.guess = guess{q, bytes.Clone(line)}
				return b, true, nil
			}
		}
		seen[k] = guess{q, line}
	}
	s.guess = guess{} // the input is not what it was
	return b, false, nil
}

// spreadBlocks cuts b into blocks for the stream's Parser and its forks,
// or returns nil when b is too small to be worth it. Each cut follows a
// line like line, if line is short enough to be the same every time (a
// closing tag, a line of prose), or else any line.
func spreadBlocks(b, line []byte) [][]byte {
	n := min(spreadProcs(), maxForks+1, len(b)/spreadBlock)
	if n < 2 {
		return nil
	}
	size := len(b) / n
	blocks := make([][]byte, 0, n)
	for len(blocks) < n-1 && len(b) > size {
		cut := cutAfter(b[size-1:], line)
		if cut < 0 {
			break
		}
		blocks, b = append(blocks, b[:size-1+cut]), b[size-1+cut:]
	}
	if len(blocks) == 0 {
		return nil
	}
	return append(blocks, b)
}

// cutAfter returns where in b, just after a newline, the first line equal
// to line ends, or where any line ends when line is long or not near.
func cutAfter(b, line []byte) int {
	if len(line) <= 64 {
		window := b[:min(len(b), 16<<10)]
		for from := 0; ; {
			j := bytes.Index(window[from:], line)
			if j < 0 {
				break
			}
			if at := from + j; at > 0 && window[at-1] == '\n' {
				return at + len(line)
			}
			from += j + 1
		}
	}
	j := bytes.IndexByte(b, '\n')
	if j < 0 {
		return -1
	}
	return j + 1
}

// spreads counts a piece read by readRaw and reports whether to read it
// for spread: on more than one core, while spreading finds a state to
// fork from, and now and then when it did not (prose leaves the Parser
// quiet in no state twice), since the input may turn dense.
func (s *streamWriter) spreads() bool {
	s.pieces++
	return spreadProcs() > 1 && (s.guess.line != nil || s.pieces%16 == 1)
}

// spread parses b, with forks where it is large and the Parser quiet.
func (s *streamWriter) spread(b []byte) error {
	s.kept = false
	var blocks [][]byte
	if len(b) >= 2*spreadBlock {
		var ok bool
		var err error
		if b, ok, err = s.lead(b); err != nil {
			return err
		}
		if ok {
			blocks = spreadBlocks(b, s.guess.line)
		}
	}
	if blocks == nil {
		_, err := s.p.Write(b)
		return err
	}
	q := s.guess.q
	for len(s.forks) < len(blocks)-1 {
		s.forks = append(s.forks, newForkOut(s.file))
	}
	forks := s.forks[:len(blocks)-1]
	var wg sync.WaitGroup
	off := s.p.base + int64(s.p.pos) + int64(len(blocks[0]))
	for k, o := range forks {
		o.block = blocks[k+1]
		o.start(s.p, q, off)
		off += int64(len(o.block))
		wg.Go(func() { o.parse(o.block) })
	}
	_, err := s.p.Write(blocks[0])
	wg.Wait()
	if err != nil {
		return err
	}
	at := len(blocks[0])
	for _, o := range forks {
		if !s.fits(o, q) {
			// The block before left another state than the fork
			// assumed: parse the rest as without forks.
			_, err := s.p.Write(b[at:])
			return err
		}
		at += len(o.block)
		s.keep(o)
		if len(s.out) >= flushAt {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	s.kept = true
	return nil
}

// fits reports whether o's events are what the stream's Parser would emit
// next: it is quiet in q, the state o's fork started from.
func (s *streamWriter) fits(o *forkOut, q quietState) bool {
	now, ok := s.p.quiet()
	return ok && now == q && o.err == nil && o.f.modelIDs == nil
}

// keep takes o's events as the stream's, with their ids counted on, and
// its fork as the stream's Parser; the one it replaces is o's next fork.
func (s *streamWriter) keep(o *forkOut) {
	s.out = o.appendRenumbered(s.out, s.p.nextID)
	s.stats.Events += o.stats.Events
	s.stats.Calls += o.stats.Calls
	s.stats.Errors += o.stats.Errors
	forksKept.Add(1)
	o.f.takeOver(s.p)
	s.p, o.f = o.f, s.p
}
