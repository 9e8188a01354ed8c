package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// modelServer is a fake model server with the behaviour of one kind of
// server: what it lists, what it does with tools, which constraints it
// honours, and whether its model follows toolcall's prompt.
type modelServer struct {
	owner      string // owned_by in /v1/models
	ollamaTags bool   // serves Ollama's /api/tags
	// native is what a request with tools gets: "calls" (native
	// tool_calls), "leak" (the call as Hermes text in content), "text", or
	// "reject" (HTTP 400, as vLLM without --enable-auto-tool-choice).
	native         string
	responseFormat bool // honours response_format on chat
	jsonSchema     bool // honours json_schema on completions (llama.cpp)
	grammar        bool // honours grammar on completions (llama.cpp)
	noCompletions  bool // 404 on /completions
	promptCalls    bool // the model writes calls as toolcall's prompt asks
	echoKey        bool // the leaked content holds the Authorization header
	// thinking: a request with tools gets reasoning only, cut off at the
	// token limit.
	thinking bool
}

// The servers the probe is tested against, as they behave by default.
var (
	llamaServer = modelServer{owner: "llamacpp", native: "calls", responseFormat: true, jsonSchema: true, grammar: true, promptCalls: true}
	vllmServer  = modelServer{owner: "vllm", native: "reject", responseFormat: true, promptCalls: true}
	ollamaV1    = modelServer{owner: "library", ollamaTags: true, native: "calls", responseFormat: true, promptCalls: true}
	leakyServer = modelServer{owner: "llamacpp", native: "leak", promptCalls: true}
)

func (m modelServer) start(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	return srv
}

func (m modelServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := gjson.ParseBytes(body)
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		fmt.Fprintf(w, `{"object":"list","data":[{"id":"m1","object":"model","owned_by":%q},{"id":"m2","object":"model","owned_by":%q}]}`, m.owner, m.owner)
	case r.Method == http.MethodGet && r.URL.Path == "/api/tags" && m.ollamaTags:
		fmt.Fprint(w, `{"models":[{"name":"m1"},{"name":"m3"}]}`)
	case r.URL.Path == "/v1/chat/completions":
		m.chat(w, r, req)
	case r.URL.Path == "/v1/completions" && !m.noCompletions:
		text := " OK"
		switch {
		case req.Get("json_schema").Exists():
			text = `{"hello": "world"}`
			if m.jsonSchema {
				text = `{"answer":"` + probeEnum + `"}`
			}
		case req.Get("grammar").Exists():
			text = "hello"
			if m.grammar {
				text = probeGrammar
			}
		}
		choice, _ := json.Marshal(map[string]any{"text": text, "finish_reason": "stop"})
		writeReply(w, req, `{"choices":[`+string(choice)+`]}`, `{"choices":[{"text":`+jsonQuote(text)+`}]}`)
	default:
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
	}
}

const hermesCall = "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1234, \"b\": 4321}}\n</tool_call>"

func (m modelServer) chat(w http.ResponseWriter, r *http.Request, req gjson.Result) {
	system := req.Get(`messages.#(role=="system").content`).String()
	content := "OK"
	var calls string
	switch {
	case req.Get("tools").Exists() && m.thinking:
		writeReply(w, req, `{"choices":[{"message":{"role":"assistant","content":"","reasoning_content":"Let me think about 1234 and"},"finish_reason":"length"}]}`, "")
		return
	case req.Get("tools").Exists():
		switch m.native {
		case "calls":
			content, calls = "", `[{"id":"c1","type":"function","function":{"name":"add","arguments":"{\"a\":1234,\"b\":4321}"}}]`
		case "leak":
			content = hermesCall
			if m.echoKey {
				content += " " + r.Header.Get("Authorization")
			}
		case "reject":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"}}`)
			return
		default:
			content = "1234 + 4321 = 5555."
		}
	case req.Get("response_format").Exists():
		content = `{"hello": "world"}`
		if m.responseFormat {
			content = `{"answer": "` + probeEnum + `"}`
		}
	case m.promptCalls && strings.Contains(system, `{"type":"tool_call","name":"TOOL_NAME"`):
		content = `{"type":"tool_call","name":"add","arguments":{"a":1234,"b":4321}}`
	case m.promptCalls && strings.Contains(system, "<tool_call>"):
		content = hermesCall
	case m.promptCalls && strings.Contains(system, "```json"):
		content = "```json\n{\"name\": \"add\", \"arguments\": {\"a\": 1234, \"b\": 4321}}\n```"
	case system != "":
		content = "5555"
	}
	msg := `{"role":"assistant","content":` + jsonQuote(content)
	delta := `{"content":` + jsonQuote(content) + `}`
	if calls != "" {
		msg += `,"tool_calls":` + calls
		delta = `{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"add","arguments":"{\"a\":1234,\"b\":4321}"}}]}`
	}
	writeReply(w, req, `{"model":"m1","choices":[{"message":`+msg+`},"finish_reason":"stop"}]}`, `{"choices":[{"delta":`+delta+`}]}`)
}

