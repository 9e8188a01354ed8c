//go:build unix

package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// TestRunEqualsPipeline proves that the loop is the stages: run writes the
// same events for the model's turns as parse | exec does on the same
// turns. The turns come from a run with the scripted demo model.
func TestRunEqualsPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example tools")
	}
	examples := buildExamples(t)
	model, err := filepath.Abs(filepath.Join(moduleRoot, "testdata", "models", "demo-model"))
	if err != nil {
		t.Fatal(err)
	}
	var transcript, stderr bytes.Buffer
	code := execute(context.Background(), []string{"run", "--tools", examples, "--model-cmd", model, "What is the weather in Paris, in Fahrenheit?"},
		strings.NewReader(""), &transcript, &stderr)
	if code != 0 {
		t.Fatalf("run exited %d: %s", code, stderr.String())
	}

	// The loop's events, and the model's turns as files.
	dir := t.TempDir()
	var fromRun []string
	var turns []string
	for _, line := range strings.Split(strings.TrimSpace(transcript.String()), "\n") {
		switch gjson.Get(line, "type").Str {
		case "system", "user", "step", "stop":
		case "assistant":
			f := filepath.Join(dir, "turn"+string(rune('0'+len(turns)))+".txt")
			if err := os.WriteFile(f, []byte(gjson.Get(line, "content").Str), 0o644); err != nil {
				t.Fatal(err)
			}
			turns = append(turns, f)
		default:
			fromRun = append(fromRun, volatile.ReplaceAllString(line, ""))
		}
	}
	if len(turns) < 2 {
		t.Fatalf("the run took %d turns; want a run with calls:\n%s", len(turns), transcript.String())
	}

	// parse | exec on the same turns.
	fromPipe := pipeline(t, append([]string{"parse"}, turns...), examples)
	if diff := cmp.Diff(fromPipe, fromRun); diff != "" {
		t.Errorf("run and parse | exec differ (-pipeline +run):\n%s", diff)
	}
}

// TestRunEqualsPipelineHTTP is the same proof for the HTTP backends:
// recorded replies (event streams, and a whole JSON response) served to
// run by a fake server, and the same bodies piped through parse | exec,
// give the same events. The native replies interleave two calls' deltas.
func TestRunEqualsPipelineHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example tools")
	}
	examples := buildExamples(t)
	for _, c := range []struct {
		api   string
		turns []string
		args  []string // more flags of run
	}{
		{"chat", []string{"chat-1.sse", "chat-2.sse", "chat-3.sse"}, nil},
		{"native", []string{"native-1.sse", "native-2.json", "native-3.sse"}, nil},
		// A prompt template: the same turns, asked for on /completions.
		{"completions", []string{"chat-1.sse", "chat-2.sse", "chat-3.sse"}, []string{"--template", "chatml"}},
	} {
		t.Run(c.api, func(t *testing.T) {
			var files []string
			var bodies [][]byte
			for _, name := range c.turns {
				f := filepath.Join(moduleRoot, "testdata", "replies", name)
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				files, bodies = append(files, f), append(bodies, b)
			}
			var served atomic.Int32
			path := "/v1/chat/completions"
			if c.api == "completions" {
				path = "/v1/completions"
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != path {
					http.Error(w, "not here: "+r.URL.Path, http.StatusNotFound)
					return
				}
				n := int(served.Add(1)) - 1
				if n >= len(bodies) {
					http.Error(w, "no more recorded turns", http.StatusGone)
					return
				}
				if strings.HasSuffix(c.turns[n], ".json") {
					w.Header().Set("Content-Type", "application/json")
				} else {
					w.Header().Set("Content-Type", "text/event-stream")
				}
				w.Write(bodies[n])
			}))
			defer srv.Close()

			var transcript, stderr bytes.Buffer
			args := append([]string{"run", "--tools", examples, "--api", c.api, "--base-url", srv.URL + "/v1", "--max-iterations", "5"}, c.args...)
			code := execute(context.Background(), append(args, "What is the weather in Paris, in Fahrenheit?"), strings.NewReader(""), &transcript, &stderr)
			if code != 0 {
				t.Fatalf("run exited %d: %s\n%s", code, stderr.String(), transcript.String())
			}
			var fromRun []string
			for _, line := range strings.Split(strings.TrimSpace(transcript.String()), "\n") {
				switch gjson.Get(line, "type").Str {
				case "system", "user", "assistant", "step", "stop":
				default:
					fromRun = append(fromRun, volatile.ReplaceAllString(line, ""))
				}
			}
			if int(served.Load()) != len(bodies) {
				t.Errorf("run asked for %d turns, want %d", served.Load(), len(bodies))
			}

			fromPipe := pipeline(t, append([]string{"parse"}, files...), examples)
			if diff := cmp.Diff(fromPipe, fromRun); diff != "" {
				t.Errorf("run and parse | exec differ (-pipeline +run):\n%s", diff)
			}
		})
	}
}

