package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplay(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "check", "recorded.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := NewReplay(f)
	if err != nil {
		t.Fatal(err)
	}
	wants := []string{
		"I'll check the current weather in Paris first.\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}\n</tool_call>\n",
		"It is 18 °C in Paris right now. Let me convert that to Fahrenheit.\n\n{\"type\":\"tool_call\",\"name\":\"calculator\",\"arguments\":{\"expression\":\"18 * 9 / 5 + 32\"}}\n",
		"{\"type\":\"final_answer\",\"content\":\"It is 18 °C (64.4 °F) in Paris right now, with light rain. You may want an umbrella.\"}\n",
	}
	for i, want := range wants {
		var sink recordSink
		resp, err := b.Complete(context.Background(), &Request{}, &sink)
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if got := sink.text.String(); got != want {
			t.Errorf("turn %d: %q, want %q", i+1, got, want)
		}
		if resp.Model != "demo-model" {
			t.Errorf("turn %d: model %q", i+1, resp.Model)
		}
		if i == 0 && string(resp.Usage) != `{"prompt_tokens":120,"completion_tokens":31}` {
			t.Errorf("turn 1: usage %s, want the recorded one", resp.Usage)
		}
		if i == 1 && resp.Usage != nil {
			t.Errorf("turn 2: usage %s, but none was recorded", resp.Usage)
		}
	}
	_, err = b.Complete(context.Background(), &Request{}, &recordSink{})
	var pe *ProviderError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "no more turns") || !strings.Contains(err.Error(), "3 assistant turns") {
		t.Errorf("after the last turn: %v, want a *ProviderError saying the recording has no more turns", err)
	}
}

func TestReplayStopAndNative(t *testing.T) {
	transcript := strings.Join([]string{
		`{"type":"user","content":"weather?"}`,
		`{"type":"assistant","content":"","model":"qwen3"}`,
		`{"type":"tool_call","id":"call_a","name":"get_weather","arguments":{"city":"Paris"},"format":"native"}`,
		`{"type":"tool_call","id":"call_a","name":"get_weather","arguments":{"city":"Paris"},"format":"native","validated":true}`,
		`{"type":"tool_call","id":"call_b","name":"get_weather","arguments":{"city":"Lyon"},"format":"native","validated":true}`,
		`{"type":"tool_observation","id":"call_a","name":"get_weather","content":"18"}`,
		`{"type":"assistant","content":"<tool_call>{\"name\":\"calculator\"}</tool_call> and more","model":"qwen3"}`,
		`{"type":"tool_call","id":"call_1","name":"calculator","arguments":{},"format":"hermes"}`,
	}, "\n")
	b, err := NewReplay(strings.NewReader(transcript))
	if err != nil {
		t.Fatal(err)
	}
	var sink recordSink
	resp, err := b.Complete(context.Background(), &Request{}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sink.native, "|"); got != `call_a get_weather {"city":"Paris"}|call_b get_weather {"city":"Lyon"}` {
		t.Errorf("native calls %q: each recorded server call once, in order", got)
	}
	if sink.text.Len() != 0 || resp.FinishReason != "tool_calls" {
		t.Errorf("text %q, finish reason %q", sink.text.String(), resp.FinishReason)
	}
	// A parsed call is not given back as a server's: the parser finds it
	// again in the text.
	sink = recordSink{stopAfter: 1}
	resp, err = b.Complete(context.Background(), &Request{}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Stopped || len(sink.native) != 0 {
		t.Errorf("stopped %v, native %q", resp.Stopped, sink.native)
	}
}

func TestReplayBadTranscript(t *testing.T) {
	_, err := NewReplay(strings.NewReader("{\"type\":\"user\"}\nnot json\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v, want one naming line 2", err)
	}
}
