package tools

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// Retries (a sidecar's "retries", exec --retries for the others): a
// safe tool that ran out of time, exited with a non-zero status or was
// killed by a signal is run again, at most its number of retries, after
// a wait that doubles each time (RetryBackoff, then twice that, up to
// maxRetryWait), each wait drawn at random from its upper half so that
// calls failing together do not come back together. A tool with side
// effects ("safe": false) is never run twice for one call, whatever is
// asked. Each attempt has the tool's own time limit; no attempt starts
// when the wait before it would pass ctx's deadline (run --timeout), and
// none once ctx is done. A tool that could not be started, or that
// answered with an error of its own (an MCP result with isError), is not
// run again: it would say the same.
//
// The observation is the last attempt's, its duration_ms the whole
// call's, waits included, and "attempts" lists every attempt when there
// was more than one.

// DefaultRetryBackoff is the wait before the first retry when
// ExecOptions.RetryBackoff is 0.
const DefaultRetryBackoff = 250 * time.Millisecond

// MaxRetries is the most retries a sidecar or --retries may ask for.
const MaxRetries = 10

// maxRetryWait caps the doubling wait between attempts.
const maxRetryWait = 8 * time.Second

// Attempt is one run of a tool that was run more than once.
type Attempt struct {
	// Status is StatusOK when the run ended well (exit status 0, or an
	// MCP answer), else StatusError, with Kind KindTimeout or
	// KindExecution.
	Status string
	Kind   ErrorKind
	// ExitCode is set for an executable that exited; Signal names the
	// signal that ended one.
	ExitCode *int
	Signal   string
}

// appendAttempts appends as as a JSON array.
func appendAttempts(dst []byte, as []Attempt) []byte {
	dst = append(dst, '[')
	for i, a := range as {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(append(dst, `{"status":`...), a.Status)
		if a.Kind != "" {
			dst = jsonw.AppendString(append(dst, `,"kind":`...), string(a.Kind))
		}
		if a.ExitCode != nil {
			dst = strconv.AppendInt(append(dst, `,"exit_code":`...), int64(*a.ExitCode), 10)
		}
		if a.Signal != "" {
			dst = jsonw.AppendString(append(dst, `,"signal":`...), a.Signal)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// retries is how many times t may be run again after a failed run.
func (x *executor) retries(t *Tool) int {
	switch {
	case !t.Safe:
		return 0
	case t.RetriesSet:
		return t.Retries
	}
	return x.opts.Retries
}

// attempts runs t as spec says (over MCP when t has a server), and again
// while the run fails and retries are left; restart, when not nil, readies
// what spec saves the output to for another run. It returns the last run,
// with the whole call's Duration, and the attempts when there was more
// than one. A run whose retry was cut short by ctx reads as interrupted.
func (x *executor) attempts(ctx context.Context, t *Tool, spec processSpec, restart func() error) (processResult, []Attempt) {
	start := time.Now()
	res := x.runOnce(ctx, t, spec)
	var list []Attempt
	for left := x.retries(t); left > 0 && retryable(res); left-- {
		if !x.waitToRetry(ctx, len(list)) {
			res.Interrupted = ctx.Err() != nil
			break
		}
		if restart != nil {
			if err := restart(); err != nil {
				res.SaveErr = err
				break
			}
		}
		list = append(list, attemptOf(t, res))
		res = x.runOnce(ctx, t, spec)
	}
	if len(list) > 0 {
		list = append(list, attemptOf(t, res))
		res.Duration = time.Since(start)
	}
	return res, list
}

// runOnce is one run of t.
func (x *executor) runOnce(ctx context.Context, t *Tool, spec processSpec) processResult {
	if t.Server != nil {
		return x.callServer(ctx, t, spec)
	}
	return runProcess(ctx, spec)
}

// retryable reports whether a run failed in a way that running it again
// may mend: out of time, a non-zero exit, a signal.
func retryable(res processResult) bool {
	if res.Interrupted || res.StartErr != nil {
		return false
	}
	return res.TimedOut || res.ExitCode != 0 || res.Signal != ""
}

// waitToRetry waits before retry n+1, and reports whether it may start:
// not when ctx ends first, or would end during the wait.
func (x *executor) waitToRetry(ctx context.Context, n int) bool {
	wait := retryWait(x.opts.RetryBackoff, n)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryWait is the wait before retry n+1: base doubled n times, at most
// maxRetryWait, drawn from its upper half.
func retryWait(base time.Duration, n int) time.Duration {
	if base <= 0 {
		base = DefaultRetryBackoff
	}
	wait := base
	for i := 0; i < n && wait < maxRetryWait; i++ {
		wait *= 2
	}
	wait = min(wait, maxRetryWait)
	half := wait / 2
	return half + rand.N(half+1)
}

// attemptOf records how one run ended.
func attemptOf(t *Tool, res processResult) Attempt {
	a := Attempt{Status: StatusOK}
	switch {
	case res.TimedOut: // the signal was ours
		a.Status, a.Kind = StatusError, KindTimeout
	case res.ExitCode != 0 || res.Signal != "":
		a.Status, a.Kind, a.Signal = StatusError, KindExecution, res.Signal
	}
	if t.Server == nil && !res.TimedOut && res.Signal == "" {
		a.ExitCode = ptr(res.ExitCode)
	}
	return a
}

// triedNote is what an error message adds when the tool ran n times.
func triedNote(n int) string {
	if n < 2 {
		return ""
	}
	return "; it was run " + strconv.Itoa(n) + " times, and failed each time"
}
