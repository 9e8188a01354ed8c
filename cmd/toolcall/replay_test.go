package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunReplayPrompt: with --replay, a prompt other than the recorded one
// is a usage error, exit 2, and nothing runs; the recorded one replays.
func TestRunReplayPrompt(t *testing.T) {
	clearEnv(t)
	tools := exampleTools(t)
	rec := filepath.Join(moduleRoot, "testdata", "transcripts", "demo.jsonl")
	for _, c := range []struct {
		prompt string
		code   int
		stderr string
	}{
		{"What is 7 * 6?", exitUsage, `toolcall: --replay ` + rec + `: the prompt "What is 7 * 6?" is not the recorded one ("What is the weather in Paris, in Fahrenheit?"); give the recorded prompt, or none to use it (see 'toolcall run --help')` + "\n"},
		// A check that passes says so in the line a bulk check gives each.
		{"What is the weather in Paris, in Fahrenheit?", exitOK, "ok      " + rec + "\n"},
	} {
		var stdout, stderr bytes.Buffer
		args := []string{"run", "--tools", tools, "--replay", rec, "--check", c.prompt}
		code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		if code != c.code || stderr.String() != c.stderr {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", c.prompt, code, stderr.String(), c.code, c.stderr)
		}
		if c.code != exitOK && stdout.Len() > 0 {
			t.Errorf("%q: the run went ahead:\n%s", c.prompt, stdout.String())
		}
	}
}
