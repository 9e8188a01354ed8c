package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"
)

// babbler is a model server whose model knows nothing: to each request
// it sends one of a few replies, in turn, whatever was asked — a call to
// a tool it was offered, prose, a call cut short, a call to a tool that
// does not exist, or (natively) a tool_calls message — streamed or not,
// as the request asks.
func babbler(t *testing.T) *httptest.Server {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body, _ := json.Marshal(req)
		first := gjson.GetBytes(body, "tools.0.function.name").Str
		if first == "" {
			first = "no_such_tool"
		}
		var content string
		var toolCalls any
		switch n.Add(1) % 5 {
		case 0:
			content = fmt.Sprintf("<tool_call>{\"name\": %q, \"arguments\": {}}</tool_call>", first)
		case 1:
			content = "I think the answer is 42."
		case 2:
			content = `<tool_call>{"name": "calculate_`
		case 3:
			content = `{"name": "made_up_tool", "arguments": {"x": 1}}`
		case 4:
			if gjson.GetBytes(body, "tools").Exists() {
				toolCalls = []any{map[string]any{"id": "call_x", "type": "function", "function": map[string]any{"name": first, "arguments": `{"a": 1}`}}}
			} else {
				content = "¯\\_(ツ)_/¯"
			}
		}
		msg := map[string]any{"role": "assistant", "content": content}
		if toolCalls != nil {
			msg["tool_calls"] = toolCalls
		}
		if strings.HasSuffix(r.URL.Path, "/completions") && !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"text": content, "finish_reason": "stop"}}})
			return
		}
		if stream, _ := req["stream"].(bool); stream {
			w.Header().Set("Content-Type", "text/event-stream")
			delta, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": msg}}})
			fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", delta)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": msg, "finish_reason": "stop"}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Against a model that babbles, eval runs every case to the end, under
// each API, and scores whatever came: exit 0, one event per case, and a
// summary that counts them all, none of them failed to run.
func TestEvalAgainstABabblingServer(t *testing.T) {
	clearEnv(t)
	srv := babbler(t)
	for _, api := range [][]string{
		{"--api", "chat"},
		{"--api", "chat", "--no-stream"},
		{"--api", "native"},
		{"--api", "completions", "--template", "chatml"},
	} {
		t.Run(strings.Join(api, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			args := append([]string{"eval", "--base-url", srv.URL + "/v1", "--limit", "21", "--jobs", "3"}, api...)
			code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d\nstderr: %s", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if len(lines) != 22 {
				t.Fatalf("%d lines, want 21 eval events and a summary:\n%s", len(lines), stdout.String())
			}
			sum := gjson.Parse(lines[21])
			if sum.Get("type").Str != "eval_summary" || sum.Get("cases").Int() != 21 || sum.Get("failed").Int() != 0 {
				t.Errorf("summary %s", lines[21])
			}
			for _, l := range lines[:21] {
				if ev := gjson.Parse(l); ev.Get("type").Str != "eval" || ev.Get("why").Str == "error" {
					t.Errorf("event %s", l)
				}
			}
		})
	}
}
