package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/toolcall/toolcall/internal/atomicfile"
	"github.com/toolcall/toolcall/run"
)

// keepRecording gives --record's file its name when the run is one worth
// keeping: it ended on its own. An interrupted run leaves the file that
// had the name as it was, and so does a run that ended because the model
// server failed when that file exists already (a re-record of a golden
// recording while the server was down), which stderr says; a first
// recording of such a run is written, since replaying a failure is a test
// too.
func keepRecording(record *atomicfile.File, path string, res run.Result, interrupted bool, stderr io.Writer) error {
	if record == nil || interrupted || res.Reason == run.StopInterrupted {
		return nil
	}
	if res.Reason == run.StopProvider {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "toolcall: warning: --record %s is kept as it was: this run ended in %s\n", path, res.Reason)
			return nil
		}
	}
	return record.Commit()
}
