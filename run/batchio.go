package run

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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

// FileBeside is a file written beside the name it is meant for, and given
// that name only by Commit: until then whatever had the name (a good
// recording, a finished transcript) stays as it was, and a process killed
// half way leaves it so. Commit syncs the file and its directory, so that
// after a crash the name holds either the old file or the whole new one.
type FileBeside struct {
	path string
	f    *os.File
	done bool
}

// CreateBeside starts the file meant for path: a new file
// ".BASE.RANDOM.tmp" in path's directory, which Abort removes and Commit
// renames over path (see staleTemps for a batch resumed after a kill).
func CreateBeside(path string) (*FileBeside, error) {
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &FileBeside{path: path, f: f}, nil
}

func (b *FileBeside) Write(p []byte) (int, error) { return b.f.Write(p) }

// Name is the file being written, for a caller that keeps what it holds
// under another name (an interrupted run --record).
func (b *FileBeside) Name() string { return b.f.Name() }

// Commit gives the file its name, replacing what was there, once it and
// its directory are on disk; after an error the file is removed.
func (b *FileBeside) Commit() error {
	if b.done {
		return errors.New("the file was already committed or abandoned")
	}
	b.done = true
	err := b.f.Chmod(0o644) // as os.Create would make it, not private
	if err == nil {
		err = b.f.Sync()
	}
	if cerr := b.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(b.f.Name(), b.path)
	}
	if err != nil {
		os.Remove(b.f.Name())
		return fmt.Errorf("writing %s: %w", b.path, err)
	}
	if err := syncDir(filepath.Dir(b.path)); err != nil {
		return fmt.Errorf("writing %s: the file is in place, but its directory could not be synced: %w", b.path, err)
	}
	return nil
}

// Abort drops the file, leaving what had the name as it was; after
// Commit it does nothing, so it can be deferred.
func (b *FileBeside) Abort() {
	if b.done {
		return
	}
	b.done = true
	b.f.Close()
	os.Remove(b.f.Name())
}

// syncDir makes a rename in dir durable. A file system that cannot sync
// a directory (EINVAL) has nothing more to do.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// staleTemps lists, by request id, the files CreateBeside left in dir
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
