package tools

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/launch"
	"github.com/toolcall/toolcall/tools/redact"
)

// Lifecycle hooks (exec --before-call, --after-call): programs of the
// user's that see each call before it runs, and each observation before
// the model does, to allow, block or rewrite them. They are the
// executor's before- and after-hooks; the consent prompt (Confirm) is the
// last before-hook, so that a person approves the arguments that will
// run, as the hooks left them.
//
// A hook runs through the launcher as a tool does (its own process group,
// a time limit, no shell), with the scrubbed environment of a tool minus
// anything secret, and sees only what the redactor has been over: it
// never learns a secret toolcall knows. What it writes is redacted before
// it is used.
//
// Before: stdin is the validated tool_call event, one line. Exit 0 lets
// the call go on; a JSON object on stdout replaces its arguments, which
// are checked again as the model's were and recorded in the call's
// "rewritten_by". Exit 2 blocks the call: stderr is the reason, and the
// model gets a permission observation. Anything else (another status, a
// signal, the time limit, a stdout that is not an object, arguments that
// do not pass) is the hook's failure, and the call does not run (fail
// closed).
//
// After: stdin is the validated call and its observation, two lines.
// Exit 0 with text on stdout replaces the observation's content (its
// parts and structured content go with it; the observation's
// "rewritten_by" records it); exit 2 makes the observation an error whose
// message is stderr; anything else withholds the tool's output behind an
// error observation (fail closed).
//
// Hooks of each kind run in the order given, each on what the one before
// left; the first that blocks or fails ends the chain. Before-hooks run
// one call at a time, in the order of the calls; after-hooks as each call
// ends. A dry run runs no hook. A call refused before the hooks (unknown
// tool, bad arguments, policy) reaches none.

// Hook is one command run before or after each call.
type Hook struct {
	// Argv is the program and its arguments, never given to a shell; a
	// program without a slash is found through PATH.
	Argv []string
}

// Name is how the hook is named in messages and in rewritten_by: its
// words, as given.
func (h Hook) Name() string { return strings.Join(h.Argv, " ") }

// Hooks are the lifecycle hooks of an executor (ExecOptions.Hooks).
type Hooks struct {
	Before, After []Hook
	// Timeout bounds each run of a hook (DefaultHookTimeout when 0).
	Timeout time.Duration
}

// DefaultHookTimeout is how long a hook may run when Hooks.Timeout is 0.
const DefaultHookTimeout = 10 * time.Second

// The exit statuses a hook answers with; any other is its failure.
const (
	HookAllow = 0
	HookBlock = 2
)

// Hook kinds, as TOOLCALL_HOOK gives them to the hook and messages name
// them.
const (
	hookBefore = "before"
	hookAfter  = "after"
)

// dryRunNote is what a dry run says of the hooks it did not run.
func (h Hooks) dryRunNote() string {
	var b strings.Builder
	for _, side := range []struct {
		when  string
		hooks []Hook
	}{{hookBefore, h.Before}, {hookAfter, h.After}} {
		if len(side.hooks) == 0 {
			continue
		}
		names := make([]string, len(side.hooks))
		for i, hk := range side.hooks {
			names[i] = strconv.Quote(hk.Name())
		}
		fmt.Fprintf(&b, " (The %s-call hooks would run: %s.)", side.when, strings.Join(names, ", "))
	}
	return b.String()
}

// beforeCall runs the before-hooks on a call that passed its checks, in
// order, then asks a person when the policy leaves the call to one. It
// sets vd.refusal when one of them refuses the call, and replaces *vd when
// a hook rewrote the arguments; check decides on the rewritten call as
// the model's call was decided.
func (x *executor) beforeCall(ctx context.Context, vd *verdict, check func(Call) verdict) {
	if !x.opts.DryRun {
		for _, h := range x.opts.Hooks.Before {
			if x.before(ctx, h, vd, check); vd.refusal != nil {
				return
			}
		}
	}
	if vd.consent != "" && !x.consent(vd.tool, vd.call) {
		o := redactObservation(x.redactor, *permissionRefusal(vd.call, vd.consent+"; a person was asked, and said no"))
		vd.refusal = &o
	}
}

