//go:build unix

package run

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

// The end-to-end tests run the whole loop against an HTTP server that
// behaves like a small local model which follows its prompt: it reads the
// conversation, counts the tool results it has been given, and answers
// with the next step — get_weather for Paris, then calculator on the
// temperature it was told, then an answer built from both results — in
// the syntax the request implies (a jsonl line on /chat/completions, a
// Hermes <tool_call> block on /completions, OpenAI tool_calls when the
// request carries tools). The transcripts are golden files.

// fakeModel is the fake model server. Its fields other than the
// recorded requests are set before it serves.
type fakeModel struct {
	keepTalking bool // after a call, streams invented text until the client leaves
	fail503     int  // the first fail503 requests get 503
	loops       bool // asks for the same call whatever it is told

	mu     sync.Mutex
	bodies [][]byte // every request body, in order
	gone   chan struct{}
}

func newFakeModel() *fakeModel { return &fakeModel{gone: make(chan struct{}, 16)} }

// requests returns the request bodies that reached the model (not the
// ones answered 503).
func (f *fakeModel) requests() []gjson.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []gjson.Result
	for i, b := range f.bodies {
		if i >= f.fail503 {
			out = append(out, gjson.ParseBytes(b))
		}
	}
	return out
}

func (f *fakeModel) attempts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

// fakeTurn is what the model says in one turn: text, or a native call.
type fakeTurn struct {
	text       string
	name, args string // a native call
	id         string
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	if n < f.fail503 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
		return
	}
	req := gjson.ParseBytes(body)
	completions := strings.HasSuffix(r.URL.Path, "/completions") && !strings.HasSuffix(r.URL.Path, "/chat/completions")
	native := req.Get("tools").IsArray()

	var results []string
	var promptTokens int
	switch {
	case completions:
		results, promptTokens = chatmlResults(req.Get("prompt").Str)
	case native:
		for _, m := range req.Get("messages").Array() {
			if m.Get("role").Str == "tool" {
				results = append(results, m.Get("content").Str)
			}
		}
		promptTokens = 10 * len(req.Get("messages").Array())
	default:
		for _, m := range req.Get("messages").Array() {
			if m.Get("role").Str != "user" {
				continue
			}
			for _, line := range strings.Split(m.Get("content").Str, "\n") {
				if o := gjson.Parse(line); o.Get("type").Str == tools.TypeToolObservation {
					results = append(results, o.Get("content").Str)
				}
			}
		}
		promptTokens = 10 * len(req.Get("messages").Array())
	}
	if f.loops {
		results = nil
	}

	// The model's next step.
	var turn fakeTurn
	step, args := "", ""
	switch len(results) {
	case 0:
		step, args = "get_weather", `{"city":"Paris"}`
	case 1:
		temp, _, _ := strings.Cut(results[0], " ")
		step, args = "calculator", `{"expression":"`+temp+`*9/5+32"}`
	}
	answer := fmt.Sprintf("It is %s (%s F).", resultN(results, 0), resultN(results, 1))
	switch {
	case native && step != "":
		turn = fakeTurn{name: step, args: args, id: fmt.Sprintf("fc_%d", len(results)+1)}
	case native:
		turn = fakeTurn{text: answer}
	case completions && step != "":
		turn = fakeTurn{text: "<tool_call>\n{\"name\": \"" + step + "\", \"arguments\": " + args + "}\n</tool_call>"}
	case completions:
		turn = fakeTurn{text: answer}
	case step != "":
		turn = fakeTurn{text: "I will use a tool.\n" + `{"type":"tool_call","name":"` + step + `","arguments":` + args + "}\n"}
	default:
		turn = fakeTurn{text: `{"type":"final_answer","content":"` + answer + `"}` + "\n"}
	}
	// A server cuts the text at a stop sequence; one that keeps talking
	// is a server that ignores them.
	if !f.keepTalking {
		for _, s := range req.Get("stop").Array() {
			if i := strings.Index(turn.text, s.Str); i >= 0 {
				turn.text = turn.text[:i]
			}
		}
	}
	completionTokens := (len(turn.text) + len(turn.args) + 3) / 4
	usage := fmt.Sprintf(`{"completion_tokens":%d,"prompt_tokens":%d,"total_tokens":%d}`, completionTokens, promptTokens, completionTokens+promptTokens)
	model := req.Get("model").Str

	if !req.Get("stream").Bool() {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, wholeReply(completions, model, turn, usage))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl := w.(http.Flusher)
	send := func(data string) bool {
		if _, err := io.WriteString(w, "data: "+data+"\n\n"); err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	for _, c := range streamChunks(completions, model, turn) {
		if !send(c) {
			return
		}
	}
	if f.keepTalking && step != "" {
		// Invent the tool's result, a few tokens at a time, until the
		// client goes away (or give up after a while: the test fails).
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		invented := chunks("\nObservation: it is sunny and 30 C in Paris, so the answer is that it is warm.")
		deadline := time.After(10 * time.Second)
		for i := 0; ; i++ {
			select {
			case <-r.Context().Done():
				f.gone <- struct{}{}
				return
			case <-deadline:
				return
			case <-tick.C:
			}
			piece := invented[i%len(invented)]
			var c string
			if completions {
				c = `{"model":` + jsonStr(model) + `,"choices":[{"index":0,"text":` + jsonStr(piece) + `,"finish_reason":null}]}`
			} else {
				c = `{"model":` + jsonStr(model) + `,"choices":[{"index":0,"delta":{"content":` + jsonStr(piece) + `},"finish_reason":null}]}`
			}
			if !send(c) {
				f.gone <- struct{}{}
				return
			}
		}
	}
	finish := "stop"
	if turn.name != "" {
		finish = "tool_calls"
	}
	if completions {
		send(`{"model":` + jsonStr(model) + `,"choices":[{"index":0,"text":"","finish_reason":"` + finish + `"}]}`)
	} else {
		send(`{"model":` + jsonStr(model) + `,"choices":[{"index":0,"delta":{},"finish_reason":"` + finish + `"}]}`)
	}
	send(`{"model":` + jsonStr(model) + `,"choices":[],"usage":` + usage + `}`)
	send("[DONE]")
}

