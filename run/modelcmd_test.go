package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// recordSink keeps what a backend delivers; stopAfter > 0 asks the backend
// to stop once that many bytes have arrived.
type recordSink struct {
	text      strings.Builder
	pieces    int
	stopAfter int
	native    []string
}

func (s *recordSink) Text(b []byte) (bool, error) {
	s.text.Write(b)
	s.pieces++
	return s.stopAfter > 0 && s.text.Len() >= s.stopAfter, nil
}

func (s *recordSink) Reasoning(b []byte) error { return nil }

func (s *recordSink) NativeCall(id, name string, args []byte) (bool, error) {
	s.native = append(s.native, id+" "+name+" "+string(args))
	return false, nil
}

// script writes an executable sh script. The fork lock keeps a concurrent
// fork from inheriting the file open for writing ("text file busy").
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model")
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestModelCmdStdin(t *testing.T) {
	b := NewModelCmd([]string{script(t, "cat")}, 10*time.Second)
	msgs := append(append([]Message(nil), conversation...), Message{Role: "assistant", ToolCalls: nativeConversation[2].ToolCalls[:1]})
	var sink recordSink
	resp, err := b.Complete(context.Background(), &Request{Messages: msgs}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"system","content":"You are a helpful assistant with tools."}
{"type":"user","content":"What is the weather in Paris?"}
{"type":"assistant","content":"Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"}
{"type":"tool_observation","id":"call_1","name":"get_weather","content":"{\"city\":\"Paris\",\"temperature\":18,\"conditions\":\"light rain\"}"}
{"type":"user","content":"And in Fahrenheit?"}
{"type":"assistant","content":""}
{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}
`
	if got := sink.text.String(); got != want {
		t.Errorf("the program read:\n%s\nwant:\n%s", got, want)
	}
	if resp.Model != "model" || resp.Stopped || resp.FinishReason != "stop" {
		t.Errorf("response %+v, want model \"model\", finish reason stop", resp)
	}
}

// A program that keeps talking (and has a child that would) is killed as
// soon as the sink has what it needs, and its first words arrive while it
// is still running.
func TestModelCmdStopKillsGroup(t *testing.T) {
	b := NewModelCmd([]string{script(t, "echo '<tool_call>{}</tool_call>'; sleep 30 & sleep 30; echo never")}, time.Minute)
	sink := recordSink{stopAfter: 1}
	start := time.Now()
	resp, err := b.Complete(context.Background(), &Request{}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Complete took %v after the sink said stop", elapsed)
	}
	if !resp.Stopped {
		t.Error("Stopped is false")
	}
	if got := sink.text.String(); got != "<tool_call>{}</tool_call>\n" {
		t.Errorf("text %q", got)
	}
}

func TestModelCmdStopSequence(t *testing.T) {
	// Written in pieces, the stop sequence split across two writes.
	b := NewModelCmd([]string{script(t, "printf 'The answer<|im'; sleep 0.1; printf '_end|> and then I go on'; sleep 30")}, time.Minute)
	var sink recordSink
	start := time.Now()
	resp, err := b.Complete(context.Background(), &Request{Stop: []string{"<|im_end|>", "<|im_start|>"}}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if got := sink.text.String(); got != "The answer" {
		t.Errorf("text %q, want %q", got, "The answer")
	}
	if resp.FinishReason != "stop" || resp.Stopped {
		t.Errorf("response %+v, want finish reason stop, not Stopped", resp)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("the program was not killed at the stop sequence (%v)", elapsed)
	}
}

func TestStopScanner(t *testing.T) {
	const in = "abc<|eot|>def"
	for split := 0; split <= len(in); split++ {
		s := stopScanner{stops: []string{"<|eot|>", "\nUser:"}}
		var got strings.Builder
		out, hit := s.feed([]byte(in[:split]))
		got.Write(out)
		if !hit {
			out, hit = s.feed([]byte(in[split:]))
			got.Write(out)
		}
		if !hit || got.String() != "abc" {
			t.Errorf("split at %d: %q, hit %v; want \"abc\", true", split, got.String(), hit)
		}
	}
	// Text that only looks like the start of a stop sequence is released
	// when the stream ends.
	s := stopScanner{stops: []string{"<|eot|>"}}
	out, _ := s.feed([]byte("a <|eo"))
	if string(out) != "a " {
		t.Errorf("held back the wrong part: passed %q", out)
	}
	if rest := s.flush(); string(rest) != "<|eo" {
		t.Errorf("flush %q", rest)
	}
}

func TestModelCmdFailures(t *testing.T) {
	cases := []struct {
		name, body string
		timeout    time.Duration
		text       string
		want       []string
	}{
		{"exit before output", "echo 'CUDA out of memory' >&2; exit 3", 0, "", []string{"exit status 3", "before writing anything", "CUDA out of memory"}},
		{"exit after output", "printf 'The weather in'; echo 'segfault' >&2; exit 1", 0, "The weather in", []string{"exit status 1", "after writing 14 bytes", "segfault"}},
		{"timeout", "printf 'thinking'; sleep 30", 300 * time.Millisecond, "thinking", []string{"did not finish within 300ms"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewModelCmd([]string{script(t, c.body)}, c.timeout)
			var sink recordSink
			_, err := b.Complete(context.Background(), &Request{}, &sink)
			var pe *ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *ProviderError", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if got := sink.text.String(); got != c.text {
				t.Errorf("text %q, want %q", got, c.text)
			}
		})
	}

	b := NewModelCmd([]string{filepath.Join(t.TempDir(), "no-such-model")}, 0)
	_, err := b.Complete(context.Background(), &Request{}, &recordSink{})
	var pe *ProviderError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "no-such-model") {
		t.Errorf("missing program: %v, want a *ProviderError naming it", err)
	}
}

// When the caller gives up (Ctrl-C, the total timeout), the error is its
// own, so the loop can tell an interrupt from a failing model.
func TestModelCmdCanceled(t *testing.T) {
	b := NewModelCmd([]string{script(t, "sleep 30")}, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := b.Complete(ctx, &Request{}, &recordSink{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		t.Errorf("an interrupt reported as a provider error: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the program was not killed")
	}
}

// The demo model of make demo walks through its three turns.
func TestDemoModel(t *testing.T) {
	demo, err := filepath.Abs(filepath.Join("..", "testdata", "models", "demo-model"))
	if err != nil {
		t.Fatal(err)
	}
	b := NewModelCmd([]string{demo}, 10*time.Second)
	msgs := []Message{{Role: "system", Content: "You have tools."}, {Role: "user", Content: "What's the weather in Paris, in Fahrenheit?"}}
	turn := func(want string) {
		t.Helper()
		var sink recordSink
		resp, err := b.Complete(context.Background(), &Request{Messages: msgs}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Model != "demo-model" {
			t.Errorf("model %q", resp.Model)
		}
		if !strings.Contains(sink.text.String(), want) {
			t.Errorf("turn %d: %q does not contain %q", len(msgs)/2, sink.text.String(), want)
		}
		msgs = append(msgs, Message{Role: "assistant", Content: sink.text.String()})
	}
	turn(`<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
</tool_call>`)
	msgs = append(msgs, Message{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: `{"city":"Paris","temperature":18,"unit":"celsius","conditions":"light rain"}`})
	turn(`{"type":"tool_call","name":"calculator","arguments":{"expression":"18 * 9 / 5 + 32"}}`)
	msgs = append(msgs, Message{Role: "tool", ToolCallID: "call_2", Name: "calculator", Content: "64.4"})
	turn(`{"type":"final_answer","content":"It is 18 °C (64.4 °F) in Paris right now, with light rain. You may want an umbrella."}`)

	// A failed lookup ends in an apology that quotes the tool.
	msgs = msgs[:3]
	msgs = append(msgs, Message{Role: "tool", Content: "tool \"get_weather\" failed (exit status 2)"})
	turn(`{"type":"final_answer","content":"Sorry, I could not get the weather for Paris. The weather tool said: tool \"get_weather\" failed (exit status 2)"}`)
}
