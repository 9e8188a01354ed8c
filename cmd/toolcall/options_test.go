//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
)

// directRun is run's options as a test fills them, without cobra: a
// scripted model that calls the tool "now" once and then answers, and a
// tools directory holding it.
func directRun(t *testing.T) *runOptions {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "now"), "#!/bin/sh\necho 12:00\n", 0o755)
	writeFile(t, filepath.Join(dir, "now.json"), `{"description": "The time.", "allow_no_schema": true, "no_schema_mode": "read-only"}`, 0o644)
	model := filepath.Join(t.TempDir(), "model")
	writeFile(t, model, `#!/bin/sh
if grep -q '"type":"tool_observation"'; then
	echo '{"type":"final_answer","content":"It is noon."}'
else
	echo '{"type":"tool_call","name":"now","arguments":{}}'
fi
`, 0o755)
	o := &runOptions{
		maxIterations: 3,
		totalTimeout:  time.Minute,
		parallelCalls: true,
		isTerminal:    func(io.Reader) bool { return false },
		isTerminalOut: func(io.Writer) bool { return false },
	}
	o.backend.modelCmd = model
	o.backend.stall = time.Minute
	o.backend.style.value = catalog.StyleJSONL
	o.exec.tools.dirs = dirList{dir}
	o.exec.timeout = 10 * time.Second
	o.exec.parallel = 1
	o.exec.maxOutput = tools.DefaultMaxOutput
	o.exec.hooks.timeout = tools.DefaultHookTimeout
	return o
}

// TestRunOptionsDirect calls run's run function with options filled in
// by hand: the loop runs, the tool is called, and --answer's stdout holds
// the answer alone.
func TestRunOptionsDirect(t *testing.T) {
	o := directRun(t)
	var stdout, stderr bytes.Buffer
	if err := o.run(context.Background(), []string{"What time is it?"}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		types = append(types, gjson.Get(line, "type").Str)
	}
	for _, want := range []string{"tool_call", "tool_observation", "final_answer", "stop"} {
		if !slices.Contains(types, want) {
			t.Errorf("the transcript has no %s event:\n%s", want, stdout.String())
		}
	}

	o = directRun(t)
	o.answer = true
	stdout.Reset()
	if err := o.run(context.Background(), []string{"What time is it?"}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("run --answer: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != "It is noon.\n" {
		t.Errorf("run --answer wrote %q, want the answer alone", got)
	}
}

// TestRunOptionsFlagChecks: the flags that do not go together are
// refused before anything runs, as usage errors, without cobra.
func TestRunOptionsFlagChecks(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*runOptions)
		want string
	}{
		{"check without replay", func(o *runOptions) { o.check = true }, "--check needs --replay FILE"},
		{"model-cmd and replay", func(o *runOptions) { o.replay = "x.jsonl" }, "--model-cmd and --replay both give the model's turns"},
		{"stall", func(o *runOptions) { o.backend.stall = 0 }, "--stall-timeout 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := directRun(t)
			c.set(o)
			var stdout, stderr bytes.Buffer
			err := o.run(context.Background(), []string{"hi"}, strings.NewReader(""), &stdout, &stderr)
			var uerr *usageError
			if !errors.As(err, &uerr) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("run: %v; want a usage error saying %q", err, c.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("a refused run wrote on stdout:\n%s", stdout.String())
			}
		})
	}
}

// TestBackendFlagsShared: a second command registers the backend flags
// as run does, with the same names, defaults and help.
func TestBackendFlagsShared(t *testing.T) {
	run := newRunCmd(nil, nil, nil)
	other := &cobra.Command{Use: "other"}
	var b backendFlags
	b.register(other)
	n := 0
	other.Flags().VisitAll(func(f *pflag.Flag) {
		n++
		rf := run.Flags().Lookup(f.Name)
		if rf == nil {
			t.Errorf("run has no --%s", f.Name)
			return
		}
		if rf.Usage != f.Usage || rf.DefValue != f.DefValue {
			t.Errorf("--%s differs: run %q (default %q), other %q (default %q)", f.Name, rf.Usage, rf.DefValue, f.Usage, f.DefValue)
		}
	})
	if n < len(serverOnlyFlags) {
		t.Errorf("the group has %d flags, fewer than the %d a model server reads", n, len(serverOnlyFlags))
	}
}

// TestShowOptionsDirect calls show's run function without cobra: a
// recording is shown for a person, its answer last.
func TestShowOptionsDirect(t *testing.T) {
	o := showOptions{isTerminal: func(io.Reader) bool { return false }}
	var stdout, stderr bytes.Buffer
	if err := o.run([]string{filepath.Join(moduleRoot, "testdata", "transcripts", "demo.jsonl")}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("show: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "You may want an umbrella.") || strings.Contains(stdout.String(), `"type"`) {
		t.Errorf("show wrote no view of the recording's answer:\n%s", stdout.String())
	}
}
