package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// outcomes lists, per observation in exec's output, its id and either
// "ran" or the kind of its error.
func outcomes(out string) string {
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if gjson.Get(line, "type").Str != TypeToolObservation {
			continue
		}
		what := "ran"
		if k := gjson.Get(line, "error.kind"); k.Exists() {
			what = k.Str
		}
		got = append(got, gjson.Get(line, "id").Str+":"+what)
	}
	return strings.Join(got, " ")
}

func TestExecBudgets(t *testing.T) {
	dir := t.TempDir()
	once := shTool(t, dir, "once", "echo ran")
	once.MaxCalls = 1
	free := shTool(t, dir, "free", "echo ran")
	free.InputSchema = []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	unsafe := shTool(t, dir, "unsafe", "echo ran")
	unsafe.Safe = false
	set := execSet{"once": once, "free": free, "unsafe": unsafe}
	in := callLine("1", "once", `{}`) + callLine("2", "once", `{}`) + // the second is past once's budget
		callLine("3", "free", `{"n":"x"}`) + // refused for its arguments: costs nothing
		callLine("4", "unsafe", `{}`) + // refused by a person: costs nothing
		callLine("5", "free", `{}`) + callLine("6", "free", `{}`) + callLine("7", "free", `{}`)
	no := func(*Tool, *Call) Consent { return ConsentNo }

	out, _, err := runExec(t, context.Background(), set, in, ExecOptions{Confirm: no})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := outcomes(out), "1:ran 2:permission 3:validation 4:permission 5:ran 6:ran 7:ran"; got != want {
		t.Errorf("max_calls 1:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(out, `"content":"Tool \"once\" may be called at most 1 time in a run, and its budget is spent. Do not call it again; use another tool or answer with what you have.","is_error":true,"status":"blocked","error":{"kind":"permission","message":"tool \"once\" may be called at most 1 time in a run (max_calls), and its budget is spent","details":{"budget":"tool","max_calls":1}}`) {
		t.Errorf("the refusal does not say the tool's budget is spent:\n%s", out)
	}

	// --max-calls 3: calls 1, 5 and 6 run; 7 is past the run's budget.
	out, _, err = runExec(t, context.Background(), set, in, ExecOptions{Confirm: no, MaxCalls: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := outcomes(out), "1:ran 2:permission 3:validation 4:permission 5:ran 6:ran 7:permission"; got != want {
		t.Errorf("--max-calls 3:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(out, `"error":{"kind":"permission","message":"the run's budget of 3 tool calls (--max-calls) is spent","details":{"budget":"run","max_calls":3}}`) {
		t.Errorf("the refusal does not say the run's budget is spent:\n%s", out)
	}
}

// TestExecutorBudget: Spent says which tools are no longer worth
// offering; Check sees a spent budget without spending anything.
func TestExecutorBudget(t *testing.T) {
	dir := t.TempDir()
	twice := shTool(t, dir, "twice", "echo ran")
	twice.MaxCalls = 2
	free := shTool(t, dir, "free", "echo ran")
	x := NewExecutor(execSet{"twice": twice, "free": free}, ExecOptions{Environ: []string{"PATH=/usr/bin:/bin"}, MaxCalls: 3})
	if x.Spent(twice) || x.Spent(free) || !x.Budgeted(free) {
		t.Fatal("a budget is spent before any call")
	}
	run := func(names ...string) string {
		var calls []Call
		for _, n := range names {
			calls = append(calls, Call{Name: n})
		}
		var got []string
		if _, err := x.Run(context.Background(), calls, func(o Outcome) error {
			what := "ran"
			if o.Observation.Error != nil {
				what = string(o.Observation.Error.Kind)
			}
			got = append(got, what)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	if got := run("twice", "twice", "twice"); got != "ran ran permission" {
		t.Errorf("twice, three times: %s", got)
	}
	if !x.Spent(twice) || x.Spent(free) || x.BudgetRefusals() != 1 {
		t.Errorf("after twice's budget: Spent(twice) %v, Spent(free) %v, refusals %d", x.Spent(twice), x.Spent(free), x.BudgetRefusals())
	}
	if v := x.Check(Call{Name: "twice"}); v.Refusal == nil || v.Refusal.Error.Kind != KindPermission {
		t.Errorf("Check of a spent tool: %+v", v)
	}
	if v := x.Check(Call{Name: "free"}); v.Refusal != nil {
		t.Errorf("Check of a tool with budget left: %+v", v.Refusal)
	}
	if got := run("free", "free"); got != "ran permission" {
		t.Errorf("free past the run's budget: %s", got)
	}
	if !x.Spent(free) || x.BudgetRefusals() != 2 {
		t.Errorf("the run's budget is spent, but Spent(free) %v, refusals %d", x.Spent(free), x.BudgetRefusals())
	}
	if NewExecutor(execSet{"free": free}, ExecOptions{}).Budgeted(free) {
		t.Error("a tool without max_calls is budgeted in a run without --max-calls")
	}
}
