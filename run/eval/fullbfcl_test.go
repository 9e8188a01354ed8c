package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/run"
)

// promptModel answers each request with the reply of the case whose
// prompt it is and whose functions the system prompt offers: BFCL has
// cases that share a prompt and differ in their functions.
type promptModel struct {
	byPrompt map[string][]*Case
	reply    func(*Case) string
}

func (m *promptModel) Complete(ctx context.Context, req *run.Request, sink run.Sink) (run.Response, error) {
	system, prompt := "", ""
	for _, msg := range req.Messages {
		switch msg.Role {
		case "system":
			system = msg.Content
		case "user":
			prompt = msg.Content
		}
	}
	var reply string
	for _, c := range m.byPrompt[prompt] {
		offers := true
		for _, f := range c.Functions {
			// Offered under its name, or with its dots made underscores.
			offers = offers && (strings.Contains(system, f.Name) || strings.Contains(system, strings.ReplaceAll(f.Name, ".", "_")))
		}
		if offers {
			reply = m.reply(c)
			break
		}
	}
	if _, err := sink.Text([]byte(reply)); err != nil {
		return run.Response{}, err
	}
	return run.Response{Model: "cases"}, nil
}

// With BFCL_DATA naming a directory of BFCL's data files (the whole of
// bfcl_eval/data for the categories eval scores, with possible_answer/),
// every ground-truth answer there scores right through the whole
// pipeline, as the bundled subset's does: written as Hermes calls, read,
// validated and checked. Without it the test is skipped: the data is not
// in the repository.
func TestGroundTruthFullBFCL(t *testing.T) {
	dir := os.Getenv("BFCL_DATA")
	if dir == "" {
		t.Skip("set BFCL_DATA to a directory of BFCL's data files to run this")
	}
	cases, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	model := &promptModel{byPrompt: map[string][]*Case{}, reply: func(c *Case) string {
		if c.Irrelevant() {
			return "None of these tools fits; I cannot do that."
		}
		return hermes(answerCalls(c))
	}}
	for _, c := range cases {
		p := c.Messages[len(c.Messages)-1].Content
		model.byPrompt[p] = append(model.byPrompt[p], c)
	}
	var sum Summary
	wrong := 0
	Evaluate(t.Context(), cases, Options{Run: run.Options{Backend: model}, Jobs: 2}, func(r Result) {
		sum.Add(r)
		if (r.Err != nil || !r.Verdict.Right) && wrong < 20 {
			wrong++
			t.Errorf("%s: %v %s: %s", r.Case.ID, r.Err, r.Verdict.Why, r.Verdict.Reason)
		}
	})
	t.Logf("%d of %d cases right", sum.Right, sum.Cases)
}

// Every case's functions are in the prompt the model reads, safe or not,
// though none can run: a model told "no tools" could score nothing.
func TestEvaluateOffersTheFunctions(t *testing.T) {
	cases, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	model := &promptModel{byPrompt: map[string][]*Case{}, reply: func(*Case) string { return "offered" }}
	for _, c := range cases {
		p := c.Messages[len(c.Messages)-1].Content
		model.byPrompt[p] = append(model.byPrompt[p], c)
	}
	var missed []string
	Evaluate(t.Context(), cases, Options{Run: run.Options{Backend: model}, Jobs: 2}, func(r Result) {
		if !strings.Contains(string(r.Transcript), `"content":"offered"`) {
			missed = append(missed, r.Case.ID)
		}
	})
	if len(missed) > 0 {
		t.Errorf("%d cases' prompts lack their functions: %v", len(missed), missed)
	}
}
