package parse

import (
	"io"
	"sync"
	"sync/atomic"
)

// Reading ahead. spread parses one piece at a time on several cores, and
// between pieces the cores but one wait while the piece's events are
// merged and written and the next piece read. Once a spread piece has
// shown that the input leaves the Parser quiet in s.guess's state line
// after line, pieces are instead read and parsed by workers, each piece's
// body by a fork from that state, while the stream's Parser takes them in
// order: it parses a piece's head (up to the end of the first line like
// the guess's), and keeps the fork's events when that left it quiet in the
// fork's state, exactly as spread keeps them; else it parses the body
// itself. Events are written piece by piece as soon as the piece is
// parsed, whatever the workers are reading.
//
// Workers read in turn, one piece each, so a piece is read on the core
// that parses it. Reading ahead stops after two pieces in a row that are
// not kept, and when the input ends; Stream never returns while a worker
// is still reading.

// aheadPieces is how many pieces may be read but not yet taken, per worker.
const aheadPieces = 2

// pieceSize is the most a piece read for spreading holds; tests lower it
// to read inputs in many pieces.
var pieceSize = readSize

// piecesAhead counts the pieces whose fork's events were kept, for tests.
var piecesAhead atomic.Int64

// aheadPiece is one piece of input read by a worker, and its parsing.
type aheadPiece struct {
	buf  []byte // pieceSize; the piece is buf[:n]
	n    int
	rerr error
	off  int64         // stream offset of buf[0]
	head int           // buf[:head] is for the stream's Parser
	fork *forkOut      // the body's parsing, when used is set
	used bool          // fork parsed buf[head:n]
	done chan struct{} // a token when the parsing is done
}

// readAhead is the workers' shared state.
type readAhead struct {
	r     io.Reader
	q     quietState
	line  []byte
	proto *Parser // a fork of the stream's Parser, for the forks' settings

	mu    sync.Mutex // held while reading: pieces are read and queued in order
	off   int64      // stream offset of the next piece; under mu
	ended bool       // r returned an error; under mu

	stop    atomic.Bool
	free    chan *aheadPiece // pieces to read into
	queue   chan *aheadPiece // pieces read, in order; closed when the workers are done
	workers sync.WaitGroup
	misses  int // pieces in a row whose fork was not kept
}

// startAhead starts workers reading r ahead, from the state s.guess holds.
func (s *streamWriter) startAhead(r io.Reader) {
	n := min(spreadProcs(), maxForks+1)
	p := s.p
	a := &readAhead{
		r: r, q: s.guess.q, line: s.guess.line, proto: new(Parser),
		off:   p.base + int64(len(p.buf)),
		free:  make(chan *aheadPiece, aheadPieces*n),
		queue: make(chan *aheadPiece, aheadPieces*n),
	}
	// The workers fork from proto, not from the stream's Parser, which
	// changes under them: proto holds what fork takes from it.
	p.fork(a.proto, a.q, 0, nil)
	for range aheadPieces * n {
		a.free <- &aheadPiece{buf: make([]byte, pieceSize), fork: newForkOut(s.file), done: make(chan struct{}, 1)}
	}
	for range n {
		a.workers.Go(a.work)
	}
	go func() {
		a.workers.Wait()
		close(a.queue)
	}()
	s.ahead = a
}

// work reads pieces in turn with the other workers and parses each one's
// body, until the input ends or reading ahead stops.
func (a *readAhead) work() {
	for pc := range a.free {
		a.mu.Lock()
		if a.ended || a.stop.Load() {
			a.mu.Unlock()
			a.free <- pc
			return
		}
		pc.n, pc.rerr = a.r.Read(pc.buf)
		pc.off = a.off
		a.off += int64(pc.n)
		a.ended = pc.rerr != nil
		a.queue <- pc // never blocks: it holds every piece
		a.mu.Unlock()
		a.parse(pc)
		pc.done <- struct{}{}
	}
}

// parse parses pc's body on its fork: the bytes after the first line like
// the guess's, which leaves the Parser in the guess's state as often as
// the input is what it was.
func (a *readAhead) parse(pc *aheadPiece) {
	b := pc.buf[:pc.n]
	pc.head, pc.used = len(b), false
	if len(b) < 2*spreadBlock {
		return
	}
	cut := cutAfter(b, a.line)
	if cut < 0 || cut == len(b) {
		return
	}
	pc.fork.start(a.proto, a.q, pc.off+int64(cut))
	pc.fork.parse(b[cut:])
	pc.head, pc.used = cut, true
}

// readAhead takes the next piece the workers read, in order: rerr is the
// error r returned with it. ok is false when there is none: the workers
// stopped.
func (s *streamWriter) readAhead() (rerr, err error, ok bool) {
	a := s.ahead
	pc, ok := <-a.queue
	if !ok {
		s.ahead = nil
		return nil, nil, false
	}
	<-pc.done
	defer func() { a.free <- pc }()
	b := pc.buf[:pc.n]
	if pc.head > 0 {
		if _, err := s.p.Write(b[:pc.head]); err != nil {
			return pc.rerr, err, true
		}
	}
	if pc.used && s.fits(pc.fork, a.q) {
		a.misses = 0
		s.keep(pc.fork)
		piecesAhead.Add(1)
		return pc.rerr, s.flush(), true
	}
	if pc.head < len(b) {
		if _, err := s.p.Write(b[pc.head:]); err != nil {
			return pc.rerr, err, true
		}
	}
	if a.misses++; a.misses >= 2 {
		a.stop.Store(true)
	}
	return pc.rerr, s.flush(), true
}

// stopAhead stops the workers, if any, and waits for them; the pieces they
// read and s did not take are dropped.
func (s *streamWriter) stopAhead() {
	a := s.ahead
	if a == nil {
		return
	}
	a.stop.Store(true)
	for pc := range a.queue {
		<-pc.done
		a.free <- pc
	}
	s.ahead = nil
}
