package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcall/toolcall/run"
)

// caseModel answers each case's request with a reply of its own making,
// found by the request's last user message, a few bytes at a time.
type caseModel struct {
	mu      sync.Mutex
	replies map[string]string
}

func (m *caseModel) Complete(ctx context.Context, req *run.Request, sink run.Sink) (run.Response, error) {
	var prompt string
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			prompt = msg.Content
		}
	}
	m.mu.Lock()
	reply, ok := m.replies[prompt]
	m.mu.Unlock()
	if !ok {
		return run.Response{}, fmt.Errorf("no reply scripted for %q", prompt)
	}
	for len(reply) > 0 {
		n := min(11, len(reply))
		stop, err := sink.Text([]byte(reply[:n]))
		if err != nil {
			return run.Response{}, err
		}
		if stop {
			return run.Response{Model: "cases", Stopped: true}, nil
		}
		reply = reply[n:]
	}
	return run.Response{Model: "cases"}, nil
}

// hermes writes calls as Hermes <tool_call> blocks, after a sentence.
func hermes(calls []Call) string {
	var b strings.Builder
	b.WriteString("I will call the tools.\n")
	for _, c := range calls {
		fmt.Fprintf(&b, "<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>\n", c.Name, c.Arguments)
	}
	return b.String()
}

func evaluateAll(t *testing.T, cases []*Case, replies map[string]string) ([]Result, Summary) {
	t.Helper()
	var results []Result
	var sum Summary
	Evaluate(context.Background(), cases, Options{Run: run.Options{Backend: &caseModel{replies: replies}}, Jobs: 4}, func(r Result) {
		results = append(results, r)
		sum.Add(r)
	})
	return results, sum
}

// A model that answers every case with its ground truth, written in a
// text format, scores 100%: through the prompt, parse, validate and the
// checker, every case of testdata/bfcl.
func TestEvaluateGroundTruth(t *testing.T) {
	cases := bfclCases(t)
	replies := map[string]string{}
	for _, c := range cases {
		reply := "None of these tools fits; I cannot do that."
		if !c.Irrelevant() {
			reply = hermes(answerCalls(c))
		}
		replies[c.Messages[len(c.Messages)-1].Content] = reply
	}
	results, sum := evaluateAll(t, cases, replies)
	for _, r := range results {
		if r.Err != nil || !r.Verdict.Right {
			t.Errorf("%s: %v %s: %s\n%s", r.Case.ID, r.Err, r.Verdict.Why, r.Verdict.Reason, r.Transcript)
		}
	}
	if sum.Cases != len(cases) || sum.Right != len(cases) {
		t.Errorf("%d of %d right", sum.Right, sum.Cases)
	}
	for _, r := range results {
		if !r.Case.Irrelevant() && (len(r.Formats) != 1 || r.Formats[0] != "hermes") {
			t.Errorf("%s: formats %v, want hermes", r.Case.ID, r.Formats)
			break
		}
	}
}

