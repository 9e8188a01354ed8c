package run

import (
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// The step ledger: every turn ends with a step event (event.Step) that
// says which calls it made, how each went, and where its time went. The
// phases split the turn's wall clock without overlap:
//
//	model_ms     Backend.Complete, less parse_ms
//	parse_ms     the parser at work on the reply as it arrived (turnSink)
//	validate_ms  from handing the calls to the executor to the first tool
//	             starting, or all of the executor's time when none started
//	             (checks, before-call hooks, consent)
//	exec_ms      the rest of the executor's time (tools, after-call hooks)
//
// With several calls in a turn the checks of the later ones overlap the
// first one's run and count as exec_ms: a phase is a stretch of the
// turn, not a sum over calls. The ledger costs a few clock readings per
// turn and one line, written from a value the loop keeps for the run.

// stepClock times the executor's phases of one turn.
type stepClock struct {
	handed time.Time
	// started is when the first tool of the turn started, as UnixNano;
	// 0 until one does. Tools start on the executor's goroutines.
	started atomic.Int64
}

// hand marks the calls handed to the executor.
func (c *stepClock) hand() {
	c.started.Store(0)
	c.handed = time.Now()
}

// toolStarted marks a tool starting; only the turn's first one counts.
func (c *stepClock) toolStarted() {
	c.started.CompareAndSwap(0, time.Now().UnixNano())
}

// split is the executor's time since hand, as validate and exec.
func (c *stepClock) split() (validate, exec time.Duration) {
	total := time.Since(c.handed)
	s := c.started.Load()
	if s == 0 {
		return total, 0
	}
	validate = min(max(time.Unix(0, s).Sub(c.handed), 0), total)
	return validate, total - validate
}

// usageTokens reads a server's token counts of a turn from its usage
// object, in the words of the APIs toolcall reads: OpenAI's and
// llama.cpp's prompt_tokens and completion_tokens, Anthropic's and the
// Responses API's input_tokens and output_tokens, Ollama's
// prompt_eval_count and eval_count. nil when it has none of them.
func usageTokens(usage []byte) *event.Tokens {
	if len(usage) == 0 {
		return nil
	}
	for _, names := range usageNames {
		p, c := gjson.GetBytes(usage, names[0]), gjson.GetBytes(usage, names[1])
		if p.Type == gjson.Number || c.Type == gjson.Number {
			return &event.Tokens{Prompt: p.Int(), Completion: c.Int()}
		}
	}
	return nil
}

// usageNames are the prompt's and the reply's counts in each API's words.
var usageNames = [...][2]string{{"prompt_tokens", "completion_tokens"}, {"input_tokens", "output_tokens"}, {"prompt_eval_count", "eval_count"}}

// stepStatus is the status a step gives a call: its observation's, or,
// for an observation that has none, ok or error.
func stepStatus(o *tools.Observation) string {
	switch {
	case o.Status != "":
		return o.Status
	case o.IsError:
		return tools.StatusError
	}
	return tools.StatusOK
}
