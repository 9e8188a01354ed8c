//go:build unix

package run

import (
	"bytes"
	"context"
	"fmt"
	"github.com/toolcall/toolcall/tools/event"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// goOn continues the conversation recorded in path with b and the prompt,
// as run --continue path does, and writes the new transcript over path,
// as --record path does: it returns what the model was given to go on
// from, and the run's result.
func goOn(t *testing.T, path string, b Backend, opts Options, prompt string) (*Earlier, Result) {
	t.Helper()
	c, err := OpenConversation(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Accept(Input{}, opts); err != nil {
		t.Fatal(err)
	}
	earlier, err := c.Earlier(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Backend = b
	var out bytes.Buffer
	res, err := c.Continue(context.Background(), Input{Messages: []Message{{Role: "user", Content: prompt}}}, event.NewJSONL(&out), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return earlier, res
}

// sameConversation fails unless got is want, message by message.
func sameConversation(t *testing.T, what string, got, want []Message) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	for i := range max(len(got), len(want)) {
		var g, w Message
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: message %d of %d/%d differs:\ngot  %+v\nwant %+v", what, i+1, len(got), len(want), g, w)
		}
	}
}

// replayCheck replays the recording at path as run --replay path --check
// does and fails on a difference.
func replayCheck(t *testing.T, path string, opts Options) {
	t.Helper()
	rec, err := OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Setup(&opts, false); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, diff, err := rec.Replay(context.Background(), event.NewJSONL(&out), opts, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Fatalf("the replay of %s differs:\n%s", path, diff)
	}
}

// TestContinue runs a conversation, goes on with it twice, and checks
// that each time the model is given the whole conversation exactly as
// the loop had built it, and that the recording holds every turn and
// replays with --check.
func TestContinue(t *testing.T) {
	opts := Options{Catalog: loopCatalog(t), Reflect: true, MaxObservation: 8}
	opts.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")}
	path := filepath.Join(t.TempDir(), "chat.jsonl")

	// Two calls, a call that cannot be read, prose that is no answer
	// under --strict-protocol, then the answer: each goes back its way.
	strict := opts
	strict.StrictProtocol = true
	b1 := &scripted{replies: []string{
		"Checking.\n" + `{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}` + "\n" + `{"type":"tool_call","name":"add","arguments":{"a":1,"b":4}}` + "\n",
		`{"type":"tool_call","name":"add","arguments":{"a":1,` + "\n",
		"Just some prose.",
		`{"type":"final_answer","content":"18 C; 5."}`,
	}}
	rec1, res1 := runLoop(t, b1, strict, "Weather in Oslo, and 1+4?")
	if res1.Reason != StopFinalAnswer {
		t.Fatalf("first run: %+v\n%s", res1, rec1)
	}
	if err := os.WriteFile(path, []byte(rec1), 0o644); err != nil {
		t.Fatal(err)
	}

	b2 := &scripted{replies: []string{
		`{"type":"tool_call","name":"get_weather","arguments":{"city":"Bergen"}}` + "\n",
		`{"type":"final_answer","content":"Rain in Bergen too."}`,
	}}
	earlier, res2 := goOn(t, path, b2, strict, "And Bergen?")
	sameConversation(t, "the conversation read back from the first run", earlier.Messages, res1.Conversation)
	if earlier.Calls != res1.Calls {
		t.Errorf("calls read back %d, want %d", earlier.Calls, res1.Calls)
	}
	want := append(append([]Message(nil), res1.Conversation...), Message{Role: "user", Content: "And Bergen?"})
	sameConversation(t, "the first turn of the second run", b2.seen[0], want)
	if res2.Reason != StopFinalAnswer || res2.FinalAnswer != "Rain in Bergen too." {
		t.Fatalf("second run: %+v", res2)
	}

	b3 := &scripted{replies: []string{`{"type":"final_answer","content":"Both wet."}`}}
	earlier, res3 := goOn(t, path, b3, strict, "So?")
	sameConversation(t, "the conversation read back from the second run", earlier.Messages, res2.Conversation)
	sameConversation(t, "the turn of the third run", b3.seen[0], append(append([]Message(nil), res2.Conversation...), Message{Role: "user", Content: "So?"}))
	if res3.FinalAnswer != "Both wet." {
		t.Fatalf("third run: %+v", res3)
	}
	// The new call's id comes after the earlier ones (call_1 and call_2; the
	// call that could not be read had none).
	if !strings.Contains(b3.seen[0][len(b3.seen[0])-3].Content, "call_3") {
		t.Errorf("the second run's call is not call_3: %+v", b3.seen[0][len(b3.seen[0])-3])
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), rec1) {
		t.Errorf("the recording does not start with the first run's events:\n%s", data)
	}
	got := types(string(data))
	if n := strings.Count(got, "system"); n != 1 {
		t.Errorf("%d system events, want 1: %s", n, got)
	}
	if !strings.HasSuffix(got, "stop user assistant tool_call tool_observation reflection step assistant final_answer step stop user assistant final_answer step stop") {
		t.Errorf("events %s", got)
	}
	replayCheck(t, path, strict)
}

// TestContinueNative goes on with a conversation of native tool calls:
// the calls and their tool replies come back as the server had them.
func TestContinueNative(t *testing.T) {
	opts := Options{Catalog: loopCatalog(t), Native: true, ObservationRole: RoleTool}
	opts.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")}
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	b1 := &nativeScripted{turns: []nativeTurn{
		{text: "Looking.", calls: [][3]string{{"c1", "get_weather", `{"city": "Oslo"}`}, {"c2", "add", `{"a": 1,`}}},
		{text: "18 C in Oslo."},
	}}
	rec1, res1 := runLoop(t, b1, opts, "Weather in Oslo?")
	if res1.Reason != StopFinalAnswer {
		t.Fatalf("first run: %+v\n%s", res1, rec1)
	}
	if err := os.WriteFile(path, []byte(rec1), 0o644); err != nil {
		t.Fatal(err)
	}
	b2 := &scripted{replies: []string{"Warmer than Bergen."}}
	earlier, _ := goOn(t, path, b2, opts, "Is that warm?")
	sameConversation(t, "the native conversation read back", earlier.Messages, res1.Conversation)
	if m := b2.seen[0][2]; len(m.ToolCalls) != 2 || m.ToolCalls[0].ID != "c1" {
		t.Errorf("the native turn went back as %+v", m)
	}
	replayCheck(t, path, opts)

	c, err := OpenConversation(path)
	if err != nil {
		t.Fatal(err)
	}
	plain := opts
	plain.Native = false
	if err := c.Accept(Input{}, plain); err == nil || !strings.Contains(err.Error(), "--api native") {
		t.Errorf("a native recording went on without native tool calling: %v", err)
	}
}

// TestContinueAfterFailure goes on after a run whose model server failed
// mid-turn: the failed turn is not in the conversation, as it was not in
// the loop's.
func TestContinueAfterFailure(t *testing.T) {
	opts := Options{Catalog: loopCatalog(t)}
	opts.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")}
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	b1 := &nativeScripted{turns: []nativeTurn{
		{text: `{"type":"tool_call","name":"add","arguments":{"a":1,"b":4}}` + "\n"},
		{text: "The sum", err: &ProviderError{Message: "connection reset", Attempts: 1}},
	}}
	rec1, res1 := runLoop(t, b1, opts, "1+4?")
	if res1.Reason != StopProvider {
		t.Fatalf("first run: %+v\n%s", res1, rec1)
	}
	if err := os.WriteFile(path, []byte(rec1), 0o644); err != nil {
		t.Fatal(err)
	}
	b2 := &scripted{replies: []string{"5."}}
	earlier, _ := goOn(t, path, b2, opts, "Well?")
	sameConversation(t, "the conversation before the failed turn", earlier.Messages, res1.Conversation)
	replayCheck(t, path, opts)
}

// TestContinueRefuses checks what cannot be gone on from, and that each
// refusal says what is wrong.
func TestContinueRefuses(t *testing.T) {
	opts := Options{Catalog: loopCatalog(t)}
	rec, _ := runLoop(t, &scripted{replies: []string{"Hi."}}, opts, "Hello")
	lines := strings.SplitAfter(strings.TrimSpace(rec), "\n")
	for _, c := range []struct{ name, content, want string }{
		{"text", "hello\n", "not a JSON object"},
		{"empty", "", "holds no events"},
		{"no system", `{"type":"tool_call","name":"add","arguments":{}}` + "\n", `its first event is "tool_call"`},
		{"no user", lines[0], "no user event"},
		{"cut short", strings.Join(lines[:len(lines)-1], ""), "cut short mid-turn"},
		{"two runs", rec + rec, fmt.Sprintf("its event %d is a second system event", len(lines)+1)},
		{"batch", `{"request":"1","type":"system","content":"s"}` + "\n", "transcripts of a batch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.jsonl")
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := OpenConversation(path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := OpenConversation(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Continue(context.Background(), Input{Messages: []Message{{Role: "system", Content: "Be terse."}, {Role: "user", Content: "Hi"}}}, event.Discard, opts)
	if err == nil || !strings.Contains(err.Error(), "user messages only") {
		t.Errorf("a system message went on: %v", err)
	}
}

func TestLaterRequests(t *testing.T) {
	ev := func(typ, content string) []byte {
		return []byte(fmt.Sprintf(`{"type":%q,"content":%q}`, typ, content))
	}
	events := [][]byte{ev("system", "s"), ev("user", "a"), ev("assistant", "x"), ev("user", "asked"), []byte(`{"type":"stop","reason":"final_answer"}`),
		ev("user", "b"), ev("user", "c"), ev("assistant", "y"), []byte(`{"type":"stop","reason":"final_answer"}`)}
	got := LaterRequests(events)
	want := [][]Message{{{Role: "user", Content: "b"}, {Role: "user", Content: "c"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("later requests %+v, want %+v", got, want)
	}
}

// TestContinueE2E goes on with a conversation over each API against the
// fake model server: the first request of the run that goes on sends
// what the last request of the first run sent, then the model's answer
// and the new prompt, in order.
func TestContinueE2E(t *testing.T) {
	t.Parallel()
	for _, c := range []e2eCase{{"chat", true}, {"completions", true}, {"native", false}} {
		t.Run(c.api, func(t *testing.T) {
			t.Parallel()
			fake := newFakeModel()
			srv := httptest.NewServer(fake)
			defer srv.Close()
			var sleeps atomic.Int32
			b, opts := c.backend(t, srv.URL, &sleeps)
			opts.Catalog = e2eCatalog(t)
			opts.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")}
			rec, res := runLoop(t, b, opts, "What is the weather in Paris, in Fahrenheit?")
			if res.Reason != StopFinalAnswer {
				t.Fatalf("first run: %+v\n%s", res, rec)
			}
			path := filepath.Join(t.TempDir(), "chat.jsonl")
			if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
				t.Fatal(err)
			}
			goOn(t, path, b, opts, "And in Kelvin?")
			replayCheck(t, path, opts)
			reqs := fake.requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 3 and 1", len(reqs))
			}
			before, after := reqs[2], reqs[3]
			if c.api == "completions" {
				p := after.Get("prompt").Str
				want := before.Get("prompt").Str + res.FinalAnswer + "<|im_end|>\n<|im_start|>user\nAnd in Kelvin?<|im_end|>\n<|im_start|>assistant\n"
				if p != want {
					t.Errorf("the prompt went on as\n%s\nwant\n%s", p, want)
				}
				return
			}
			was, now := before.Get("messages").Array(), after.Get("messages").Array()
			if len(now) != len(was)+2 {
				t.Fatalf("%d messages, want %d and 2:\n%s", len(now), len(was), after.Get("messages").Raw)
			}
			for i, m := range was {
				if now[i].Raw != m.Raw {
					t.Errorf("message %d went as\n%s\nwant\n%s", i+1, now[i].Raw, m.Raw)
				}
			}
			if a := now[len(was)]; a.Get("role").Str != "assistant" || !strings.Contains(a.Get("content").Str, res.FinalAnswer) {
				t.Errorf("the answer went back as %s", a.Raw)
			}
			if u := now[len(was)+1]; u.Get("role").Str != "user" || u.Get("content").Str != "And in Kelvin?" {
				t.Errorf("the new prompt went as %s", u.Raw)
			}
			if c.api == "native" && before.Get("tools").Raw != after.Get("tools").Raw {
				t.Errorf("the tools offered changed:\n%s\n%s", before.Get("tools").Raw, after.Get("tools").Raw)
			}
		})
	}
}

// TestContinueRedacts checks that the earlier events are written again
// through the run's redaction, as every event is: a pattern given now
// holds for them too.
func TestContinueRedacts(t *testing.T) {
	opts := Options{Catalog: loopCatalog(t)}
	rec, _ := runLoop(t, &scripted{replies: []string{"Noted."}}, opts, "My token is tok-12345.")
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Exec.Redact = []*regexp.Regexp{regexp.MustCompile(`tok-[0-9]+`)}
	goOn(t, path, &scripted{replies: []string{"Fine."}}, opts, "Forget it.")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "tok-12345") {
		t.Errorf("the secret reached the transcript:\n%s", data)
	}
}