// TestRunEqualsPipelineTyped is the proof for the formats that write
// argument values as bare text (Qwen3-Coder, GLM, MiniMax): a value
// "007" or "1" for a string parameter is typed by the tool's schema, in
// run as in parse --tools | exec, so the call passes validation in both.
// run once parsed without the schema's types, turned "007" into 7 and
// refused the call.
func TestRunEqualsPipelineTyped(t *testing.T) {
	dir := t.TempDir()
	toolsDir := filepath.Join(dir, "tools")
	if err := os.Mkdir(toolsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(toolsDir, "set_code"), "#!/bin/sh\ncat\n", 0o755)
	writeFile(t, filepath.Join(toolsDir, "set_code.json"), `{"description": "Set the code.", "safe": true,
		"input_schema": {"type": "object", "properties": {"code": {"type": "string"}, "count": {"type": "integer"}}, "required": ["code"]}}`, 0o644)
	// The model: its turn file first, then an answer once it has a result.
	model := filepath.Join(dir, "model")
	writeFile(t, model, "#!/bin/sh\nif grep -q '^{\"type\":\"tool_observation\"'; then echo '{\"type\":\"final_answer\",\"content\":\"The code is set.\"}'; else cat \"$1\"; fi\n", 0o755)
	for name, turn := range map[string]string{
		"qwen3_coder": "<tool_call>\n<function=set_code>\n<parameter=code>\n007\n</parameter>\n<parameter=count>\n7\n</parameter>\n</function>\n</tool_call>",
		"glm_4_5":     "<tool_call>set_code\n<arg_key>code</arg_key>\n<arg_value>1</arg_value>\n<arg_key>count</arg_key>\n<arg_value>7</arg_value>\n</tool_call>",
		"minimax_m2":  "<minimax:tool_call>\n<invoke name=\"set_code\">\n<parameter name=\"code\">0042</parameter>\n<parameter name=\"count\">7</parameter>\n</invoke>\n</minimax:tool_call>",
		// A call that fails its schema (count is no integer) before one
		// that passes: refused alike, and kept in both as written.
		"refused": "<tool_call>\n<function=set_code>\n<parameter=code>\n1\n</parameter>\n<parameter=count>\nseven\n</parameter>\n</function>\n</tool_call>\n" +
			"<tool_call>\n<function=set_code>\n<parameter=code>\n1\n</parameter>\n</function>\n</tool_call>",
	} {
		t.Run(name, func(t *testing.T) {
			turnFile := filepath.Join(t.TempDir(), "turn.txt")
			writeFile(t, turnFile, turn, 0o644)
			fromRun, transcript := runCalls(t, "run", "--tools", toolsDir, "--model-cmd", model+" "+turnFile, "Set the code.")
			fromPipe := pipeline(t, []string{"parse", "--tools", toolsDir, turnFile}, toolsDir)
			if diff := cmp.Diff(fromPipe, fromRun); diff != "" {
				t.Errorf("run and parse | exec differ (-pipeline +run):\n%s", diff)
			}
			refused := 0
			for _, line := range fromRun {
				if gjson.Get(line, "type").Str == "tool_observation" && gjson.Get(line, "is_error").Bool() {
					refused++
					if name != "refused" {
						t.Errorf("run refused the call: %s", line)
					}
				}
			}
			if name == "refused" && (refused != 1 || !strings.Contains(transcript, `"arguments":{"code":"1","count":"seven"},"format":"qwen3_coder","validated":false}`)) {
				t.Errorf("want the first call refused and kept as written:\n%s", transcript)
			}
			if !strings.Contains(transcript, `"validated":true`) {
				t.Errorf("no validated call in run's transcript:\n%s", transcript)
			}
		})
	}
}

// pipeline runs toolcall with parseArgs, pipes its events into exec
// --tools toolsDir, and returns exec's events without their volatile
// fields. It also pipes them through validate first and fails unless
// parse | validate | exec gives the same events: validate's refusals
// are passed on by exec, not answered twice.
func pipeline(t *testing.T, parseArgs []string, toolsDir string) []string {
	t.Helper()
	return pipelineExec(t, nil, parseArgs, "--tools", toolsDir)
}

// pipelineExec is pipeline with the flags of exec given; validate gets
// only their --tools. reset, when given, runs before each of the two
// execs, for tools that keep state between runs.
func pipelineExec(t *testing.T, reset func(), parseArgs []string, execArgs ...string) []string {
	t.Helper()
	var events, stderr bytes.Buffer
	if code := execute(context.Background(), parseArgs, strings.NewReader(""), &events, &stderr); code != 0 {
		t.Fatalf("parse exited %d: %s", code, stderr.String())
	}
	stage := func(args []string, in []byte) []byte {
		t.Helper()
		var out bytes.Buffer
		if code := execute(context.Background(), args, bytes.NewReader(in), &out, &stderr); code != 0 {
			t.Fatalf("%s exited %d: %s", args[0], code, stderr.String())
		}
		return out.Bytes()
	}
	validate := []string{"validate"}
	for i, a := range execArgs {
		if a == "--tools" && i+1 < len(execArgs) {
			validate = append(validate, a, execArgs[i+1])
		}
	}
	exec := append([]string{"exec"}, execArgs...)
	if reset != nil {
		reset()
	}
	out := stage(exec, events.Bytes())
	validated := stage(validate, events.Bytes())
	if reset != nil {
		reset()
	}
	viaValidate := stage(exec, validated)
	lines := func(b []byte) []string {
		var lines []string
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			lines = append(lines, volatile.ReplaceAllString(line, ""))
		}
		return lines
	}
	if diff := cmp.Diff(lines(out), lines(viaValidate)); diff != "" {
		t.Errorf("parse | exec and parse | validate | exec differ (-exec +validate):\n%s", diff)
	}
	return lines(out)
}

