package run

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolcall/toolcall/tools"
)

// errLineTooLong marks a request line longer than the limit; the line is
// skipped, the lines after it are read.
var errLineTooLong = errors.New("the line is too long")

// line is one line of a batch's input, numbered from 1; err is set for a
// line too long (then text is empty) or a failed read (the last line).
type line struct {
	n    int
	text []byte
	err  error
}

// lineReader reads a batch's requests ahead, in a goroutine of its own,
// so that a batch blocked on a pipe still hears an interrupt. Lines are
// read with tools.ReadLines, the bounded and numbered reader of every
// stage: a line over the limit is read past without being kept.
type lineReader struct {
	c       chan line
	quit    chan struct{}
	regular bool // the input is a regular file, which can be read to its end
}

// errQuit ends the reading goroutine once nobody takes its lines.
var errQuit = errors.New("the reader was stopped")

func readLines(r io.Reader, maxLine int) *lineReader {
	lr := &lineReader{c: make(chan line), quit: make(chan struct{})}
	if f, ok := r.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			lr.regular = true
		}
	}
	send := func(l line) error {
		select {
		case lr.c <- l:
			return nil
		case <-lr.quit:
			return errQuit
		}
	}
	go func() {
		defer close(lr.c)
		tooLong := func(l tools.LongLine) error {
			return send(line{n: l.N, err: fmt.Errorf("%w: more than %d bytes", errLineTooLong, maxLine)})
		}
		last := 0 // the number of the last line sent
		err := tools.ReadLines(r, maxLine, tooLong, func(text []byte, n int) error {
			last = n
			return send(line{n: n, text: bytes.Clone(text)})
		})
		if err != nil && err != errQuit {
			send(line{n: last + 1, err: err})
		}
	}()
	return lr
}

// stop lets the reading goroutine end.
func (lr *lineReader) stop() { close(lr.quit) }

// spoolMemory is how much of a transcript a spool holds in memory before
// it moves to a temporary file.
const spoolMemory = 64 << 10

// spool keeps a transcript until it can be written: in memory while it is
// small, then in an unnamed temporary file.
type spool struct {
	mem bytes.Buffer
	f   *os.File
}

func (s *spool) Write(p []byte) (int, error) {
	if s.f == nil && s.mem.Len()+len(p) <= spoolMemory {
		return s.mem.Write(p)
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "toolcall-batch-*.jsonl")
		if err != nil {
			return 0, fmt.Errorf("spooling a transcript: %w", err)
		}
		// Gone from the directory at once where the system allows it: a
		// killed batch leaves nothing behind.
		os.Remove(f.Name())
		s.f = f
		if _, err := s.mem.WriteTo(f); err != nil {
			return 0, fmt.Errorf("spooling a transcript: %w", err)
		}
	}
	return s.f.Write(p)
}

// copyTo writes the transcript to w in whole lines.
func (s *spool) copyTo(w io.Writer) error {
	if s.f == nil {
		return copyLines(w, &s.mem)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return copyLines(w, s.f)
}

// discard frees what the spool holds.
func (s *spool) discard() {
	s.mem = bytes.Buffer{}
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.f = nil
	}
}

// copyLines copies r to w in writes that hold whole lines only, so that a
// reader of w never sees half a line, however w is stopped.
func copyLines(w io.Writer, r io.Reader) error {
	buf := make([]byte, 0, 64<<10)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			if _, werr := w.Write(buf[:i+1]); werr != nil {
				return werr
			}
			buf = buf[:copy(buf, buf[i+1:])]
		}
		if err == io.EOF {
			if len(buf) > 0 {
				_, err := w.Write(buf)
				return err
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// staleTemps lists, by request id, the files atomicfile.Create left in dir
// for transcripts ".ID.jsonl.RANDOM.tmp" that a killed batch never
// committed. A resumed batch removes those of each request it handles
// (removeStale), and only those: the requests of another shard, which
// may be running beside it in the same directory, are not its own.
func staleTemps(dir string) map[string][]string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	stale := map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") {
			continue
		}
		i := strings.LastIndex(name, ".jsonl.")
		if i < 1 || strings.ContainsFunc(name[i+len(".jsonl."):len(name)-len(".tmp")], func(r rune) bool { return r < '0' || r > '9' }) {
			continue
		}
		id := name[1:i]
		stale[id] = append(stale[id], name)
	}
	return stale
}

// removeStale removes the leftover files of request id (see staleTemps).
func removeStale(dir string, stale map[string][]string, id string) {
	for _, name := range stale[id] {
		os.Remove(filepath.Join(dir, name))
	}
	delete(stale, id)
}
