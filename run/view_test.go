package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/tools/event"
)

// viewed renders a transcript as View does when fed it in pieces of size
// n, so that a line cut between writes is covered too.
func viewed(t *testing.T, data []byte, color bool, n int) string {
	t.Helper()
	var out bytes.Buffer
	v := NewView(&out, color)
	for len(data) > 0 {
		k := min(n, len(data))
		if _, err := v.Write(data[:k]); err != nil {
			t.Fatal(err)
		}
		data = data[k:]
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// viewedValues renders a transcript as View does when the loop hands it
// the events as values (Emit).
func viewedValues(t *testing.T, data []byte) string {
	t.Helper()
	var out bytes.Buffer
	v := NewView(&out, false)
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := event.DecodeEvent(line)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Emit(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestViewGolden renders the bundled transcripts, plain and coloured;
// go test -update rewrites testdata/view after a change to read.
func TestViewGolden(t *testing.T) {
	files, _ := filepath.Glob("../testdata/transcripts/*.jsonl")
	e2e, _ := filepath.Glob("testdata/e2e/*.jsonl")
	files = append(files, e2e...)
	if len(files) < 2 {
		t.Fatalf("found %d transcripts", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			plain := viewed(t, data, false, len(data))
			golden.Check(t, filepath.Join("testdata", "view", name+".txt"), []byte(plain))
			if got := viewed(t, data, false, 7); got != plain {
				t.Errorf("fed 7 bytes at a time:\n%s\nwant\n%s", got, plain)
			}
			if got := viewedValues(t, data); got != plain {
				t.Errorf("fed as values:\n%s\nwant\n%s", got, plain)
			}
			color := viewed(t, data, true, len(data))
			golden.Check(t, filepath.Join("testdata", "view", name+".color.txt"), []byte(color))
			if strings.Contains(plain, "\x1b") {
				t.Error("the plain rendering holds an escape")
			}
		})
	}
}

// TestViewEscapes: what the model, a tool or a recording says cannot
// reach the terminal as a control sequence, and cannot start a line of
// its own at the left margin.
func TestViewEscapes(t *testing.T) {
	in := `{"type":"text","content":"hi\u001b]0;owned\u0007\nline two"}
{"type":"tool_call","id":"call_1","name":"x\u001b[2J","arguments":{"k\u001b":"v\u001b[31m"}}
{"type":"tool_observation","id":"call_1","name":"x","content":"out\u001b[1A\n\u009b2J","status":"ok","is_error":false}
{"type":"reasoning","content":"think\u001bc"}
{"type":"final_answer","content":"done\u001b[0m\nsecond"}
{"type":"stop","reason":"final_answer\u001b","iterations":1}
not json` + "\x1b[2J\n"
	for _, color := range []bool{false, true} {
		got := viewed(t, []byte(in), color, len(in))
		check := got
		if color {
			// Only the view's own SGR codes may be there.
			for _, c := range []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[36m"} {
				check = strings.ReplaceAll(check, c, "")
			}
		}
		if strings.ContainsAny(check, "\x1b\x07\u009b") {
			t.Errorf("color %v: a control byte reached the output:\n%q", color, got)
		}
		for _, l := range strings.Split(strings.TrimSuffix(check, "\n"), "\n") {
			if l == "second" || l == "line two" {
				continue // the model's own lines, under its text
			}
			if strings.HasPrefix(l, "toolcall") {
				t.Errorf("a line passes for toolcall's: %q", l)
			}
		}
	}
}

// TestViewAnswerLast: the answer is shown after everything else, even
// when the stream ends without a stop event.
func TestViewAnswerLast(t *testing.T) {
	in := "{\"type\":\"final_answer\",\"content\":\"42\"}\n{\"type\":\"step\",\"iteration\":1}\n"
	got := viewed(t, []byte(in), false, len(in))
	if got != "42\n" {
		t.Errorf("got %q, want the answer alone", got)
	}
	in = "{\"type\":\"final_answer\",\"content\":\"42\"}\n{\"type\":\"stop\",\"reason\":\"final_answer\",\"iterations\":2}"
	got = viewed(t, []byte(in), false, 5)
	if want := "answer, after 2 iterations:\n42\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestViewDirectlyAnswer: Command R's directly_answer shows as what it
// means, not as the model's prose.
func TestViewDirectlyAnswer(t *testing.T) {
	in := `{"type":"text","content":"Plan: answer directly.\n"}
{"type":"text","content":"{\"tool_name\":\"directly_answer\",\"parameters\":{}}","format":"command_r_action"}
`
	if got, want := viewed(t, []byte(in), false, len(in)), "Plan: answer directly.\ndirectly_answer: no tool needed (command_r_action)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestViewBatch: in a batch every line of a request's events, its answer
// included, says whose it is, and the totals come last.
func TestViewBatch(t *testing.T) {
	in := `{"request":"a","type":"user","content":"hi"}
{"request":"a","type":"final_answer","content":"hello\nthere"}
{"request":"a","type":"stop","reason":"final_answer","iterations":1}
{"request":"a","type":"summary","reason":"final_answer","iterations":1,"calls":0,"duration_ms":3}
{"type":"batch","requests":1,"final_answer":1,"failed":0,"calls":0,"duration_ms":3}
`
	want := `[a] user: hi
[a] answer, after 1 iteration:
[a] hello
[a] there
[a] done: final_answer, 1 iteration, 0 calls
batch: 1 requests, 1 final_answer
`
	if got := viewed(t, []byte(in), false, len(in)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestViewBatchAnswerOnce: prose taken as the answer comes as text and
// as final_answer; in a batch too it is shown once, as the answer, while
// prose that is not the answer keeps its line behind its request's id
// (issue 41, trip 10).
func TestViewBatchAnswerOnce(t *testing.T) {
	in := `{"request":"a","type":"text","content":"Let me look.\n"}
{"request":"a","type":"tool_call","id":"call_1","name":"f","arguments":{}}
{"request":"a","type":"text","content":"It is 4.\n"}
{"request":"a","type":"final_answer","content":"It is 4."}
{"request":"a","type":"stop","reason":"final_answer","iterations":2}
{"request":"b","type":"text","content":"It is 4.\n"}
{"request":"b","type":"final_answer","content":"It is 4."}
{"request":"b","type":"stop","reason":"final_answer","iterations":1}
`
	got := viewed(t, []byte(in), false, len(in))
	if n := strings.Count(got, "It is 4."); n != 2 {
		t.Errorf("the two answers shown %d times:\n%s", n, got)
	}
	if !strings.Contains(got, "[a] Let me look.\n") {
		t.Errorf("the prose before the call is not shown behind its id:\n%s", got)
	}
}
