package tools

import (
	"context"
	"sync"
)

// Caller runs calls that come one at a time rather than as a stream, such
// as the tools/call requests of an MCP client: each is checked, refused
// or run exactly as Exec checks, refuses and runs a tool_call event, with
// the same policy, limits, hooks and redaction. Nobody is asked for consent (a
// call that needs it is refused, as Exec refuses it without Confirm).
// A Caller is safe for concurrent use; at most ExecOptions.Parallel calls
// run at once, the others wait their turn.
type Caller struct {
	x  *executor
	mu sync.Mutex // guards the validator, which counts calls
}

// NewCaller makes a Caller of the tools in set. opts.Confirm is ignored.
func NewCaller(set ToolSet, opts ExecOptions) *Caller {
	opts.Confirm = nil
	return &Caller{x: newExecutor(set, opts)}
}

// Call checks and runs one call of the tool called name with args (raw
// JSON; nil or empty means no arguments, {}) and returns its observation,
// whose ID is id. When ctx is cancelled the tool's process group is
// killed and the observation says it was interrupted.
func (cl *Caller) Call(ctx context.Context, id, name string, args []byte) Observation {
	o, _ := cl.CallNormalized(ctx, id, name, args)
	return o
}

// CallNormalized is Call, and also says what the tool's aliases changed
// in the arguments of a call that passed its checks (nil: nothing), for
// the caller to record: a call's normalization is never silent.
func (cl *Caller) CallNormalized(ctx context.Context, id, name string, args []byte) (Observation, []Normalization) {
	// The call as a value, checked as Exec checks the line that would
	// carry it.
	c := asEncoded(Call{ID: id, Name: name, Arguments: args})

	cl.mu.Lock()
	cl.x.v.stats.Events++
	cl.x.v.stats.Calls++
	n := cl.x.v.stats.Calls
	vd := cl.x.v.redacted(cl.x.v.decideCall(c, true, n, false))
	cl.mu.Unlock()
	if vd.refusal == nil {
		// The hooks run outside the lock; the arguments one rewrites are
		// checked under it, as the call's were.
		cl.x.beforeCall(ctx, &vd, func(c Call) verdict {
			cl.mu.Lock()
			defer cl.mu.Unlock()
			return cl.x.v.redacted(cl.x.v.decideCall(c, true, n, false))
		})
	}
	if vd.refusal != nil {
		return *vd.refusal, nil
	}
	ns := vd.normalized
	// As Exec does: everything an observation says is redacted, not only
	// the tool's output, since an error may quote the arguments.
	if cl.x.opts.DryRun {
		return redactObservation(cl.x.redactor, cl.x.dryRun(&vd)), ns
	}
	select {
	case cl.x.running <- struct{}{}:
	case <-ctx.Done():
		return redactObservation(cl.x.redactor, interrupted(&vd.call, "the call was not started: it was cancelled")), ns
	}
	defer func() { <-cl.x.running }()
	return cl.x.afterCall(ctx, &vd, redactObservation(cl.x.redactor, cl.x.run(ctx, &vd))), ns
}
