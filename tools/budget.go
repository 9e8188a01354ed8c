package tools

import (
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
)

// Call budgets. ExecOptions.MaxCalls bounds the calls an executor runs
// over its life, all tools together (run's whole run; exec's whole
// stream); a sidecar's "max_calls" bounds the calls of its tool the same
// way. Only a call that is run (or shown by a dry run) is counted: one
// refused for any other reason costs nothing. A call past a budget is
// refused with a permission observation that says the budget is spent,
// before any before-hook runs or anyone is asked to approve it. Calls
// are counted as they are decided, in input order, so a turn of parallel
// calls is cut at the same call every time.

// budget counts the calls an executor ran against its budgets. It is
// used from the goroutine that decides calls (see executor.v).
type budget struct {
	max     int           // ExecOptions.MaxCalls; 0: none
	used    int           // calls run, all tools
	perTool map[*Tool]int // calls run, of the tools with a MaxCalls
	refused int           // calls refused for a budget
}

// spent says why a call of t would be refused for a budget, or "".
func (b *budget) spent(t *Tool) (why, content string, details []byte) {
	switch {
	case t.MaxCalls > 0 && b.perTool[t] >= t.MaxCalls:
		why = fmt.Sprintf("tool %q may be called at most %s in a run (max_calls), and its budget is spent", t.Name, phrase.Plural(t.MaxCalls, "time"))
		content = fmt.Sprintf("Tool %s may be called at most %s in a run, and its budget is spent. Do not call it again; use another tool or answer with what you have.", jsonw.Quote(t.Name), phrase.Plural(t.MaxCalls, "time"))
		details = []byte(`{"budget":"tool","max_calls":` + strconv.Itoa(t.MaxCalls) + `}`)
	case b.max > 0 && b.used >= b.max:
		why = fmt.Sprintf("the run's budget of %s (--max-calls) is spent", phrase.Plural(b.max, "tool call"))
		content = fmt.Sprintf("The budget of %s for this run is spent: no tool may be called any more. Answer with what you have.", phrase.Plural(b.max, "tool call"))
		details = []byte(`{"budget":"run","max_calls":` + strconv.Itoa(b.max) + `}`)
	}
	return why, content, details
}

// budgetRefusal is the refusal of vd, a call that passed its checks, when
// a budget is spent; nil when none is. It changes nothing.
func (x *executor) budgetRefusal(vd *verdict) *Observation {
	if vd.refusal != nil || (x.budget.max == 0 && vd.tool.MaxCalls == 0) {
		return nil
	}
	why, content, details := x.budget.spent(vd.tool)
	if why == "" {
		return nil
	}
	o := redactObservation(x.redactor, *refusal(vd.call, KindPermission, why, content, details))
	return &o
}

// overBudget refuses vd when a budget is spent, and counts the refusal.
func (x *executor) overBudget(vd *verdict) {
	if o := x.budgetRefusal(vd); o != nil {
		x.budget.refused++
		vd.refusal = o
	}
}

// charge counts a call of t that runs.
func (b *budget) charge(t *Tool) {
	if b.max > 0 {
		b.used++
	}
	if t.MaxCalls > 0 {
		if b.perTool == nil {
			b.perTool = map[*Tool]int{}
		}
		b.perTool[t]++
	}
}

// Spent reports whether a call of t would now be refused for a budget,
// its own or the run's: such a tool should no longer be offered.
func (e *Executor) Spent(t *Tool) bool {
	why, _, _ := e.x.budget.spent(t)
	return why != ""
}

// Budgeted reports whether any budget applies to t: the run's, or its own.
func (e *Executor) Budgeted(t *Tool) bool { return e.x.budget.max > 0 || t.MaxCalls > 0 }

// BudgetRefusals counts the calls refused so far because a budget was
// spent.
func (e *Executor) BudgetRefusals() int { return e.x.budget.refused }

// maxCalls reads the sidecar's "max_calls".
func (p *sidecarParser) maxCalls(s *sidecar) {
	v := s.maxCalls
	if !v.Exists() || v.Type == gjson.Null {
		return
	}
	n, err := strconv.Atoi(v.Raw)
	if v.Type != gjson.Number || err != nil || n < 1 {
		p.fail(`"max_calls" must be a whole number of calls, 1 or more, found %s; leave it out for no bound (or --deny the tool)`, phrase.Describe(v))
		return
	}
	p.t.MaxCalls = n
}
