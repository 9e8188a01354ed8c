package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-isatty"

	"github.com/toolcall/toolcall/internal/termsafe"
)

// input is one source a command reads.
type input struct {
	name string // the file name as given; "" for standard input
	r    io.Reader
}

// openInputs opens the files named by args, where "-" (or no argument at
// all) is stdin. Every file is opened before anything is read, so that a
// missing one is reported before any output is written; a file that cannot
// be opened, or is a directory, is a usage error. closeAll closes the files.
func openInputs(stdin io.Reader, args []string) (ins []input, closeAll func(), err error) {
	if len(args) == 0 {
		return []input{{r: stdin}}, func() {}, nil
	}
	var files []*os.File
	closeAll = func() {
		for _, f := range files {
			f.Close() // read-only: nothing to lose
		}
	}
	for _, name := range args {
		if name == "-" {
			ins = append(ins, input{r: stdin})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			closeAll()
			return nil, nil, &usageError{err: err}
		}
		files = append(files, f)
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			closeAll()
			return nil, nil, &usageError{err: fmt.Errorf("%s: is a directory", name)}
		}
		ins = append(ins, input{name: name, r: f})
	}
	return ins, closeAll, nil
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// isTerminalWriter reports whether w is a terminal, for progress output:
// stderr, an invocation's messageStream, is the terminal it writes to.
func isTerminalWriter(w io.Writer) bool {
	if s, ok := w.(*messageStream); ok {
		w = s.Writer
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// eachInput runs stage on each input in turn, as parse, validate and exec
// do: a hint first when the input is a terminal, warnings that name the
// input and the line, and errors that name the file.
func eachInput(ins []input, isTerminal func(io.Reader) bool, hint string, stderr io.Writer,
	stage func(in input, warn func(line int, err error)) error) error {
	for _, in := range ins {
		if in.name == "" && isTerminal(in.r) {
			fmt.Fprintln(stderr, hint)
		}
		name := in.name
		if name == "" {
			name = "stdin"
		}
		warn := func(line int, err error) {
			fmt.Fprintf(stderr, "toolcall: %s:%d: %s\n", name, line, termsafe.Line(err.Error()))
		}
		if err := stage(in, warn); err != nil {
			var perr *fs.PathError
			var nt *notTextError
			if in.name != "" && !errors.As(err, &perr) && !errors.As(err, &nt) { // these name the file already
				return fmt.Errorf("%s: %w", in.name, err)
			}
			return err
		}
	}
	return nil
}

// skipBOM drops a UTF-8 byte order mark at the start of r, as parse
// does: some editors and Windows tools write one, and the first line
// would otherwise not be JSON. The small buffer only holds the first
// bytes; later reads larger than it go straight to r.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 16)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3) // Peek has the bytes: this cannot fail
	}
	return br
}

// textBlock is how much of an input is looked at to tell text from
// binary: enough to catch an executable, an image or UTF-16, and only the
// start, so that the check costs nothing on a long stream.
const textBlock = 8 << 10

// notTextError is an input that is not text: parse and run refuse it
// (exit 2) unless --binary-ok, as what a model wrote is text and a binary
// read as text gives megabytes of nonsense events.
type notTextError struct {
	name   string // the input, "stdin" for standard input
	why    string // a NUL byte, bytes that are not UTF-8
	offset int
}

func (e *notTextError) Error() string {
	return fmt.Sprintf("%s is not text: %s at byte %d; give a file of what a model wrote (UTF-8 text, a response JSON or an SSE stream), or --binary-ok to read it anyway", e.name, e.why, e.offset)
}

// textOnly passes r through and fails with a *notTextError once its first
// textBlock bytes hold a NUL byte or bytes that are not UTF-8. It looks at
// each read as it passes rather than waiting for a whole block, so that a
// stream is not held back; past the first block it only counts.
func textOnly(r io.Reader, name string) io.Reader {
	if name == "" {
		name = "stdin"
	}
	return &textReader{r: r, name: name}
}

type textReader struct {
	r    io.Reader
	name string
	seen int // bytes looked at
	// tail holds the start of a UTF-8 sequence the last read cut.
	tail  [utf8.UTFMax]byte
	ntail int
	err   error
}

func (t *textReader) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.r.Read(p)
	if t.seen < textBlock && n > 0 {
		if cerr := t.check(p[:min(n, textBlock-t.seen)]); cerr != nil {
			t.err = cerr
			return 0, cerr
		}
	}
	return n, err
}

// check looks at the next bytes b of the first block.
func (t *textReader) check(b []byte) error {
	start := t.seen
	t.seen += len(b)
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return &notTextError{name: t.name, why: "a NUL byte", offset: start + i}
	}
	// Finish the sequence the last read cut, from the first bytes of this
	// one.
	for t.ntail > 0 && len(b) > 0 {
		t.tail[t.ntail] = b[0]
		t.ntail++
		b = b[1:]
		start++
		if utf8.FullRune(t.tail[:t.ntail]) {
			if r, size := utf8.DecodeRune(t.tail[:t.ntail]); r == utf8.RuneError && size == 1 {
				return &notTextError{name: t.name, why: "bytes that are not UTF-8", offset: start - t.ntail}
			}
			t.ntail = 0
		}
	}
	if t.ntail > 0 {
		return nil // b went to the sequence, which is not finished yet
	}
	// A sequence cut at the end waits for the next read; one cut by the
	// end of the block, or of the input, is let be.
	cut := len(b)
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				cut = len(b) - i
			}
			break
		}
	}
	if !utf8.Valid(b[:cut]) {
		bad := 0
		for bad < cut {
			r, size := utf8.DecodeRune(b[bad:cut])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			bad += size
		}
		return &notTextError{name: t.name, why: "bytes that are not UTF-8", offset: start + bad}
	}
	t.ntail = copy(t.tail[:], b[cut:])
	return nil
}

// checkText is textOnly for text already read whole (run's request).
func checkText(data []byte, name string) error {
	_, err := io.Copy(io.Discard, textOnly(bytes.NewReader(data[:min(len(data), textBlock)]), name))
	return err
}

// fileFlagError is the usage error for a file a flag names that cannot
// be read: the flag first, then the file and why ("--replay nope.jsonl:
// no such file or directory"), so that the message says what to change.
func fileFlagError(flag string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		sep := " "
		if strings.HasSuffix(flag, "@") {
			sep = "" // --system @FILE
		}
		return &usageError{err: fmt.Errorf("%s%s%s: %w", flag, sep, termsafe.Line(pe.Path), pe.Err)}
	}
	return &usageError{err: fmt.Errorf("%s: %w", flag, err)}
}
