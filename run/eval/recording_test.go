package eval

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/run"
)

// downModel is a model server that is not there.
type downModel struct{}

func (downModel) Complete(context.Context, *run.Request, run.Sink) (run.Response, error) {
	return run.Response{}, errors.New("connection refused")
}

// someCases are two cases of each bundled category, and replies to them:
// the ground truth, but no call for the first irrelevance-free one.
func someCases(t *testing.T) ([]*Case, map[string]string) {
	t.Helper()
	all, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := Select(all, Selection{Limit: 14})
	if err != nil {
		t.Fatal(err)
	}
	replies := map[string]string{}
	for i, c := range cases {
		reply := "None of these tools fits; I cannot do that."
		if !c.Irrelevant() && i != 3 {
			reply = hermes(answerCalls(c))
		}
		replies[c.Messages[len(c.Messages)-1].Content] = reply
	}
	return cases, replies
}

func evaluate(cases []*Case, opts Options) ([]Result, *Summary) {
	var results []Result
	sum := &Summary{Setting: opts.Setting}
	Evaluate(context.Background(), cases, opts, func(r Result) {
		results = append(results, r)
		sum.Add(r)
	})
	slices.SortFunc(results, func(a, b Result) int { return strings.Compare(a.Case.ID, b.Case.ID) })
	return results, sum
}

// With --out, each case leaves its transcript as a recording; run again,
// a complete recording is scored as it is, without asking the model, and
// one cut short runs again.
func TestEvaluateOutAndResume(t *testing.T) {
	cases, replies := someCases(t)
	out := t.TempDir()
	first, sum := evaluate(cases, Options{Run: run.Options{Backend: &caseModel{replies: replies}}, Jobs: 3, Out: out})
	if sum.Cases != 14 || sum.Right != 13 || sum.ByWhy[WhyNoCall] != 1 {
		t.Fatalf("first run: %d of %d right, misses %v; want 13 of 14, one no_call", sum.Right, sum.Cases, sum.ByWhy)
	}
	for _, r := range first {
		data, err := os.ReadFile(r.Recording)
		if err != nil || !bytes.Equal(data, r.Transcript) || r.Resumed {
			t.Fatalf("%s: recording %s: %v (resumed %v)", r.Case.ID, r.Recording, err, r.Resumed)
		}
	}

	cut := first[0].Recording
	data, _ := os.ReadFile(cut)
	trimmed := bytes.TrimRight(data, "\n")
	if err := os.WriteFile(cut, trimmed[:bytes.LastIndexByte(trimmed, '\n')+1], 0o644); err != nil {
		t.Fatal(err)
	}
	again, sum2 := evaluate(cases, Options{Run: run.Options{Backend: downModel{}}, Jobs: 2, Out: out})
	for i, r := range again {
		if r.Recording == cut {
			if r.Err == nil || r.Resumed {
				t.Errorf("%s: a recording cut short was not run again (err %v, resumed %v)", r.Case.ID, r.Err, r.Resumed)
			}
			continue
		}
		if !r.Resumed || r.Err != nil || r.Verdict != first[i].Verdict {
			t.Errorf("%s: resumed %v err %v verdict %+v, want the first run's %+v", r.Case.ID, r.Resumed, r.Err, r.Verdict, first[i].Verdict)
		}
	}
	if sum2.Failed != 1 || sum2.Right+sum2.ByWhy[WhyNoCall] != 13 {
		t.Errorf("resumed summary: %+v", sum2)
	}
}

// A case id that would name a file outside --out is refused for that
// case alone.
func TestEvaluateOutRefusesPathIDs(t *testing.T) {
	cases, replies := someCases(t)
	c := *cases[0]
	c.ID = "../escape"
	results, _ := evaluate([]*Case{&c}, Options{Run: run.Options{Backend: &caseModel{replies: replies}}, Out: t.TempDir()})
	if len(results) != 1 || results[0].Err == nil || !strings.Contains(results[0].Err.Error(), "cannot name a file under --out") {
		t.Fatalf("got %+v", results)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(t.TempDir()), "escape.jsonl")); err == nil {
		t.Error("a recording was written outside --out")
	}
}

// What eval writes: an eval event per case and the summary, and for a
// person the table, here for two settings side by side.
func TestEvalEventsAndTable(t *testing.T) {
	cases, replies := someCases(t)
	results, sum := evaluate(cases, Options{Run: run.Options{Backend: &caseModel{replies: replies}}, Setting: "--style json"})
	var events []byte
	for _, r := range results {
		r.Duration = 0
		events = append(r.AppendJSON(events), '\n')
	}
	sum.Duration = 0
	events = append(sum.AppendJSON(events), '\n')
	golden.Check(t, "testdata/events.jsonl", events)

	_, down := evaluate(cases[:5], Options{Run: run.Options{Backend: downModel{}}, Setting: "--api completions"})
	var table bytes.Buffer
	if err := WriteTable(&table, []*Summary{sum, down}); err != nil {
		t.Fatal(err)
	}
	if best := Best([]*Summary{down, sum}); best != sum {
		t.Errorf("recommended %q, want %q", best.Setting, sum.Setting)
	}
	table.WriteString("\n")
	if err := WriteTable(&table, []*Summary{sum}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table.txt", table.Bytes())
}