// before runs one before-hook on vd.
func (x *executor) before(ctx context.Context, h Hook, vd *verdict, check func(Call) verdict) {
	name := x.redactor.String(h.Name())
	stdin := append(x.redactor.JSON(appendValidated(nil, vd, x.redactor)), '\n')
	r := x.runHook(ctx, h, hookBefore, vd.tool, vd.call.ID, stdin, x.opts.MaxLine)
	c := vd.call
	var o *Observation
	switch {
	case r.interrupted:
		i := interrupted(&c, "the call was not started: toolcall was interrupted")
		o = &i
	case r.fault != "":
		o = hookFault(c, hookBefore, name, r.fault, r.stderr, nil)
	case r.code == HookBlock:
		o = hookBlocked(c, name, r.stderr)
	default:
		args := bytes.TrimSpace(r.stdout)
		if len(args) == 0 {
			return // allowed as it is
		}
		args = x.redactor.JSON(args)
		if !gjson.ValidBytes(args) || !gjson.ParseBytes(args).IsObject() {
			o = hookFault(c, hookBefore, name, "wrote something other than a JSON object of arguments to its standard output", r.stderr, nil)
			break
		}
		c.Arguments = args
		nv := check(c)
		if nv.refusal != nil {
			o = hookFault(c, hookBefore, name, "rewrote the arguments into ones that do not pass: "+nv.refusal.Error.Message, r.stderr, nv.refusal.Error.Details)
			break
		}
		if bytes.Equal(nv.call.Arguments, vd.call.Arguments) {
			return // the same arguments given back
		}
		nv.rewrittenBy = append(slices.Clip(vd.rewrittenBy), name)
		// What the aliases changed in the model's call stays on record.
		nv.normalized = append(slices.Clip(vd.normalized), nv.normalized...)
		*vd = nv
		return
	}
	red := redactObservation(x.redactor, *o)
	vd.refusal = &red
}

// afterCall runs the after-hooks on a call that ran and its observation
// o (redacted), and returns the observation as they leave it, redacted.
func (x *executor) afterCall(ctx context.Context, vd *verdict, o Observation) Observation {
	for _, h := range x.opts.Hooks.After {
		var done bool
		if o, done = x.after(ctx, h, vd, o); done {
			break
		}
	}
	return o
}

// after runs one after-hook; done says the chain ends here.
func (x *executor) after(ctx context.Context, h Hook, vd *verdict, o Observation) (_ Observation, done bool) {
	name := x.redactor.String(h.Name())
	stdin := append(x.redactor.JSON(appendValidated(nil, vd, x.redactor)), '\n')
	stdin = append(append(stdin, x.redactor.JSON(o.AppendJSON(nil))...), '\n')
	r := x.runHook(ctx, h, hookAfter, vd.tool, vd.call.ID, stdin, x.opts.MaxOutput)
	c := &vd.call
	switch {
	case r.interrupted:
		stopped := interrupted(c, fmt.Sprintf("the after-call hook %q was stopped: toolcall was interrupted; the tool's output is withheld", name))
		return redactObservation(x.redactor, measured(stopped, o)), true
	case r.fault != "":
		return redactObservation(x.redactor, measured(*hookFault(*c, hookAfter, name, r.fault, r.stderr, nil), o)), true
	case r.code == HookBlock:
		msg := r.stderr
		if msg == "" {
			msg = fmt.Sprintf("the after-call hook %q marked the result an error", name)
		}
		output := o.Content
		if text := hookText(r.stdout); text != "" {
			output = text
			o.Parts, o.Structured = nil, nil
			o.RewrittenBy = append(slices.Clip(o.RewrittenBy), name)
		}
		o.IsError, o.Status = true, StatusError
		o.Error = &ToolError{Kind: KindExecution, Message: msg, Details: hookDetails(name, "", nil)}
		o.Content = strings.TrimRight(msg, ".") + "." + shown("output", output)
		return redactObservation(x.redactor, o), true
	}
	if text := hookText(r.stdout); text != "" {
		o.Content = text
		o.Parts, o.Structured = nil, nil
		o.RewrittenBy = append(slices.Clip(o.RewrittenBy), name)
	}
	return redactObservation(x.redactor, o), false
}

// hookText is an after-hook's stdout as content: valid UTF-8, without the
// line ends at its end, as a tool's text is; "" when it wrote only space.
func hookText(stdout []byte) string {
	if len(bytes.TrimSpace(stdout)) == 0 {
		return ""
	}
	return strings.TrimRight(strings.ToValidUTF8(string(stdout), "\uFFFD"), "\r\n")
}

// measured is the observation of a call whose after-hook failed: what the
// run measured, none of what the tool said.
func measured(o, ran Observation) Observation {
	o.ExitCode, o.Signal, o.DurationMS, o.Attempts = ran.ExitCode, ran.Signal, ran.DurationMS, ran.Attempts
	return o
}

