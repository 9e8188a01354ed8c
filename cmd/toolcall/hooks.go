package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/tools"
)

// hooksHelp is what exec, run and mcp serve say of the lifecycle hooks
// and retries, in their long help.
const hooksHelp = `Hooks: --before-call CMD runs CMD before each call that passed its
checks, and --after-call CMD after each call that ran; both repeat, and
run in the order given (TOOLCALL_BEFORE_CALL and TOOLCALL_AFTER_CALL
give one each when the flag is not used). CMD is split into words on
spaces and run without a shell, in --workdir, with a tool's scrubbed
environment less any variable whose name looks secret or whose value
holds a secret, plus TOOLCALL_TOOL, TOOLCALL_CALL_ID and TOOLCALL_HOOK
(before or after), for at most --hook-timeout. What a hook reads has
been redacted, and what it writes is redacted before it is used.

    before  stdin: the validated tool_call event. Exit 0 lets the call
            go on; a JSON object on stdout replaces its arguments, which
            are checked against the schema again, and the call records
            the hook in "rewritten_by". Exit 2 blocks the call: stderr is
            the reason, and the model gets a permission observation.
            Any other ending (another status, a signal, the time limit,
            a stdout that is not an object, arguments that fail the
            schema) fails the call: it does not run, and its
            observation says why (kind execution).
    after   stdin: the validated tool_call event, then its observation.
            Exit 0 with text on stdout replaces the observation's
            content (its parts and structured content go), recorded in
            the observation's "rewritten_by"; exit 2 makes it an error
            with stderr as its message; any other ending withholds the
            output behind an error observation.

The first hook that blocks or fails ends its chain. Before-hooks run one
call at a time, in the order of the calls; --confirm asks after them, so
that a person approves the arguments that will run. --dry-run runs no
hook.

Retries: a safe tool that runs out of time, exits non-zero or is killed
is run again, up to its sidecar's "retries", else --retries, times,
after a wait of about 250ms that doubles each time, with jitter. A tool
marked "safe": false is never run twice. Each attempt has the tool's own
time limit; no retry starts past the run's. The observation is the last
attempt's, with "attempts": one {status, kind, exit_code, signal} per
run.`

// hookFlags are the flags of the lifecycle hooks and retries, which
// exec, run and mcp serve share.
type hookFlags struct {
	before, after []string
	timeout       time.Duration
	retries       int
}

func (h *hookFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVar(&h.before, "before-call", nil, "run `command` before each call: exit 0 lets it run (a JSON object on stdout replaces the arguments), 2 blocks it (repeatable; no shell, words split on spaces)")
	fs.StringArrayVar(&h.after, "after-call", nil, "run `command` after each call: exit 0 (text on stdout replaces the content), 2 makes it an error (repeatable; no shell, words split on spaces)")
	durationVar(fs, &h.timeout, "hook-timeout", tools.DefaultHookTimeout, "stop a --before-call or --after-call command after this long; the call then fails")
	fs.IntVar(&h.retries, "retries", 0, fmt.Sprintf("run a safe tool again up to `n` times (at most %d) after a timeout or a failed exit, unless its sidecar sets \"retries\"", tools.MaxRetries))
}

// options checks the flags and returns the hooks they ask for.
func (h *hookFlags) options() (tools.Hooks, error) {
	if h.retries < 0 || h.retries > tools.MaxRetries {
		return tools.Hooks{}, usage(fmt.Errorf("--retries %d: want 0 to %d", h.retries, tools.MaxRetries))
	}
	if h.timeout <= 0 {
		return tools.Hooks{}, usage(errors.New("--hook-timeout 0: want more than 0, such as 10s"))
	}
	before, err := hookList("--before-call", h.before)
	if err != nil {
		return tools.Hooks{}, err
	}
	after, err := hookList("--after-call", h.after)
	if err != nil {
		return tools.Hooks{}, err
	}
	return tools.Hooks{Before: before, After: after, Timeout: h.timeout}, nil
}

// hookList splits each command of flag into its words and checks that
// its program can be found.
func hookList(flag string, cmds []string) ([]tools.Hook, error) {
	var hooks []tools.Hook
	for _, c := range cmds {
		argv := strings.Fields(c)
		if err := findProgram(flag, "as the hook", argv); err != nil {
			return nil, err
		}
		hooks = append(hooks, tools.Hook{Argv: argv})
	}
	return hooks, nil
}
