package tools

import (
	"context"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools/redact"
)

// Executor checks and runs calls handed over as values, for a caller that
// has them as values already: run's loop, which gets them from parse. It
// lives as long as its caller's whole run, and so does what it owns: the
// consent a person gave ("[a]ll" holds for every later turn), the schema
// warnings (each said once), the redactor (built once), and the limit on
// calls in flight. Exec is the same executor behind a stream of lines:
// a call is checked, asked about, refused or run, and its observation
// worded, by the same code either way.
//
// Hooks: ExecOptions.Hooks.Before run on each call that passed its
// checks, one call at a time, and ExecOptions.Confirm after them on a
// call that needs consent (hooks.go); Started is called as each tool
// starts, from one goroutine at a time; Hooks.After run on each call that
// ran, as it ends.
//
// An Executor is not safe for concurrent use: Run is called by one
// goroutine at a time (the calls of one Run still run in parallel).
type Executor struct {
	x *executor
}

// NewExecutor makes an Executor of the tools in set, with the defaults
// of ExecOptions filled in.
func NewExecutor(set ToolSet, opts ExecOptions) *Executor {
	x := newExecutor(set, opts)
	x.values = true
	return &Executor{x: x}
}

// Redactor is the redactor every observation goes through: one for the
// Executor's life, which a caller can use for what else it writes.
func (e *Executor) Redactor() *redact.Redactor { return e.x.redactor }

// Stats counts what the Executor did over its life.
func (e *Executor) Stats() ExecStats { return e.x.stats() }

// Verdict is what checking a call decided, before anything runs or
// anyone is asked.
type Verdict struct {
	// Refusal, when not nil, answers the call instead of a result: the
	// call would not run. Call and Tool are then unset.
	Refusal *Observation
	// Call is the call as it passed: the tool's own name, and the checked
	// arguments (coerced; refs as the model wrote them).
	Call Call
	Tool *Tool
	// Consent, when not empty, says why the call runs only once a person
	// approves it (ExecOptions.Confirm, a before-hook): the policy leaves
	// it to them. Without Confirm such a call is refused instead.
	Consent string
}

// Check decides on c as Run decides before it runs anything: refused,
// and why, in the words the model will read; or passed, and whether a
// person must approve it first. It is pure: nothing runs, nobody is
// asked, no warning is given and nothing is counted, so a caller can
// check a call without changing what a later Run says or does (an id
// the call lacks is given as Run would give the next call its own). The
// before-call hooks, which may still block or rewrite a call that
// passes, are not run.
func (e *Executor) Check(c Call) Verdict {
	v := e.x.v // a copy: the counts and the warnings given stay Run's
	v.opts.Warn = nil
	v.warned = map[*Tool]bool{}
	v.stats.Calls++
	vd := v.verdict(asEncoded(c), true, v.stats.Calls, e.x.opts.Confirm != nil)
	if o := e.x.budgetRefusal(&vd); o != nil {
		vd.refusal = o
	}
	if vd.refusal != nil {
		return Verdict{Refusal: vd.refusal}
	}
	return Verdict{Call: vd.call, Tool: vd.tool, Consent: vd.consent}
}

// Outcome is what became of one call given to Run.
type Outcome struct {
	// Call is the call as it passed its checks (the tool's own name, the
	// checked arguments), or nil when it was refused: Observation then
	// answers it with why.
	Call *Call
	// Checked is the call's tool_call event as Exec writes it: as
	// checked ("validated": false when it was refused), redacted as the
	// observation is when it was refused.
	Checked     CallEvent
	Observation Observation
}

// AppendJSON appends the events that stand for the call in a stream, as
// Exec writes them: the tool_call line as checked, then the
// observation. Each line ends in a newline.
func (o *Outcome) AppendJSON(dst []byte) []byte {
	return append(o.Observation.AppendJSON(append(o.Checked.AppendJSON(dst), '\n')), '\n')
}

// Run checks each call and runs those that pass, at most
// ExecOptions.Parallel at once, and hands each outcome to emit in the
// order of calls, from Run's own goroutine. The calls are taken as the
// events that carry them say them: an id, name or format that is not
// valid UTF-8 is read as its JSON encoding would give it back, so that a
// call decided here is the call Exec decides from its line.
//
// When ctx ends, running tools are killed and answered with kind
// interrupted, no new call starts, and Run returns ctx's error once every
// started call's outcome is emitted; unread counts the calls it left
// without an outcome. An error from emit stops Run the same way: no new
// call starts, the started ones are waited for, and the error is returned.
func (e *Executor) Run(ctx context.Context, calls []Call, emit func(Outcome) error) (unread int, err error) {
	x := e.x
	pending := make([]*slot, 0, len(calls))
	// flush emits the outcomes that are ready, in order; with wait, all
	// of them, waiting for each. Once emit fails, the rest are waited
	// for (their tools are running) but not emitted.
	flush := func(wait bool) {
		for len(pending) > 0 {
			s := pending[0]
			if !wait {
				select {
				case <-s.done:
				default:
					return
				}
			}
			<-s.done
			pending = pending[1:]
			if err != nil {
				continue
			}
			o := Outcome{Checked: s.checked, Observation: s.obs}
			if s.passed != nil {
				o.Call = &s.passed.call
			}
			err = emit(o)
		}
	}
	for i, c := range calls {
		if err != nil || ctx.Err() != nil {
			unread = len(calls) - i
			break
		}
		x.v.stats.Events++
		x.v.stats.Calls++
		pending = append(pending, x.call(ctx, asEncoded(c), true, x.v.stats.Calls, nil))
		flush(false)
	}
	flush(true)
	if err == nil {
		err = ctx.Err()
	}
	return unread, err
}

// asEncoded is c as its tool_call event gives it back once read: each
// byte of an id, name, format or repair kind that is not valid UTF-8 is
// U+FFFD, as the JSON writer writes it.
func asEncoded(c Call) Call {
	c.ID, c.Name, c.Format = jsonw.ValidString(c.ID), jsonw.ValidString(c.Name), jsonw.ValidString(c.Format)
	if c.Repaired {
		cloned := false
		for i, k := range c.Repairs {
			if !utf8.ValidString(k) {
				if !cloned { // the caller's slice is not ours to change
					c.Repairs, cloned = append([]string(nil), c.Repairs...), true
				}
				c.Repairs[i] = jsonw.ValidString(k)
			}
		}
	} else {
		c.Repairs = nil // not written without Repaired, so not read back
	}
	if len(c.Arguments) == 0 {
		c.Arguments = []byte("{}")
	}
	return c
}