// writeReply writes whole as JSON, or for a streamed request chunk as one
// event of a stream that then finishes.
func writeReply(w http.ResponseWriter, req gjson.Result, whole, chunk string) {
	if !req.Get("stream").Bool() {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, whole)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", chunk)
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// probe runs Probe against url and returns the events by type and check.
func probe(t *testing.T, opts ProbeOptions) (map[string]gjson.Result, Recommendation) {
	t.Helper()
	events := map[string]gjson.Result{}
	rec, err := Probe(context.Background(), opts, func(ev []byte) error {
		t.Logf("%s", ev)
		if !gjson.ValidBytes(ev) || strings.Contains(string(ev), "\n") {
			t.Errorf("event is not one line of JSON: %s", ev)
		}
		g := gjson.ParseBytes(ev)
		key := g.Get("check").String()
		if key == "" {
			key = g.Get("type").String()
		}
		events[key] = g
		return nil
	})
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	return events, rec
}

// TestProbeServers checks what the probe finds out about each kind of
// server, and what it recommends.
func TestProbeServers(t *testing.T) {
	type want struct {
		server, native, format, constrain, styles string
		args                                      []string
	}
	for _, tc := range []struct {
		name string
		srv  modelServer
		want want
	}{
		{"llama-server", llamaServer, want{
			server: "llama.cpp", native: "supported",
			constrain: "honoured honoured honoured", styles: "call call call",
			args: []string{"--model", "m1", "--api", "native"},
		}},
		{"vllm", vllmServer, want{
			server: "vllm", native: "rejected",
			constrain: "honoured ignored ignored", styles: "call call call",
			args: []string{"--model", "m1", "--api", "chat", "--style", "jsonl", "--constrain"},
		}},
		{"ollama", ollamaV1, want{
			server: "ollama", native: "supported",
			constrain: "honoured ignored ignored", styles: "call call call",
			args: []string{"--model", "m1", "--api", "native"},
		}},
		{"leaking", leakyServer, want{
			server: "llama.cpp", native: "leaking", format: "hermes",
			constrain: "ignored ignored ignored", styles: "call call call",
			args: []string{"--model", "m1", "--api", "chat", "--style", "jsonl"},
		}},
		{"plain model, no completions", modelServer{native: "text", noCompletions: true}, want{
			native: "no_tool_use", constrain: "ignored skipped skipped", styles: "no_call no_call no_call",
			args: []string{"--model", "m1", "--api", "chat"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv.start(t)
			ev, rec := probe(t, ProbeOptions{HTTP: HTTPOptions{BaseURL: srv.URL + "/v1"}, Timeout: 10 * time.Second})
			got := want{
				server:    ev[CheckModels].Get("server").String(),
				native:    ev[CheckNativeTools].Get("status").String(),
				format:    ev[CheckNativeTools].Get("format").String(),
				constrain: ev[CheckConstrain].Get("response_format").String() + " " + ev[CheckConstrain].Get("json_schema").String() + " " + ev[CheckConstrain].Get("grammar").String(),
				styles:    ev[CheckPromptMode].Get("styles.jsonl.result").String() + " " + ev[CheckPromptMode].Get("styles.xml.result").String() + " " + ev[CheckPromptMode].Get("styles.markdown.result").String(),
				args:      rec.Args[2:], // after --base-url URL
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if s := ev[CheckChat].Get("status").String(); s != "ok" {
				t.Errorf("chat status %q, want ok: %s", s, ev[CheckChat].Raw)
			}
			if !ev[CheckChat].Get("first_token_ms").Exists() {
				t.Errorf("chat has no first_token_ms: %s", ev[CheckChat].Raw)
			}
			if !rec.Usable || !strings.HasPrefix(rec.Command(), "toolcall run --base-url "+srv.URL+"/v1 --model m1 --api ") {
				t.Errorf("recommendation %+v, command %q", rec, rec.Command())
			}
			if len(rec.Reasons) == 0 || ev["recommendation"].Get("command").String() != rec.Command() {
				t.Errorf("recommendation event %s", ev["recommendation"].Raw)
			}
		})
	}
}

func TestProbeModels(t *testing.T) {
	srv := ollamaV1.start(t)
	base := HTTPOptions{BaseURL: srv.URL + "/v1"}
	ev, _ := probe(t, ProbeOptions{HTTP: base, Checks: []string{CheckModels}})
	if got, want := ev[CheckModels].Get("models").Raw, `["m1","m2","m3"]`; got != want {
		t.Errorf("models %s, want %s (Ollama's /api/tags added to /v1/models)", got, want)
	}
	ev, _ = probe(t, ProbeOptions{HTTP: base, Model: "m3", Checks: []string{CheckModels}})
	if s, m := ev[CheckModels].Get("status").String(), ev[CheckModels].Get("model").String(); s != "ok" || m != "m3" {
		t.Errorf("--model m3: status %q model %q", s, m)
	}
	ev, _ = probe(t, ProbeOptions{HTTP: base, Model: "nope", Checks: []string{CheckModels}})
	if s := ev[CheckModels].Get("status").String(); s != "partial" {
		t.Errorf("--model nope: status %q, want partial: %s", s, ev[CheckModels].Raw)
	}
	if len(ev) != 2 {
		t.Errorf("--checks models wrote %d events, want the check and the recommendation", len(ev))
	}
}

// A server that never answers costs each check its timeout and no more;
// one that fails is reported, and not usable.
func TestProbeFailuresAreData(t *testing.T) {
	over := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server sees the client go only once the body is read.
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-over:
		}
	}))
	defer hang.Close()
	defer close(over)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"model failed to load"}}`, http.StatusInternalServerError)
	}))
	defer broken.Close()
	for name, url := range map[string]string{"hang": hang.URL, "broken": broken.URL} {
		t.Run(name, func(t *testing.T) {
			ev, rec := probe(t, ProbeOptions{HTTP: HTTPOptions{BaseURL: url + "/v1"}, Timeout: 100 * time.Millisecond})
			for _, c := range ProbeChecks {
				s := ev[c].Get("status").String()
				if s != "error" && s != "skipped" {
					t.Errorf("%s: status %q, want error or skipped: %s", c, s, ev[c].Raw)
				}
			}
			if e := ev[CheckChat].Get("error").String(); name == "hang" && !strings.Contains(e, "no answer within 100ms") ||
				name == "broken" && !strings.Contains(e, "model failed to load") {
				t.Errorf("chat error %q", e)
			}
			if rec.Usable || ev["recommendation"].Get("usable").Bool() {
				t.Errorf("a server that never answered is usable: %+v", rec)
			}
		})
	}
}

func TestProbeRedactsTheKey(t *testing.T) {
	srv := modelServer{owner: "llamacpp", native: "leak", echoKey: true}.start(t)
	const key = "sk-probe-0123456789abcdef0123456789"
	var out strings.Builder
	_, err := Probe(context.Background(), ProbeOptions{HTTP: HTTPOptions{BaseURL: srv.URL + "/v1", APIKey: key}, Checks: []string{CheckNativeTools}}, func(ev []byte) error {
		out.Write(ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), key) || !strings.Contains(out.String(), `"status":"leaking"`) {
		t.Errorf("the key reached the output, or the leak was not seen:\n%s", out.String())
	}
}

func TestProbeRejectsUnknownChecks(t *testing.T) {
	_, err := Probe(context.Background(), ProbeOptions{Checks: []string{"models", "speed"}}, func([]byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `unknown check "speed"`) {
		t.Errorf("err = %v", err)
	}
}

// A reply that ran out of tokens before its call says so.
func TestProbeNamesACutOffReply(t *testing.T) {
	srv := modelServer{native: "text", thinking: true}.start(t)
	ev, _ := probe(t, ProbeOptions{HTTP: HTTPOptions{BaseURL: srv.URL + "/v1"}, Checks: []string{CheckNativeTools}})
	if s, sum := ev[CheckNativeTools].Get("status").String(), ev[CheckNativeTools].Get("summary").String(); s != "no_tool_use" || !strings.Contains(sum, "token limit") {
		t.Errorf("status %q, summary %q: want no_tool_use, naming the token limit", s, sum)
	}
}
