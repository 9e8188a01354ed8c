package eval

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolcall/toolcall/internal/atomicfile"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// maxRecording bounds what resuming reads of one recording: a case is one
// turn, and a file past this is not one of ours, so the case runs again.
const maxRecording = 64 << 20

// recordingPath is where the case's recording goes under dir. An id that
// would name a file elsewhere (a separator, "..", a leading dot) is
// refused rather than changed, so two ids never share a file.
func recordingPath(dir, id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\`+"\x00") || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("case id %q cannot name a file under --out: use ids without slashes or a leading dot", id)
	}
	return filepath.Join(dir, id+".jsonl"), nil
}

// completeRecording reads a recording left by an earlier eval: one that
// ends in a stop event, other than an interrupted run's, is complete.
// Anything else (no file, not a regular file, cut short) is not, and the
// case runs again.
func completeRecording(path string) ([]byte, bool) {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxRecording {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRecording+1))
	if err != nil || len(data) > maxRecording {
		return nil, false
	}
	body := bytes.TrimRight(data, "\r\n")
	last := body[bytes.LastIndexByte(body, '\n')+1:]
	if typ, err := tools.EventType(last); err != nil || typ != event.TypeStop {
		return nil, false
	}
	if stop := event.DecodeStop(last); stop.Reason == "" || stop.Reason == run.StopInterrupted || stop.Reason == run.StopProvider {
		return nil, false
	}
	return data, true
}

// writeRecording writes the transcript whole or not at all.
func writeRecording(path string, transcript []byte) error {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return fmt.Errorf("writing the recording: %w", err)
	}
	defer f.Abort()
	if _, err := f.Write(transcript); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}