func resultN(r []string, i int) string {
	if i < len(r) {
		return r[i]
	}
	return "?"
}

// chatmlResults finds the tool results in a ChatML prompt (the
// <tool_response> blocks of user turns) and counts its turns as tokens.
func chatmlResults(prompt string) ([]string, int) {
	var results []string
	for _, turn := range strings.Split(prompt, "<|im_start|>")[1:] {
		body, ok := strings.CutPrefix(turn, "user\n")
		if !ok {
			continue
		}
		for {
			_, rest, ok := strings.Cut(body, "<tool_response>\n")
			if !ok {
				break
			}
			var res string
			res, body, _ = strings.Cut(rest, "\n</tool_response>")
			results = append(results, res)
		}
	}
	return results, 10 * strings.Count(prompt, "<|im_start|>")
}

func jsonStr(s string) string { return string(jsonw.AppendString(nil, s)) }

// chunks splits text as a server streams it: a few tokens (about four
// bytes each) per chunk.
func chunks(text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(12, len(text))
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// streamChunks are the SSE data of a turn, before its finish.
func streamChunks(completions bool, model string, turn fakeTurn) []string {
	m := `{"model":` + jsonStr(model) + `,"choices":[{"index":0,`
	var out []string
	if completions {
		for _, c := range chunks(turn.text) {
			out = append(out, m+`"text":`+jsonStr(c)+`,"finish_reason":null}]}`)
		}
		return out
	}
	out = append(out, m+`"delta":{"role":"assistant","content":null},"finish_reason":null}]}`)
	for _, c := range chunks(turn.text) {
		out = append(out, m+`"delta":{"content":`+jsonStr(c)+`},"finish_reason":null}]}`)
	}
	if turn.name != "" {
		out = append(out, m+`"delta":{"tool_calls":[{"index":0,"id":`+jsonStr(turn.id)+`,"type":"function","function":{"name":`+jsonStr(turn.name)+`,"arguments":""}}]},"finish_reason":null}]}`)
		for _, c := range chunks(turn.args) {
			out = append(out, m+`"delta":{"tool_calls":[{"index":0,"function":{"arguments":`+jsonStr(c)+`}}]},"finish_reason":null}]}`)
		}
	}
	return out
}

// wholeReply is the JSON of a turn that is not streamed.
func wholeReply(completions bool, model string, turn fakeTurn, usage string) string {
	head := `{"id":"x","model":` + jsonStr(model) + `,"choices":[{"index":0,`
	tail := `}],"usage":` + usage + `}`
	if completions {
		return head + `"text":` + jsonStr(turn.text) + `,"finish_reason":"stop"` + tail
	}
	if turn.name != "" {
		return head + `"message":{"role":"assistant","content":null,"tool_calls":[{"id":` + jsonStr(turn.id) +
			`,"type":"function","function":{"name":` + jsonStr(turn.name) + `,"arguments":` + jsonStr(turn.args) + `}}]},"finish_reason":"tool_calls"` + tail
	}
	return head + `"message":{"role":"assistant","content":` + jsonStr(turn.text) + `},"finish_reason":"stop"` + tail
}

// e2eCatalog is two example-like sh tools: get_weather and calculator
// (which really computes, with awk).
func e2eCatalog(t testing.TB) *catalog.Catalog {
	return shCatalog(t, weatherTool, shTool{"calculator",
		`{"description":"Evaluate an arithmetic expression.","input_schema":{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}}`,
		`read a; e=$(echo "$a" | sed 's/.*"expression":"\([-+*\/.0-9 ()]*\)".*/\1/'); awk "BEGIN { print $e }"`})
}

type e2eCase struct {
	api    string // chat, completions or native
	stream bool
}

// backend makes the backend and the options cmd/toolcall would make for
// the case.
func (c e2eCase) backend(t *testing.T, url string, sleeps *atomic.Int32) (Backend, Options) {
	t.Helper()
	hopts := HTTPOptions{BaseURL: url + "/v1", Stream: c.stream, Sleep: func(time.Duration) { sleeps.Add(1) }, Stall: 10 * time.Second}
	opts := Options{Model: "qwen2.5-7b-instruct", MaxIterations: 5, Timeout: 30 * time.Second}
	switch c.api {
	case "completions":
		tmpl, err := Template("chatml")
		if err != nil {
			t.Fatal(err)
		}
		opts.Style, opts.ObservationRole, opts.Stop = catalog.StyleXML, RoleTool, tmpl.Stop()
		return NewCompletions(hopts, tmpl.Render), opts
	case "native":
		opts.ObservationRole, opts.Native = RoleTool, true
		return NewNative(hopts), opts
	}
	opts.ObservationRole = RoleUser
	return NewChat(hopts), opts
}

// durationField matches the volatile timings of a transcript: an event's
// duration_ms and a step's phases.
var durationField = regexp.MustCompile(`,"(duration_ms|model_ms|parse_ms|validate_ms|exec_ms)":[0-9]+`)

// e2eRun runs the loop against fake and returns the transcript without
// its durations.
func e2eRun(t *testing.T, c e2eCase, fake *fakeModel) (string, Result, int32) {
	t.Helper()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var sleeps atomic.Int32
	b, opts := c.backend(t, srv.URL, &sleeps)
	opts.Catalog = e2eCatalog(t)
	out, res := runLoop(t, b, opts, "What is the weather in Paris, in Fahrenheit?")
	return durationField.ReplaceAllString(out, ""), res, sleeps.Load()
}

func (c e2eCase) golden(suffix string) string {
	name := c.api
	if c.stream {
		name += "-stream"
	}
	return filepath.Join("testdata", "e2e", name+suffix+".jsonl")
}

func TestE2EBackends(t *testing.T) {
	t.Parallel()
	for _, c := range []e2eCase{
		{"chat", true}, {"chat", false}, {"completions", true}, {"native", true}, {"native", false},
	} {
		t.Run(strings.TrimSuffix(filepath.Base(c.golden("")), ".jsonl"), func(t *testing.T) {
			t.Parallel()
			fake := newFakeModel()
			out, res, _ := e2eRun(t, c, fake)
			golden.Check(t, c.golden(""), []byte(out))
			want := "It is 18 C and rain in Paris (64.4 F)."
			if res.Reason != StopFinalAnswer || res.Iterations != 3 || res.FinalAnswer != want {
				t.Errorf("result %+v, want a final answer %q in 3 iterations\n%s", res, want, out)
			}
			reqs := fake.requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			switch c.api {
			case "native":
				checkNativeReplay(t, reqs[1])
				// The server has finished when its calls are complete:
				// its usage, sent after the finish, is kept.
				for _, line := range strings.Split(out, "\n") {
					if gjson.Get(line, "type").Str == "assistant" && !gjson.Get(line, "usage").Exists() {
						t.Errorf("assistant turn without usage: %s", line)
					}
				}
			case "chat":
				msgs := reqs[1].Get("messages").Array()
				last := msgs[len(msgs)-1]
				if last.Get("role").Str != "user" || !strings.HasPrefix(last.Get("content").Str, `{"type":"tool_observation","id":"call_1","name":"get_weather","content":"18 C and rain in Paris"}`) {
					t.Errorf("the observation went back as %s", last.Raw)
				}
			case "completions":
				if p := reqs[1].Get("prompt").Str; !strings.HasSuffix(p, "<|im_start|>user\n<tool_response>\n18 C and rain in Paris\n</tool_response><|im_end|>\n<|im_start|>assistant\n") {
					t.Errorf("the observation went back as\n%s", p)
				}
			}
		})
	}
}

// checkNativeReplay checks that the turn after a native call gives the
// server back the assistant's tool_calls and a tool message answering
// them by id.
func checkNativeReplay(t *testing.T, req gjson.Result) {
	t.Helper()
	msgs := req.Get("messages").Array()
	if len(msgs) < 2 {
		t.Fatalf("messages %s", req.Get("messages").Raw)
	}
	asst, tool := msgs[len(msgs)-2], msgs[len(msgs)-1]
	call := asst.Get("tool_calls.0")
	if asst.Get("role").Str != "assistant" || call.Get("type").Str != "function" || call.Get("function.name").Str != "get_weather" ||
		call.Get("function.arguments").Str != `{"city":"Paris"}` || call.Get("id").Str != "fc_1" {
		t.Errorf("assistant message %s, want its tool_calls with fc_1 get_weather {\"city\":\"Paris\"} (arguments as a string)", asst.Raw)
	}
	if tool.Get("role").Str != "tool" || tool.Get("tool_call_id").Str != call.Get("id").Str || tool.Get("content").Str != "18 C and rain in Paris" {
		t.Errorf("tool message %s, want the result with tool_call_id %q", tool.Raw, call.Get("id").Str)
	}
	if !req.Get("tools").IsArray() || req.Get(`tools.#(function.name=="calculator")`).Raw == "" {
		t.Errorf("the tools were not sent again: %s", req.Get("tools").Raw)
	}
}

// TestE2EKeepsTalking: a server that streams on after the call (it
// ignores the stop sequences and invents the result) is left at once.
func TestE2EKeepsTalking(t *testing.T) {
	t.Parallel()
	c := e2eCase{"chat", true}
	fake := newFakeModel()
	fake.keepTalking = true
	out, res, _ := e2eRun(t, c, fake)
	golden.Check(t, c.golden("-keeps-talking"), []byte(out))
	if res.Reason != StopFinalAnswer || res.Iterations != 3 {
		t.Errorf("result %+v\n%s", res, out)
	}
	if strings.Contains(out, "sunny") {
		t.Errorf("the invented result reached the transcript:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if a := gjson.Parse(line); a.Get("type").Str == "assistant" && !a.Get("stopped").Bool() {
			t.Errorf("a turn was read to its end: %s", line)
		}
	}
	// Both calls' streams were closed by the client.
	for i := range 2 {
		select {
		case <-fake.gone:
		case <-time.After(5 * time.Second):
			t.Fatalf("the server did not see the client go away after call %d", i+1)
		}
	}
}

// TestE2ERetry: a 503 before the first answer is retried once, without
// waiting (Sleep), and leaves no trace in the transcript.
func TestE2ERetry(t *testing.T) {
	t.Parallel()
	c := e2eCase{"chat", true}
	fake := newFakeModel()
	fake.fail503 = 1
	out, res, sleeps := e2eRun(t, c, fake)
	golden.Check(t, c.golden(""), []byte(out))
	if res.Reason != StopFinalAnswer {
		t.Errorf("result %+v", res)
	}
	if n := fake.attempts(); n != 4 || sleeps != 1 {
		t.Errorf("%d requests and %d waits, want 4 (one retried) and 1", n, sleeps)
	}
}

// TestE2ERepeatedCall: a model that asks for the same call again whatever
// it is told is stopped.
func TestE2ERepeatedCall(t *testing.T) {
	t.Parallel()
	c := e2eCase{"chat", true}
	fake := newFakeModel()
	fake.loops = true
	out, res, _ := e2eRun(t, c, fake)
	golden.Check(t, c.golden("-repeated-call"), []byte(out))
	if res.Reason != StopRepeated || res.Iterations != 2 {
		t.Errorf("result %+v, want repeated_call after 2 iterations\n%s", res, out)
	}
	if !strings.HasSuffix(out, `{"type":"stop","reason":"repeated_call","iterations":2}`+"\n") {
		t.Errorf("transcript ends\n%s", out[max(0, len(out)-200):])
	}
}
