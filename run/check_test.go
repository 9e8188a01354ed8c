package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/golden"
)

func recorded(t *testing.T) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "check", "recorded.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := ReadTranscript(f)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// edit returns a copy of events with line n (from 1) replaced by the
// result of f; f returning nil drops the line.
func edit(events [][]byte, n int, f func([]byte) []byte) [][]byte {
	var out [][]byte
	for i, ev := range events {
		if i+1 == n {
			ev = f(bytes.Clone(ev))
			if ev == nil {
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

func replace(old, new string) func([]byte) []byte {
	return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
}

func TestCheckMatches(t *testing.T) {
	want := recorded(t)
	if diff, ok := Check(want, want); !ok || diff != "" {
		t.Errorf("a transcript differs from itself:\n%s", diff)
	}
	// Another run: other timings and usage, keys in another order.
	got := edit(want, 3, replace(`"usage":{"prompt_tokens":120,"completion_tokens":31},"duration_ms":12`, `"duration_ms":4031,"usage":{"prompt_tokens":121}`))
	got = edit(got, 6, replace(`"duration_ms":10`, `"duration_ms":250`))
	got = edit(got, 7, replace(`,"duration_ms":9`, ``))
	got = edit(got, 13, func([]byte) []byte { return []byte(`{"iterations":3,"type":"stop","reason":"final_answer"}`) })
	if bytes.Equal(got[2], want[2]) || bytes.Equal(got[5], want[5]) {
		t.Fatal("the test did not change the volatile fields")
	}
	if diff, ok := Check(want, got); !ok {
		t.Errorf("volatile fields and key order made a difference:\n%s", diff)
	}
}

func TestCheckDiffs(t *testing.T) {
	want := recorded(t)
	long := strings.Repeat("A quiet line of a long file. ", 20)
	longWant := edit(want, 10, replace(`"content":"64.4"`, `"content":"`+long+`64.4 `+long+`"`))
	cases := map[string][][]byte{
		// The tool now answers differently.
		"changed-observation": edit(want, 6, replace(`\"temperature\":18`, `\"temperature\":19`)),
		// One more event in the middle: one extra, not a cascade.
		"extra": edit(want, 5, func(b []byte) []byte {
			return append(b, []byte("\n"+`{"type":"parse_error","error":"unexpected end","raw":"{","offset":3}`)...)
		}),
		"missing": edit(want, 9, func([]byte) []byte { return nil }),
		// A long value shows where it changed, not its beginning.
		"long-value": edit(want, 10, replace(`"content":"64.4"`, `"content":"`+long+`64.5 `+long+`"`)),
		// The run ended differently: a field absent on one side.
		"stop-reason": edit(edit(want, 13, replace(`"reason":"final_answer"`, `"reason":"max_iterations","error":"limit"`)), 12, func([]byte) []byte { return nil }),
	}
	for name, got := range cases {
		t.Run(name, func(t *testing.T) {
			got = bytes.Split(bytes.Join(got, []byte("\n")), []byte("\n"))
			want := want
			if name == "long-value" {
				want = longWant
			}
			diff, ok := Check(want, got)
			if ok {
				t.Fatal("Check found no difference")
			}
			golden.Check(t, filepath.Join("testdata", "check", name+".diff"), []byte(diff))
			if again, _ := Check(want, got); again != diff {
				t.Error("the diff is not the same twice")
			}
		})
	}
}

// A recording made before tool_call events said what repair changed
// still checks: "repairs" is compared only when the recording has it.
func TestCheckRepairs(t *testing.T) {
	want := edit(recorded(t), 5, replace(`"format":"hermes"`, `"format":"hermes","repaired":true`))
	got := edit(want, 5, replace(`"repaired":true`, `"repaired":true,"repairs":["single_quotes"]`))
	if diff, ok := Check(want, got); !ok {
		t.Errorf("a recording without repairs differs from a run with them:\n%s", diff)
	}
	if diff, ok := Check(got, got); !ok {
		t.Errorf("a transcript with repairs differs from itself:\n%s", diff)
	}
	other := edit(got, 5, replace(`"single_quotes"`, `"comment"`))
	diff, ok := Check(got, other)
	if ok || !strings.Contains(diff, `repairs`) {
		t.Errorf("other repairs than recorded make no difference:\n%s", diff)
	}
	// Where the old recording differs otherwise, the new field is not
	// shown as a difference.
	changed := edit(got, 5, replace(`"unit":"celsius"`, `"unit":"kelvin"`))
	diff, ok = Check(want, changed)
	if ok || strings.Contains(diff, "  repairs\n") || !strings.Contains(diff, `nor "repairs", which the recording predates`) {
		t.Errorf("diff against a recording without repairs:\n%s", diff)
	}
}

func TestCheckManyDifferences(t *testing.T) {
	var want, got [][]byte
	for i := range 30 {
		want = append(want, []byte(`{"type":"text","content":"same"}`))
		got = append(got, []byte(`{"type":"text","content":"other `+strings.Repeat("x", i)+`"}`))
	}
	diff, ok := Check(want, got)
	if ok {
		t.Fatal("no difference found")
	}
	if !strings.HasPrefix(diff, "the transcripts differ: 30 events changed, 0 missing, 0 extra (want 30 events, got 30)\n") {
		t.Errorf("summary: %s", diff[:strings.Index(diff, "\n")])
	}
	if !strings.Contains(diff, "… and 20 more differences not shown") || strings.Count(diff, " changed\n") != checkShown {
		t.Errorf("diff does not stop after %d differences:\n%s", checkShown, diff)
	}
}

func TestReadTranscript(t *testing.T) {
	events, err := ReadTranscript(strings.NewReader("{\"type\":\"user\"}\r\n\n{\"type\":\"stop\"}"))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || string(events[0]) != `{"type":"user"}` || string(events[1]) != `{"type":"stop"}` {
		t.Errorf("events %q", events)
	}
	_, err = ReadTranscript(strings.NewReader("{\"type\":\"user\"}\n{\"type\":\"assis\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v, want one naming line 2", err)
	}
	_, err = ReadTranscript(strings.NewReader("[1,2]\n"))
	if err == nil || !strings.Contains(err.Error(), "line 1: not a JSON object") {
		t.Errorf("error %v, want line 1: not a JSON object", err)
	}
}

// TestCheckIgnoring: what --ignore names is left out of the comparison,
// and only that: the system prompt, and JSON pointers into observations,
// through arrays, escaped keys and content that is JSON text.
func TestCheckIgnoring(t *testing.T) {
	obs := func(rest string) []byte {
		return []byte(`{"type":"tool_observation","id":"call_1","name":"t",` + rest + `}`)
	}
	tests := []struct {
		name      string
		ignore    []string
		want, got []byte
		same      bool
	}{
		{"system", []string{"system"}, []byte(`{"type":"system","content":"a"}`), []byte(`{"type":"system","content":"b"}`), true},
		{"system only its content", []string{"system"}, []byte(`{"type":"system","content":"a","api":"native"}`), []byte(`{"type":"system","content":"a"}`), false},
		{"not the user", []string{"system"}, []byte(`{"type":"user","content":"a"}`), []byte(`{"type":"user","content":"b"}`), false},
		{"a field", []string{"/structured_content/time"}, obs(`"structured_content":{"time":1,"x":2}`), obs(`"structured_content":{"time":3,"x":2}`), true},
		{"the rest still compared", []string{"/structured_content/time"}, obs(`"structured_content":{"time":1,"x":2}`), obs(`"structured_content":{"time":1,"x":5}`), false},
		{"an array element", []string{"/parts/1"}, obs(`"parts":[1,2,3]`), obs(`"parts":[1,9,3]`), true},
		{"an escaped key", []string{"/structured_content/a~1b~0c"}, obs(`"structured_content":{"a/b~c":1}`), obs(`"structured_content":{"a/b~c":2}`), true},
		{"inside JSON text", []string{"/content/at"}, obs(`"content":"{\"at\":\"10:00\",\"v\":1}"`), obs(`"content":"{\"v\":1,\"at\":\"11:00\"}"`), true},
		{"inside JSON text, the rest", []string{"/content/at"}, obs(`"content":"{\"at\":\"10:00\",\"v\":1}"`), obs(`"content":"{\"at\":\"10:00\",\"v\":2}"`), false},
		{"not in calls", []string{"/arguments/x"}, []byte(`{"type":"tool_call","id":"call_1","name":"t","arguments":{"x":1}}`), []byte(`{"type":"tool_call","id":"call_1","name":"t","arguments":{"x":2}}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ig, err := ParseIgnore(tt.ignore)
			if err != nil {
				t.Fatal(err)
			}
			diff, same := CheckIgnoring([][]byte{tt.want}, [][]byte{tt.got}, ig)
			if same != tt.same {
				t.Errorf("same = %v, want %v; diff:\n%s", same, tt.same, diff)
			}
			if !same && !strings.Contains(diff, "nor, as --ignore asks, "+strings.Join(tt.ignore, ", ")+")") {
				t.Errorf("the diff does not name what it left out:\n%s", diff)
			}
		})
	}
}