// TestRunEqualsPipelineHooks is the proof for the lifecycle hooks and
// retries: a turn whose calls a before-hook passes, rewrites and blocks,
// an after-hook rewrites, and one of whose tools fails once and is run
// again, gives the same events in run as in parse | exec with the same
// flags.
func TestRunEqualsPipelineHooks(t *testing.T) {
	dir := t.TempDir()
	toolsDir := filepath.Join(dir, "tools")
	if err := os.Mkdir(toolsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	schema := `"input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}`
	writeFile(t, filepath.Join(toolsDir, "echo"), "#!/bin/sh\ncat\n", 0o755)
	writeFile(t, filepath.Join(toolsDir, "echo.json"), `{"description": "Echo.", "safe": true, `+schema+`}`, 0o644)
	// flaky fails its first run, and says so; its state is reset before
	// each of the two runs compared.
	state := filepath.Join(dir, "flaky.state")
	writeFile(t, filepath.Join(toolsDir, "flaky"), "#!/bin/sh\nif [ ! -e "+state+" ]; then : > "+state+"; echo 'not yet' >&2; exit 1; fi\necho steady\n", 0o755)
	writeFile(t, filepath.Join(toolsDir, "flaky.json"), `{"description": "Flaky.", "safe": true, "retries": 2, `+schema+`}`, 0o644)
	guard := filepath.Join(dir, "guard")
	writeFile(t, guard, "#!/bin/sh\nread -r call\ncase \"$call\" in\n*forbidden*) echo 'not that one' >&2; exit 2;;\n*lower*) echo '{\"text\": \"LOWER\"}';;\nesac\n", 0o755)
	post := filepath.Join(dir, "post")
	writeFile(t, post, "#!/bin/sh\nread -r call\nread -r obs\ncase \"$obs\" in *LOWER*) echo \"seen by $TOOLCALL_HOOK\";; esac\n", 0o755)

	turn := filepath.Join(dir, "turn.txt")
	writeFile(t, turn, `<tool_call>{"name": "echo", "arguments": {"text": "plain"}}</tool_call>
<tool_call>{"name": "echo", "arguments": {"text": "lower"}}</tool_call>
<tool_call>{"name": "echo", "arguments": {"text": "forbidden"}}</tool_call>
<tool_call>{"name": "flaky", "arguments": {"text": "x"}}</tool_call>`, 0o644)
	model := filepath.Join(dir, "model")
	writeFile(t, model, "#!/bin/sh\nif grep -q '^{\"type\":\"tool_observation\"'; then echo '{\"type\":\"final_answer\",\"content\":\"done\"}'; else cat \"$1\"; fi\n", 0o755)
	hooks := []string{"--tools", toolsDir, "--before-call", guard, "--after-call", post, "--hook-timeout", "5s"}

	fromRun, _ := runCalls(t, append(append([]string{"run", "--model-cmd", model + " " + turn}, hooks...), "Go.")...)
	reset := func() {
		if err := os.Remove(state); err != nil {
			t.Fatal(err)
		}
	}
	fromPipe := pipelineExec(t, reset, []string{"parse", turn}, hooks...)
	if diff := cmp.Diff(fromPipe, fromRun); diff != "" {
		t.Errorf("run and parse | exec differ (-pipeline +run):\n%s", diff)
	}
	got := strings.Join(fromRun, "\n")
	for _, want := range []string{
		`"arguments":{"text":"LOWER"},"format":"hermes","validated":true,"rewritten_by":["` + guard + `"]`,
		`"content":"seen by after"`,
		`"kind":"permission","message":"the before-call hook \"` + guard + `\" blocked the call: not that one"`,
		`"content":"steady"`,
		`"attempts":[{"status":"error","kind":"execution","exit_code":1},{"status":"ok","exit_code":0}]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the run does not hold %s:\n%s", want, got)
		}
	}
}

// runCalls runs toolcall with args (a run that must reach its final
// answer) and returns the events of its calls, without their volatile
// fields, and the whole transcript.
func runCalls(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	var transcript, stderr bytes.Buffer
	if code := execute(context.Background(), args, strings.NewReader(""), &transcript, &stderr); code != 0 {
		t.Fatalf("run exited %d: %s\n%s", code, stderr.String(), transcript.String())
	}
	var calls []string
	for _, line := range strings.Split(strings.TrimSpace(transcript.String()), "\n") {
		switch gjson.Get(line, "type").Str {
		case "system", "user", "assistant", "step", "stop", "final_answer":
		default:
			calls = append(calls, volatile.ReplaceAllString(line, ""))
		}
	}
	return calls, transcript.String()
}
