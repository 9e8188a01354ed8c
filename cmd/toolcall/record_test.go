//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The attack on a golden file: --record emptied it at the start and wrote
// in place, so a re-record that failed (the model server down) destroyed
// the good recording. The file is written beside and takes the name only
// for a run worth keeping.
func TestRecordKeepsTheGoldenWhenARerecordFails(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.jsonl")
	const good = `{"type":"stop","reason":"final_answer","iterations":1}` + "\n"
	if err := os.WriteFile(golden, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "down")
	if err := os.WriteFile(model, []byte("#!/bin/sh\necho 'connection refused' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	execute(context.Background(), []string{"run", "--tools", t.TempDir(), "--model-cmd", model, "--record", golden, "Hello?"},
		strings.NewReader(""), &stdout, &stderr)
	if b, _ := os.ReadFile(golden); string(b) != good {
		t.Errorf("the golden recording now holds:\n%s", b)
	}
	if !strings.Contains(stderr.String(), "--record "+golden+" is kept as it was") {
		t.Errorf("stderr does not say the recording was kept: %q", stderr.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the directory, want the golden and the model", len(entries))
	}
}

// Ctrl-C during run --record keeps the transcript so far, its complete
// lines, beside the recording, and says where; the recording itself is
// left as it was (issue 41, trip 12).
func TestRecordInterruptedKeepsThePartial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildToolcall(t, t.TempDir())
	dir, pidFile := hangingTool(t)
	work := t.TempDir()
	model := filepath.Join(work, "model")
	writeFile(t, model, "#!/bin/sh\ncat > /dev/null\necho '{\"type\":\"tool_call\",\"name\":\"hang\",\"arguments\":{}}'\n", 0o755)
	golden := filepath.Join(work, "golden.jsonl")
	const good = `{"type":"stop","reason":"final_answer","iterations":1}` + "\n"
	writeFile(t, golden, good, 0o644)

	cmd := exec.Command(bin, "run", "--tools", dir, "--model-cmd", model, "--record", golden, "Go")
	stdout, stderr := interrupt(t, cmd, pidFile, syscall.SIGINT)
	partial := filepath.Join(work, "golden.partial.jsonl")
	data, err := os.ReadFile(partial)
	if err != nil {
		t.Fatalf("no partial transcript: %v; stderr:\n%s", err, stderr)
	}
	if string(data) != stdout || !strings.HasSuffix(string(data), `{"type":"stop","reason":"interrupted","iterations":1}`+"\n") {
		t.Errorf("the partial transcript:\n%s\nwant what stdout had:\n%s", data, stdout)
	}
	lines := strings.Count(string(data), "\n")
	if want := fmt.Sprintf("toolcall: interrupted: the transcript so far (%d lines) is in %s; --record %s is as it was\n", lines, partial, golden); !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	if b, _ := os.ReadFile(golden); string(b) != good {
		t.Errorf("the recording now holds:\n%s", b)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 3 {
		t.Errorf("%d files in the directory, want the model, the recording and the partial", len(entries))
	}
}

func TestPartialName(t *testing.T) {
	for path, want := range map[string]string{
		"golden.jsonl":     "golden.partial.jsonl",
		"dir/rec.v2.jsonl": "dir/rec.v2.partial.jsonl",
		"rec":              "rec.partial",
		".jsonl":           ".jsonl.partial",
	} {
		if got := partialName(path); got != want {
			t.Errorf("partialName(%q) = %q, want %q", path, got, want)
		}
	}
}
