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
	var events, out bytes.Buffer
	if code := execute(context.Background(), append([]string{"parse"}, turns...), strings.NewReader(""), &events, &stderr); code != 0 {
		t.Fatalf("parse exited %d: %s", code, stderr.String())
	}
	if code := execute(context.Background(), []string{"exec", "--tools", examples}, &events, &out, &stderr); code != 0 {
		t.Fatalf("exec exited %d: %s", code, stderr.String())
	}
	var fromPipe []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		fromPipe = append(fromPipe, volatile.ReplaceAllString(line, ""))
	}
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
	}{
		{"chat", []string{"chat-1.sse", "chat-2.sse", "chat-3.sse"}},
		{"native", []string{"native-1.sse", "native-2.json", "native-3.sse"}},
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
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
			code := execute(context.Background(), []string{"run", "--tools", examples, "--api", c.api, "--base-url", srv.URL + "/v1",
				"--max-iterations", "5", "What is the weather in Paris, in Fahrenheit?"}, strings.NewReader(""), &transcript, &stderr)
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

			var events, out bytes.Buffer
			if code := execute(context.Background(), append([]string{"parse"}, files...), strings.NewReader(""), &events, &stderr); code != 0 {
				t.Fatalf("parse exited %d: %s", code, stderr.String())
			}
			if code := execute(context.Background(), []string{"exec", "--tools", examples}, &events, &out, &stderr); code != 0 {
				t.Fatalf("exec exited %d: %s", code, stderr.String())
			}
			var fromPipe []string
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				fromPipe = append(fromPipe, volatile.ReplaceAllString(line, ""))
			}
			if diff := cmp.Diff(fromPipe, fromRun); diff != "" {
				t.Errorf("run and parse | exec differ (-pipeline +run):\n%s", diff)
			}
		})
	}
}
