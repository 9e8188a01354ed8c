package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolcall/toolcall/internal/atomicfile"
	"github.com/toolcall/toolcall/run"
)

// keepRecording gives --record's file its name when the run is one worth
// keeping: it ended on its own. An interrupted run leaves the file that
// had the name as it was, and keeps the transcript so far, its complete
// lines, beside it (partialName), saying where; so does a run that ended
// because the model server failed when that file exists already (a
// re-record of a golden recording while the server was down), which
// stderr says; a first recording of such a run is written, since
// replaying a failure is a test too.
func keepRecording(record *recordFile, path string, res run.Result, interrupted bool, stderr io.Writer) error {
	if record == nil {
		return nil
	}
	if interrupted || res.Reason == run.StopInterrupted {
		record.keepPartial(path, stderr)
		return nil
	}
	if res.Reason == run.StopProvider {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "toolcall: warning: --record %s is kept as it was: this run ended in %s\n", path, res.Reason)
			return nil
		}
	}
	if err := record.Commit(); err != nil {
		return err
	}
	rememberRecording(path)
	return nil
}

// recordFile is --record's file on its way to its name, counting what
// was written up to the end of the last complete line.
type recordFile struct {
	*atomicfile.File
	written  int64 // bytes written
	complete int64 // bytes up to and with the last newline
	lines    int
}

func (r *recordFile) Write(p []byte) (int, error) {
	n, err := r.File.Write(p)
	r.lines += bytes.Count(p[:n], []byte{'\n'})
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		r.complete = r.written + int64(i) + 1
	}
	r.written += int64(n)
	return n, err
}

// keepPartial keeps the complete lines written so far under
// partialName(path) and says so; a run interrupted before its first line
// leaves nothing, and says that too.
func (r *recordFile) keepPartial(path string, stderr io.Writer) {
	defer r.Abort()
	if r.lines == 0 {
		fmt.Fprintf(stderr, "toolcall: interrupted before the transcript began: --record %s is as it was\n", path)
		return
	}
	partial := partialName(path)
	tmp := r.Name()
	err := os.Truncate(tmp, r.complete) // a line cut short would not read back
	if err == nil {
		err = os.Rename(tmp, partial)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolcall: warning: interrupted: the transcript so far could not be kept in %s: %v\n", partial, err)
		return
	}
	fmt.Fprintf(stderr, "toolcall: interrupted: the transcript so far (%d line%s) is in %s; --record %s is as it was\n", r.lines, plural(r.lines), partial, path)
}

// partialName is where an interrupted --record FILE keeps its transcript:
// golden.jsonl -> golden.partial.jsonl, which toolcall show still reads.
func partialName(path string) string {
	ext := filepath.Ext(path)
	if ext == "" || strings.HasPrefix(filepath.Base(path), ext) {
		return path + ".partial"
	}
	return strings.TrimSuffix(path, ext) + ".partial" + ext
}