// A model that makes known mistakes is scored with exactly those, each
// with its reason.
func TestEvaluateKnownMistakes(t *testing.T) {
	byID := map[string]*Case{}
	for _, c := range bfclCases(t) {
		byID[c.ID] = c
	}
	type mistake struct {
		id    string
		reply func(c *Case) string
		why   Why
	}
	mistakes := []mistake{
		{"simple_python_0", func(c *Case) string { return "The area is 25 square meters." }, WhyNoCall},
		{"simple_python_1", func(c *Case) string {
			calls := answerCalls(c)
			calls[0].Name = "math.not_this_one"
			return hermes(calls)
		}, WhyWrongFunction},
		{"simple_python_2", func(c *Case) string {
			return hermes([]Call{{Name: c.Answer[0].Name, Arguments: json.RawMessage(`{}`)}})
		}, WhyMissingArgument},
		{"multiple_0", func(c *Case) string {
			calls := answerCalls(c)
			return hermes(append(calls, calls[0]))
		}, WhyExtraCall},
		{"parallel_0", func(c *Case) string { return hermes(answerCalls(c)[:1]) }, WhyMissingCall},
		{"irrelevance_0", func(c *Case) string {
			return hermes([]Call{{Name: c.Functions[0].Name, Arguments: json.RawMessage(`{"weight": 70, "height": 1.8}`)}})
		}, WhyExtraCall},
		{"simple_python_3", func(c *Case) string {
			return "<tool_call>\n{\"name\": \"" + c.Answer[0].Name + "\", \"arguments\": {\"a\": [1, 2}\n</tool_call>\n"
		}, WhyParseError},
	}
	var cases []*Case
	replies := map[string]string{}
	want := map[string]Why{}
	for _, m := range mistakes {
		c := byID[m.id]
		if c == nil {
			t.Fatalf("no case %s", m.id)
		}
		cases = append(cases, c)
		replies[c.Messages[len(c.Messages)-1].Content] = m.reply(c)
		want[c.ID] = m.why
	}
	results, sum := evaluateAll(t, cases, replies)
	for _, r := range results {
		if r.Err != nil || r.Verdict.Right || r.Verdict.Why != want[r.Case.ID] {
			t.Errorf("%s: %v right=%v why=%s (%s), want %s\n%s", r.Case.ID, r.Err, r.Verdict.Right, r.Verdict.Why, r.Verdict.Reason, want[r.Case.ID], r.Transcript)
		}
	}
	if sum.Right != 0 || sum.Cases != len(mistakes) {
		t.Errorf("summary %+v", sum)
	}
}

// BenchmarkEvaluate is what eval adds to a model's own time, per case:
// the BFCL subset against a model that answers at once with the ground
// truth (prompt built, reply parsed, calls validated and scored).
func BenchmarkEvaluate(b *testing.B) {
	cases, err := Load("../../testdata/bfcl")
	if err != nil {
		b.Fatal(err)
	}
	replies := map[string]string{}
	for _, c := range cases {
		replies[c.Messages[len(c.Messages)-1].Content] = hermes(answerCalls(c))
	}
	model := &caseModel{replies: replies}
	b.ReportAllocs()
	for b.Loop() {
		Evaluate(context.Background(), cases, Options{Run: run.Options{Backend: model}}, func(Result) {})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cases))/1e3, "µs/case")
}

// slowModel is caseModel taking delay before each reply, as a model
// server's own time.
type slowModel struct {
	*caseModel
	delay time.Duration
}

func (m slowModel) Complete(ctx context.Context, req *run.Request, sink run.Sink) (run.Response, error) {
	time.Sleep(m.delay)
	return m.caseModel.Complete(ctx, req, sink)
}

// BenchmarkEval400 is what a user feels: 400 cases (the bundled ones,
// again under new ids) against a model that takes 25 ms a reply, the
// quickest a small local model answers, 4 at a time. overhead-% is the
// wall time past the model's own (400 × 25 ms / 4).
func BenchmarkEval400(b *testing.B) {
	bundled, err := Bundled()
	if err != nil {
		b.Fatal(err)
	}
	replies := map[string]string{}
	cases := make([]*Case, 400)
	for i := range cases {
		c := *bundled[i%len(bundled)]
		c.ID = fmt.Sprintf("%s_%d", c.ID, i)
		cases[i] = &c
		replies[c.Messages[len(c.Messages)-1].Content] = hermes(answerCalls(&c))
	}
	const delay, jobs = 25 * time.Millisecond, 4
	model := slowModel{&caseModel{replies: replies}, delay}
	for b.Loop() {
		Evaluate(context.Background(), cases, Options{Run: run.Options{Backend: model}, Jobs: jobs}, func(Result) {})
	}
	ideal := time.Duration(len(cases)) * delay / jobs
	b.ReportMetric(100*(float64(b.Elapsed())/float64(b.N)/float64(ideal)-1), "overhead-%")
}
