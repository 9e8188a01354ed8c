//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
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
