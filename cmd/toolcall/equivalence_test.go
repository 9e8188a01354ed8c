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
		case "system", "user", "stop":
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
				case "system", "user", "assistant", "stop":
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
	} {
		t.Run(name, func(t *testing.T) {
			turnFile := filepath.Join(t.TempDir(), "turn.txt")
			writeFile(t, turnFile, turn, 0o644)
			fromRun, transcript := runEvents(t, "run", "--tools", toolsDir, "--model-cmd", model+" "+turnFile, "Set the code.")
			fromPipe := pipeline(t, []string{"parse", "--tools", toolsDir, turnFile}, toolsDir)
			if diff := cmp.Diff(fromPipe, fromRun); diff != "" {
				t.Errorf("run and parse | exec differ (-pipeline +run):\n%s", diff)
			}
			for _, line := range fromRun {
				if gjson.Get(line, "type").Str == "tool_observation" && gjson.Get(line, "is_error").Bool() {
					t.Errorf("run refused the call: %s", line)
				}
			}
			if !strings.Contains(transcript, `"validated":true`) {
				t.Errorf("no validated call in run's transcript:\n%s", transcript)
			}
		})
	}
}

// pipeline runs toolcall with parseArgs, pipes its events into exec
// --tools toolsDir, and returns exec's events without their volatile
// fields.
func pipeline(t *testing.T, parseArgs []string, toolsDir string) []string {
	t.Helper()
	var events, out, stderr bytes.Buffer
	if code := execute(context.Background(), parseArgs, strings.NewReader(""), &events, &stderr); code != 0 {
		t.Fatalf("parse exited %d: %s", code, stderr.String())
	}
	if code := execute(context.Background(), []string{"exec", "--tools", toolsDir}, &events, &out, &stderr); code != 0 {
		t.Fatalf("exec exited %d: %s", code, stderr.String())
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		lines = append(lines, volatile.ReplaceAllString(line, ""))
	}
	return lines
}
