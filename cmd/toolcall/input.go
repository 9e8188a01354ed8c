package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

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

// isTerminalWriter reports whether w is a terminal, for progress output.
func isTerminalWriter(w io.Writer) bool {
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
			if in.name != "" && !errors.As(err, &perr) { // a PathError names the file already
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
