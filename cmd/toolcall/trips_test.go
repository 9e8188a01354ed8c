package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNewcomerTrips holds the small trips a new user made (issue 28):
// each case failed before its fix, with the exit code and the one line of
// stderr a person reads.
func TestNewcomerTrips(t *testing.T) {
	examples := buildExamples(t)
	tmp := t.TempDir()
	batch := filepath.Join(tmp, "batch.jsonl")
	if err := os.WriteFile(batch, []byte(`{"id":"a","prompt":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	demo, err := filepath.Abs("../../testdata/transcripts/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	call := `{"type":"tool_call","id":"call_1","name":"calculator","arguments":{"expression":"1+1"}}` + "\n"
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		stdin    string
		code     int
		stdoutRE string // "" wants an empty stdout
		stderr   string // exact
	}{
		{
			name:   "help-misspelt-topic",
			args:   []string{"help", "pase"},
			code:   exitUsage,
			stderr: "toolcall: unknown help topic \"pase\", did you mean \"parse\"?\n",
		},
		{
			name:   "help-unknown-topic",
			args:   []string{"help", "mcp", "serv"},
			code:   exitUsage,
			stderr: "toolcall: unknown help topic \"serv\", did you mean \"serve\"?\n",
		},
		{
			name:   "int-flag-in-words",
			args:   []string{"run", "--max-iterations", "abc", "x"},
			code:   exitUsage,
			stderr: "toolcall: --max-iterations: \"abc\" is not a whole number (see 'toolcall run --help')\n",
		},
		{
			name:   "int-variable-in-words",
			args:   []string{"run", "x"},
			env:    map[string]string{"TOOLCALL_MAX_ITERATIONS": "abc"},
			code:   exitUsage,
			stderr: "toolcall: TOOLCALL_MAX_ITERATIONS: \"abc\" is not a whole number (see 'toolcall run --help')\n",
		},
		{
			name:   "float-flag-in-words",
			args:   []string{"run", "--temperature", "warm", "x"},
			code:   exitUsage,
			stderr: "toolcall: --temperature: \"warm\" is not a number (see 'toolcall run --help')\n",
		},
		{
			name:   "only-the-broken-bound",
			args:   []string{"run", "--tools", examples, "--max-iterations", "0", "x"},
			code:   exitUsage,
			stderr: "toolcall: --max-iterations 0: want 1 or more (see 'toolcall run --help')\n",
		},
		{
			name:   "only-the-broken-tool-bound",
			args:   []string{"exec", "--tools", examples, "--timeout", "0"},
			code:   exitUsage,
			stderr: "toolcall: --timeout 0: want more than 0, such as 20s (see 'toolcall exec --help')\n",
		},
		{
			name:   "record-in-a-missing-directory",
			args:   []string{"run", "--tools", examples, "--model-cmd", "../../testdata/models/demo-model", "--record", filepath.Join(tmp, "nodir", "x.jsonl"), "hi"},
			code:   exitUsage,
			stderr: "toolcall: --record " + filepath.Join(tmp, "nodir", "x.jsonl") + ": the directory " + filepath.Join(tmp, "nodir") + " does not exist (create it first)\n",
		},
		{
			name:   "model-cmd-missing",
			args:   []string{"run", "--tools", examples, "--model-cmd", filepath.Join(tmp, "no-such-model"), "hi"},
			code:   exitUsage,
			stderr: "toolcall: --model-cmd: " + filepath.Join(tmp, "no-such-model") + ": no such file (see 'toolcall run --help')\n",
		},
		{
			name:   "model-cmd-not-on-path",
			args:   []string{"run", "--tools", examples, "--model-cmd", "no-such-model-xyz --flag", "hi"},
			code:   exitUsage,
			stderr: "toolcall: --model-cmd: no-such-model-xyz: not found on PATH (see 'toolcall run --help')\n",
		},
		{
			name:     "validate-bom",
			args:     []string{"validate", "--tools", examples},
			stdin:    "\xef\xbb\xbf" + call,
			stdoutRE: `^\{"type":"tool_call","id":"call_1","name":"calculator","arguments":\{"expression":"1\+1"\},"validated":true\}\n$`,
		},
		{
			name:     "exec-bom",
			args:     []string{"exec", "--tools", examples},
			stdin:    "\xef\xbb\xbf" + call,
			stdoutRE: `"content":"2"`,
		},
		{
			name:   "batch-answer",
			args:   []string{"run", "--tools", examples, "--model-cmd", "../../testdata/models/demo-model", "--batch", batch, "-a"},
			code:   exitUsage,
			stderr: "toolcall: --batch does not take --answer: stdout holds every request's transcript; for the answers, pipe it to jq -r 'select(.type == \"final_answer\") | \"\\(.request)\\t\\(.content)\"' (see 'toolcall run --help')\n",
		},
		{
			name:     "check-one-says-ok",
			args:     []string{"run", "--tools", examples, "--replay", demo, "--check"},
			stdoutRE: `^\{"type":"check","file":"[^"]*demo.jsonl","status":"ok"\}\n$`,
			stderr:   "ok      " + demo + "\n",
		},
		{
			name:     "idle-server-flags-with-model-cmd",
			args:     []string{"run", "--tools", examples, "--model-cmd", "../../testdata/models/demo-model", "--model", "x", "--temperature", "0.2", "--constrain", "What is the weather in Paris, in Fahrenheit?"},
			stdoutRE: `"type":"stop","reason":"final_answer"`,
			stderr:   "toolcall: warning: --model, --temperature and --constrain do nothing with --model-cmd, which runs a program instead of asking a model server\n",
		},
		{
			name:     "idle-variable-not-warned",
			args:     []string{"run", "--tools", examples, "--model-cmd", "../../testdata/models/demo-model", "What is the weather in Paris, in Fahrenheit?"},
			env:      map[string]string{"TOOLCALL_MODEL": "x"},
			stdoutRE: `"type":"stop","reason":"final_answer"`,
		},
		{
			// -q drops the notes: the "ok" line of a check that passed.
			name:     "quiet-check",
			args:     []string{"run", "-q", "--tools", examples, "--replay", demo, "--check"},
			stdoutRE: `"type":"check"`,
			stderr:   "",
		},
		{
			name:     "idle-server-flags-with-replay",
			args:     []string{"run", "--tools", examples, "--replay", demo, "--check", "--max-tokens", "5", "--no-stream"},
			stdoutRE: `"type":"check"`,
			stderr:   "toolcall: warning: --max-tokens and --no-stream do nothing with --replay: the recording gives the model's turns\nok      " + demo + "\n",
		},
		{
			name:   "idle-catalog-flags-with-check",
			args:   []string{"catalog", "--tools", examples, "--check", "--format", "openai", "--allow-unsafe"},
			stderr: "toolcall: warning: --format and --allow-unsafe do nothing with --check: it lints every tool and writes none\n",
		},
		{
			name:     "idle-catalog-ranking-without-query",
			args:     []string{"catalog", "--tools", examples, "--min-score", "0.2", "--allow-unsafe"},
			stdoutRE: `"name":"write_file"`,
			stderr:   "toolcall: warning: --min-score does nothing without a query to rank for (--query)\n",
		},
		{
			name:   "only-the-broken-catalog-bound",
			args:   []string{"catalog", "--tools", examples, "--format", "mcp", "--page-size", "-1"},
			code:   exitUsage,
			stderr: "toolcall: --page-size -1: want a number of tools, 0 or more (see 'toolcall catalog --help')\n",
		},
		{
			name:   "only-the-flag-given-misplaced",
			args:   []string{"catalog", "--tools", examples, "--cursor", "x"},
			code:   exitUsage,
			stderr: "toolcall: --cursor applies to --format mcp only (see 'toolcall catalog --help')\n",
		},
		{
			name:   "only-the-batch-flag-given",
			args:   []string{"run", "--tools", examples, "--model-cmd", "../../testdata/models/demo-model", "--shard", "0/2", "hi"},
			code:   exitUsage,
			stderr: "toolcall: --shard needs --batch, or --replay DIR --check (see 'toolcall run --help')\n",
		},
		{
			name:     "bool-variable-says-yes",
			args:     []string{"catalog", "--tools", examples},
			env:      map[string]string{"TOOLCALL_ALLOW_UNSAFE": "yes"},
			stdoutRE: `"name":"write_file"`,
		},
		{
			name:     "ignore-variable-outside-a-check",
			args:     []string{"run", "--tools", examples, "--model-cmd", "../../testdata/models/demo-model", "What is the weather in Paris, in Fahrenheit?"},
			env:      map[string]string{"TOOLCALL_IGNORE": "system"},
			stdoutRE: `"type":"stop","reason":"final_answer"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if tt.stdoutRE == "" && stdout.Len() > 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			if tt.stdoutRE != "" && !regexp.MustCompile(tt.stdoutRE).MatchString(stdout.String()) {
				t.Errorf("stdout = %q, want a match for %q", stdout.String(), tt.stdoutRE)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr = %q\nwant     %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// TestCheckOneAsMany: a check of one recording says what a check of a
// directory says of each, on success.
func TestCheckOneAsMany(t *testing.T) {
	examples := buildExamples(t)
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/transcripts/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "demo.jsonl")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, target := range []string{file, dir} {
		var stdout, stderr bytes.Buffer
		if code := execute(context.Background(), []string{"run", "--tools", examples, "--replay", target, "--check"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("--replay %s: exit %d: %s", target, code, stderr.String())
		}
		lines[target], _, _ = strings.Cut(stderr.String(), "\n")
	}
	if lines[file] != lines[dir] || lines[file] == "" {
		t.Errorf("one recording says %q, a directory of it says %q", lines[file], lines[dir])
	}
}

// TestScratchMadePrivate: --scratch DIR, as exec --help's example gives
// it, is made when missing, readable by its owner only, since it holds
// whole tool outputs.
func TestScratchMadePrivate(t *testing.T) {
	examples := buildExamples(t)
	scratch := filepath.Join(t.TempDir(), "a", "scratch")
	var stdout, stderr bytes.Buffer
	in := `{"type":"tool_call","id":"call_1","name":"calculator","arguments":{"expression":"1+1"}}` + "\n"
	if code := execute(context.Background(), []string{"exec", "--tools", examples, "--scratch", scratch}, strings.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	fi, err := os.Stat(scratch)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("--scratch made %v, want a directory with mode 0700", fi.Mode())
	}
}

// TestCheckIgnore: a golden check leaves out what legitimately changes
// when asked, the system prompt (--ignore system) and a value in
// observations (--ignore POINTER), says so in its output, and a
// recording is refreshed with --replay FILE --record FILE.
func TestCheckIgnore(t *testing.T) {
	examples := buildExamples(t)
	data, err := os.ReadFile("../../testdata/transcripts/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// The recording of another day: the prompt worded otherwise, the
	// weather warmer.
	changed := strings.Replace(string(data), "You are a helpful assistant", "You are a careful assistant", 1)
	changed = strings.Replace(changed, `\"temperature\":18,`, `\"temperature\":21,`, 1)
	if changed == string(data) {
		t.Fatal("the demo transcript no longer holds what this test changes")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "demo.jsonl")
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := execute(context.Background(), append([]string{"run", "--tools", examples}, args...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	clearEnv(t)

	code, _, stderr := run("--replay", file, "--check")
	if code != exitFailure || !strings.Contains(stderr, "line 1: system changed") || !strings.Contains(stderr, "tool_observation call_1 (get_weather) changed") {
		t.Errorf("without --ignore: exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "toolcall: if the new run is right, make it the recording: the same command with --record "+file+" in place of --check") {
		t.Errorf("a check that fails does not say how to refresh the recording:\n%s", stderr)
	}

	code, _, stderr = run("--replay", file, "--check", "--ignore", "system")
	if code != exitFailure || strings.Contains(stderr, "system changed") || !strings.Contains(stderr, "(duration_ms and usage are not compared; nor the step events, which the recording predates; nor, as --ignore asks, system)\n") {
		t.Errorf("--ignore system: exit %d, stderr:\n%s", code, stderr)
	}

	code, _, stderr = run("--replay", file, "--check", "--ignore", "system", "--ignore", "/content/temperature")
	if want := "toolcall: the check leaves out, as --ignore asks: system, /content/temperature\nok      " + file + "\n"; code != 0 || stderr != want {
		t.Errorf("--ignore system --ignore /content/temperature: exit %d, stderr %q, want %q", code, stderr, want)
	}

	code, stdout, _ := run("--replay", dir, "--check", "--ignore", "system", "--ignore", "/content/temperature")
	if want := `{"type":"check","file":"` + file + `","status":"ok","ignored":["system","/content/temperature"]}`; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("a bulk check: exit %d, stdout %q, want %q in it", code, stdout, want)
	}

	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--replay", file, "--ignore", "system"}, "toolcall: --ignore says what --check leaves out: add --check (see 'toolcall run --help')\n"},
		{[]string{"--replay", file, "--check", "--ignore", "content"}, "toolcall: --ignore: \"content\" is neither system (the system prompt) nor a JSON pointer into observations, such as /structured_content/time (see 'toolcall run --help')\n"},
		{[]string{"--replay", file, "--check", "--ignore", "/a~2"}, "toolcall: --ignore: \"/a~2\" is not a JSON pointer: ~ must be followed by 0 or 1 (see 'toolcall run --help')\n"},
	} {
		if code, _, stderr := run(tt.args...); code != exitUsage || stderr != tt.stderr {
			t.Errorf("%q: exit %d, stderr %q, want %q", tt.args, code, stderr, tt.stderr)
		}
	}

	// Refreshed: the recording is the new run, and checks as it is.
	if code, _, stderr := run("--replay", file, "--record", file); code != 0 {
		t.Fatalf("--replay FILE --record FILE: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run("--replay", file, "--check"); code != 0 {
		t.Errorf("the refreshed recording: exit %d: %s", code, stderr)
	}
}
