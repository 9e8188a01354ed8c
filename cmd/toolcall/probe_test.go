package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// probe writes one event per check it runs and a recommendation; a server
// that answers nothing exits 0, or 1 with --fail; a bad --checks is a
// usage error.
func TestProbeCommand(t *testing.T) {
	clearEnv(t)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}]}`)
	}))
	defer chat.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer broken.Close()

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		types  string // the event types and checks, in order
		stderr string
	}{
		{"chat only", []string{"--base-url", chat.URL + "/v1", "--model", "m", "--checks", "chat,native_tools"}, 0,
			"probe:chat:ok probe:native_tools:no_tool_use recommendation::", ""},
		{"unusable", []string{"--base-url", broken.URL + "/v1", "--checks", "chat"}, 0,
			"probe:chat:error recommendation::", ""},
		{"unusable --fail", []string{"--base-url", broken.URL + "/v1", "--checks", "chat", "--fail"}, 1,
			"probe:chat:error recommendation::", "toolcall: the server is not usable: no endpoint answered\n"},
		{"bad check", []string{"--checks", "chat,speed"}, 2,
			"", "toolcall: --checks: unknown check \"speed\": choose from models, chat, completions, native_tools, constrain, prompt_mode (see 'toolcall probe --help')\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), append([]string{"probe", "--timeout", "5s"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
			var types []string
			for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
				if line == "" {
					continue
				}
				ev := gjson.Parse(line)
				types = append(types, fmt.Sprintf("%s:%s:%s", ev.Get("type").Str, ev.Get("check").Str, ev.Get("status").Str))
			}
			if code != tc.code || strings.Join(types, " ") != tc.types || stderr.String() != tc.stderr {
				t.Errorf("exit %d, events %q, stderr %q\nwant exit %d, events %q, stderr %q\nstdout:\n%s",
					code, strings.Join(types, " "), stderr.String(), tc.code, tc.types, tc.stderr, stdout.String())
			}
		})
	}
}

// On a terminal, each event is also a line for a person on stderr.
func TestProbeSummary(t *testing.T) {
	var b bytes.Buffer
	summarize(&b, []byte(`{"type":"probe","check":"native_tools","status":"leaking","format":"hermes","summary":"the call comes back as text","duration_ms":3}`))
	summarize(&b, []byte(`{"type":"recommendation","usable":true,"args":["--api","chat"],"command":"toolcall run --api chat --tools DIR PROMPT","reasons":[]}`))
	want := "native_tools  leaking      the call comes back as text\nrun with: toolcall run --api chat --tools DIR PROMPT\n"
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), want)
	}
}
