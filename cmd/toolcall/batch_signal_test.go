//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An interrupted batch starts no more requests: the running one ends with
// stop interrupted and its transcript is written, stderr says how many did
// not start, and it exits 130. Run again, it goes on where it stopped,
// the interrupted request included.
func TestRunBatchSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildToolcall(t, t.TempDir())
	dir, pidFile := hangingTool(t)
	work := t.TempDir()
	model := filepath.Join(work, "model")
	writeFile(t, model, "#!/bin/sh\nif grep -q '^{\"type\":\"tool_observation\"'; then echo '{\"type\":\"final_answer\",\"content\":\"done\"}'; else echo '{\"type\":\"tool_call\",\"name\":\"hang\",\"arguments\":{}}'; fi\n", 0o755)
	prompts := filepath.Join(work, "prompts.jsonl")
	writeFile(t, prompts, `{"id":"r1","prompt":"one"}`+"\n"+`{"id":"r2","prompt":"two"}`+"\n"+`{"id":"r3","prompt":"three"}`+"\n", 0o644)
	out := filepath.Join(work, "out")

	cmd := exec.Command(bin, "run", "--tools", dir, "--model-cmd", model, "--batch", prompts, "--jobs", "1", "--out", out)
	stdout, stderr := interrupt(t, cmd, pidFile, syscall.SIGINT)
	if got := cmd.ProcessState.ExitCode(); got != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", got, stderr)
	}
	for _, want := range []string{`{"request":"r1","type":"summary","reason":"interrupted",`, `"interrupted":1,"not_started":2,`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %s in stdout:\n%s", want, stdout)
		}
	}
	if want := "toolcall: interrupt: 1 running request stopped (stop interrupted), 2 did not start; run the same command again to go on where it stopped\n"; !strings.HasSuffix(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to end with:\n%s", stderr, want)
	}
	data, err := os.ReadFile(filepath.Join(out, "r1.jsonl"))
	if err != nil || !strings.HasSuffix(string(data), `{"type":"stop","reason":"interrupted","iterations":1}`+"\n") {
		t.Errorf("r1.jsonl (%v):\n%s", err, data)
	}

	// Again, with a tool that answers: the three requests run.
	writeFile(t, filepath.Join(dir, "hang"), "#!/bin/sh\necho ok\n", 0o755)
	again := exec.Command(bin, "run", "--tools", dir, "--model-cmd", model, "--batch", prompts, "--jobs", "1", "--out", out)
	got, err := again.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if !strings.Contains(string(got), `"requests":3,"final_answer":3,"failed":0,"skipped":0,`) {
		t.Errorf("the second run:\n%s", got)
	}
}
