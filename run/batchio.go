package run

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
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

// lineReader reads lines in a goroutine of its own, so that a batch
// blocked on a pipe still hears an interrupt.
type lineReader struct {
	c       chan line
	quit    chan struct{}
	regular bool // the input is a regular file, which can be read to its end
}

func readLines(r io.Reader, maxLine int) *lineReader {
	lr := &lineReader{c: make(chan line), quit: make(chan struct{})}
	if f, ok := r.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			lr.regular = true
		}
	}
	go func() {
		defer close(lr.c)
		br := bufio.NewReaderSize(r, 64<<10)
		for n := 1; ; n++ {
			l := line{n: n}
			var err error
			l.text, err = readLine(br, maxLine)
			if errors.Is(err, errLineTooLong) {
				l.err = fmt.Errorf("%w: more than %d bytes", errLineTooLong, maxLine)
			} else if err != nil && err != io.EOF {
				l.err = err
			}
			if err == io.EOF && len(l.text) == 0 {
				return
			}
			select {
			case lr.c <- l:
			case <-lr.quit:
				return
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				return
			}
		}
	}()
	return lr
}

// stop lets the reading goroutine end.
func (lr *lineReader) stop() { close(lr.quit) }

// readLine reads one line without its end, at most max bytes of it; a
// longer line is read to its end and dropped, with errLineTooLong.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var text []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(text)+len(chunk) > max+1 { // +1: the newline
				tooLong, text = true, nil
			} else {
				text = append(text, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			if err == nil {
				err = errLineTooLong
			}
			if err == io.EOF {
				err = errLineTooLong
			}
			return nil, err
		}
		return bytes.TrimRight(text, "\r\n"), err
	}
}

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
