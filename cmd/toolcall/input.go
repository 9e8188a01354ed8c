package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
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
