package run

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcall/toolcall/internal/leaktest"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// pieces is a Backend that hands each turn's reply over in the pieces
// given (one that starts "think:" as reasoning, as a server's own
// reasoning field comes), and before each piece tells seen what is on
// screen so far.
type pieces struct {
	turns [][]string
	seen  func(turn, piece int)
	turn  int
}

func (p *pieces) Complete(_ context.Context, _ *Request, sink Sink) (Response, error) {
	if p.turn >= len(p.turns) {
		return Response{}, &ProviderError{Message: "no more replies", Attempts: 1}
	}
	t := p.turn
	p.turn++
	for i, s := range p.turns[t] {
		if p.seen != nil {
			p.seen(t, i)
		}
		if r, ok := strings.CutPrefix(s, "think:"); ok {
			if err := sink.Reasoning([]byte(r)); err != nil {
				return Response{}, err
			}
			continue
		}
		if stop, err := sink.Text([]byte(s)); err != nil || stop {
			return Response{Model: "pieces", Stopped: stop}, err
		}
	}
	return Response{Model: "pieces"}, nil
}

// screen is a writer that a test may read while the loop writes to it.
type screen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// hidden is a sink without its Live side: the view of a finished turn.
type hidden struct{ event.Sink }

// liveRun runs the loop on turns with a View as its sink, live or not,
// and returns what it showed; seen hears each piece as it is handed.
func liveRun(t *testing.T, turns [][]string, live bool, seen func(out *screen, turn, piece int)) string {
	t.Helper()
	var out screen
	v := NewView(&out, false)
	var sink event.Sink = v
	if !live {
		sink = hidden{v}
	}
	b := &pieces{turns: turns}
	if seen != nil {
		b.seen = func(turn, piece int) { seen(&out, turn, piece) }
	}
	opts := Options{Backend: b, Catalog: loopCatalog(t), OneCallPerTurn: true}
	opts.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")}
	in := Input{Messages: []Message{{Role: "user", Content: "Weather in Paris?"}}}
	if _, err := LoopSink(context.Background(), in, sink, opts); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// steady is what a view says, its lines without their indent: its
// measures (milliseconds, where a turn's time went) left out, and the line that announces an
// answer, which an answer that streamed comes without (and it comes
// indented as text is, not knowing it is the answer until it ends).
func steady(s string) string {
	s = regexp.MustCompile(`\d+ ms`).ReplaceAllString(s, "N ms")
	s = regexp.MustCompile(`(?m)^(turn \d+):.*$`).ReplaceAllString(s, "$1")
	s = regexp.MustCompile(`(?m)^answer, after \d+ iterations?:\n`).ReplaceAllString(s, "")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// TestViewLiveStreamsOnce: fed the reply in pieces, the view shows the
// model's prose and its first call as they come, and the finished turn
// does not show them again: the screen reads as the view of the
// finished run does, each piece once.
func TestViewLiveStreamsOnce(t *testing.T) {
	for _, tt := range []struct {
		name  string
		turns [][]string
		first string // on screen before the last piece of the last turn
	}{
		{
			name:  "prose answer",
			turns: [][]string{{"It ", "is ", "18 °C ", "in Paris,\n", "with ", "rain", "."}},
			first: "It is 18 °C in Paris,\n  with",
		},
		{
			name: "prose, a call, an answer",
			turns: [][]string{
				{"I'll ", "check ", "the weather.\n", `{"type":"tool_call","name":"get_weather",`, `"arguments":{"city":"Paris"}}`, "\n"},
				{"It ", "rains ", "in ", "Paris", "."},
			},
			first: "→ get_weather(city: \"Paris\")\n  ← ok",
		},
		{
			name: "a final_answer line",
			turns: [][]string{
				{"Let ", "me ", "see.\n", `{"type": "final_answer", `, `"content":"It `, `rains \"a lot\",\n\u00e9`, `\u00e9 \ud83d`, `\ude00 `, `too."}`},
			},
			first: "Let me see.\nanswer, after 1 iteration:\nIt rains \"a lot\",\néé",
		},
		{
			name: "a call, then a final_answer line",
			turns: [][]string{
				{`{"type":"tool_call","name":"get_weather",`, `"arguments":{"city":"Paris"}}`},
				{`{"type":"final_answer","content":"Rain `, `in Paris."}`},
			},
			first: "answer, after 2 iterations:\nRain",
		},
		{
			name:  "a brace that is not the answer",
			turns: [][]string{{"Try ", "{x} ", "or ", "{y}."}},
			first: "Try",
		},
		{
			name:  "prose then a bracket",
			turns: [][]string{{"Two ", "things:\n", "[1] ", "rain\n", "[2] ", "wind"}},
			first: "Two things:",
		},
		{
			name:  "reasoning, then prose",
			turns: [][]string{{"think:The user ", "think:wants the weather.\nParis ", "think:it is.", "It ", "rains."}},
			first: "thinking: The user wants the weather.\n  Paris it is.\nIt",
		},
		{
			name:  "long reasoning",
			turns: [][]string{{"think:1\n2\n3\n", "think:4\n5\n6\n7\n8\n", "Done ", "now."}},
			first: "thinking: 1\n  2\n  3\n  4\n  5\n  6\n  … 2 more lines\nDone",
		},
		{
			name:  "long reasoning, its last line open",
			turns: [][]string{{"think:1\n2\n3\n4\n5\n", "think:\n\n7\n", "think:8", "Done ", "now."}},
			first: "thinking: 1\n  2\n  3\n  4\n  5\n  \n  … 3 more lines\nDone",
		},
		{
			name:  "no spaces",
			turns: [][]string{{"巴黎", "在下雨", "。"}},
			first: "巴黎在下雨",
		},
		{
			name:  "a character cut in two",
			turns: [][]string{{"18 \xc2", "\xb0C ", "and \xe2\x98", "\x94", "."}},
			first: "18 °C and",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			last := len(tt.turns) - 1
			var before string
			streamed := liveRun(t, tt.turns, true, func(out *screen, turn, piece int) {
				if turn == last && piece == len(tt.turns[last])-1 {
					before = out.String()
				}
			})
			if !strings.Contains(before, tt.first) {
				t.Errorf("before the last piece the screen shows\n%s\nwant it to hold %q", before, tt.first)
			}
			plain := liveRun(t, tt.turns, false, nil)
			if steady(streamed) != steady(plain) {
				t.Errorf("streamed:\n%s\nthe finished turns' view:\n%s", streamed, plain)
			}
		})
	}
}

// TestViewLiveAnswerOnce: a prose answer that streamed is not shown a
// second time, as the answer, at the end.
func TestViewLiveAnswerOnce(t *testing.T) {
	out := liveRun(t, [][]string{{"It ", "rains ", "in ", "Paris."}}, true, nil)
	if n := strings.Count(out, "It rains in Paris."); n != 1 {
		t.Errorf("the answer shows %d times:\n%s", n, out)
	}
}

// TestViewLiveTimer: a tool that runs a while shows a timer line,
// rewritten in place, taken off when its result shows; the timer's
// goroutine ends with the run.
func TestViewLiveTimer(t *testing.T) {
	var out bytes.Buffer
	v := NewView(&out, false)
	v.ToolStarted("call_1", "calculator")
	v.mu.Lock()
	start := v.live.timer.running[0].since
	v.showStatus(start.Add(500 * time.Millisecond)) // too soon: nothing
	v.showStatus(start.Add(3 * time.Second))
	v.showStatus(start.Add(12 * time.Second))
	v.mu.Unlock()
	if err := v.Emit(&tools.Observation{ID: "call_1", Name: "calculator", Content: "4", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "\r  calculator … 3s\r  calculator … 12s\r                  \r  ← ok\n    4\n"
	if got := out.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	leaktest.NoGoroutine(t, "(*View).ticking")
}

// TestViewLiveTimerStopsAtFlush: a run that ends with a tool still
// running (interrupted) leaves no timer behind.
func TestViewLiveTimerStopsAtFlush(t *testing.T) {
	v := NewView(&bytes.Buffer{}, false)
	v.ToolStarted("call_1", "sleep")
	v.ToolStarted("call_2", "sleep")
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	leaktest.NoGoroutine(t, "(*View).ticking")
}

// TestViewLiveRedacts: a secret the model writes, cut across pieces,
// does not reach the screen as it streams.
func TestViewLiveRedacts(t *testing.T) {
	const key = "sk-live-9f8e7d6c5b4a39281706"
	var out screen
	v := NewView(&out, false)
	b := &pieces{turns: [][]string{{"The key ", "is sk-live-9f8e", "7d6c5b4a", "39281706 and ", "that is all ", "I know."}}}
	opts := Options{Backend: b, Catalog: loopCatalog(t)}
	opts.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")}
	opts.Exec.Secrets = []string{key}
	in := Input{Messages: []Message{{Role: "user", Content: "The key?"}}}
	if _, err := LoopSink(context.Background(), in, v, opts); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "9f8e") || strings.Contains(got, "39281706") {
		t.Errorf("the secret shows:\n%s", got)
	}
	if strings.Count(got, "that is all I know.") != 1 || !strings.Contains(got, "The key is") {
		t.Errorf("the reply does not show:\n%s", got)
	}
}

// TestViewLiveCallOnce: a call shows as soon as it is read, before its
// tool runs, and not again when the checked call comes; one after prose
// that did not stream waits for its place among the turn's events.
func TestViewLiveCallOnce(t *testing.T) {
	call := tools.Call{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}
	var out bytes.Buffer
	v := NewView(&out, false)
	v.Delta(event.TypeText, []byte("I'll check.\n"))
	v.Delta(event.TypeText, []byte(`{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris"}}`))
	v.Call(call, []byte("I'll check.\n"))
	early := out.String()
	if want := "I'll check.\n→ get_weather(city: \"Paris\")\n"; early != want {
		t.Fatalf("before the turn's events: %q, want %q", early, want)
	}
	for _, e := range []event.Event{
		&event.Assistant{Content: "…"},
		&event.TextEvent{Type: event.TypeText, Content: []byte("I'll check.\n")},
		&tools.CallEvent{Call: call},
		&tools.Observation{ID: "call_1", Name: "get_weather", Content: "rain", Status: "ok"},
	} {
		if err := v.Emit(e); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := out.String(), early+"  ← ok\n    rain\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	out.Reset()
	v = NewView(&out, false)
	v.Delta(event.TypeText, []byte("[note] first.\n"))
	v.Call(call, []byte("[note] first.\n"))
	if out.Len() != 0 {
		t.Errorf("shown before the prose it follows: %q", out.String())
	}
}