// hookFault answers a call whose hook failed: the call did not run (a
// before-hook), or its output is withheld (an after-hook).
func hookFault(c Call, when, name, fault, stderr string, errs []byte) *Observation {
	msg := fmt.Sprintf("the %s-call hook %q %s", when, name, fault)
	content := "T" + msg[1:] + "; the call was not run. This is not a fault of your call; you may try it again, or answer without the tool."
	if when == hookAfter {
		content = "T" + msg[1:] + "; the tool ran, but its output is withheld. This is not a fault of your call; answer without it, or try again."
	}
	return &Observation{ID: c.ID, Name: c.Name, Content: content + shown("hook stderr", stderr), IsError: true, Status: StatusError,
		Error: &ToolError{Kind: KindExecution, Message: msg, Details: hookDetails(name, stderr, errs)}}
}

// hookBlocked answers a call a before-hook blocked (exit 2).
func hookBlocked(c Call, name, reason string) *Observation {
	msg := fmt.Sprintf("the before-call hook %q blocked the call", name)
	content := "A check of the user's blocked this call"
	if reason != "" {
		msg += ": " + reason
		content += ": " + strings.TrimRight(reason, ".")
	}
	content += ". Do not make the same call again; change it as the reason says, or answer without the tool."
	return refusal(c, KindPermission, msg, content, hookDetails(name, "", nil))
}

// hookDetails is the details object of an observation a hook decided:
// the hook, its stderr, the schema errors of the arguments it wrote.
func hookDetails(name, stderr string, errs []byte) []byte {
	d := jsonw.AppendString([]byte(`{"hook":`), name)
	if stderr != "" {
		d = jsonw.AppendString(append(d, `,"stderr":`...), stderr)
	}
	if len(errs) > 0 {
		d = append(append(d, `,"errors":`...), errs...)
	}
	return append(d, '}')
}

// hookRun is how one run of a hook ended.
type hookRun struct {
	code        int    // the exit status; meaningful only without fault
	stdout      []byte // not redacted
	stderr      string // its end, redacted, trimmed
	fault       string // why it failed, worded to follow its name; "" when it exited 0 or 2
	interrupted bool   // ctx ended first
}

// runHook runs h on stdin, for the call id of t, keeping at most maxOut
// bytes of its stdout (more is a fault).
func (x *executor) runHook(ctx context.Context, h Hook, when string, t *Tool, id string, stdin []byte, maxOut int) hookRun {
	if len(h.Argv) == 0 {
		return hookRun{fault: "is empty"}
	}
	timeout := x.opts.Hooks.Timeout
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	var out bytes.Buffer
	capped := &cappedWriter{w: &out, left: int64(maxOut)}
	stderr := newStderrCapture(nil)
	res := launch.Run(ctx, launch.Spec{
		Path:     h.Argv[0],
		Args:     h.Argv[1:],
		LookPath: true,
		Dir:      x.opts.Workdir,
		Env:      x.hookEnviron(when, t, id),
		Stdin:    stdin,
		Stdout:   capped,
		Stderr:   stderr,
		Timeout:  timeout,
		Grace:    x.opts.Grace,
	})
	r := hookRun{code: res.ExitCode, stdout: out.Bytes()}
	r.stderr = strings.TrimSpace(x.redactor.Tail(strings.ToValidUTF8(string(stderr.bytes()), "\uFFFD"), stderrKeep))
	switch {
	case res.Interrupted:
		r.interrupted = true
	case res.StartErr != nil:
		r.fault = fmt.Sprintf("could not be started: %v", res.StartErr)
	case res.TimedOut:
		r.fault = fmt.Sprintf("did not finish within %v and was stopped", timeout)
	case res.Signal != "":
		r.fault = "was killed by " + res.Signal
	case res.ExitCode != HookAllow && res.ExitCode != HookBlock:
		r.fault = fmt.Sprintf("failed with exit status %d (0 allows, 2 blocks)", res.ExitCode)
	case capped.dropped > 0:
		r.fault = fmt.Sprintf("wrote more than %d bytes to its standard output", maxOut)
	}
	return r
}

// hookEnviron is a hook's environment: a tool's scrubbed one without the
// variables the tool's sidecar passes, any --env name that looks secret,
// or any variable whose value holds a secret the redactor knows;
// TOOLCALL_TOOL and TOOLCALL_CALL_ID name the call, TOOLCALL_HOOK says
// "before" or "after".
func (x *executor) hookEnviron(when string, t *Tool, id string) []string {
	var extra []string
	for _, n := range x.opts.Env {
		if !redact.SecretName(n) && n != "TOOLCALL_HOOK" {
			extra = append(extra, n)
		}
	}
	env := Environ(x.opts.Environ, &Tool{Name: t.Name}, id, extra)
	env = slices.DeleteFunc(env, func(kv string) bool { return x.redactor.String(kv) != kv })
	return append(env, "TOOLCALL_HOOK="+when)
}
