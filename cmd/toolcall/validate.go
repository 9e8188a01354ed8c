package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
)

const validateLong = `Validate checks every tool_call event against the schema of its tool, so
that nothing runs with arguments the tool does not accept. It reads events
(the output of toolcall parse) from each <file>, or standard input, and
writes every line that is not a tool_call through unchanged and in order.

Each call is checked in this order. A call that fails is written as the
model wrote it, with "validated": false, and is followed by a
tool_observation with "is_error": true and an error of one of these kinds:

    unknown_tool  no tool of that name (or it cannot run on this machine);
                  the message suggests the nearest names
    permission    the policy forbids it: --allow, --deny, --local-only, a
                  tool marked "safe": false without --allow-unsafe, or a
                  tool in no_schema_mode human-approval without --approve
    validation    the arguments do not match the schema; every error is
                  listed with its JSON pointer, the schema keyword, what was
                  expected and what was given, worded so the model can fix
                  its call

Arguments given as a JSON string are decoded once, and null is taken as {}.
A string argument "ref:<id>" (a saved output, see toolcall exec --help) is
replaced by the text it names in --scratch before the schema is checked;
without --scratch, or when it names no saved output, the call fails.
With --coerce, a string where the schema asks for a number, boolean or null
and whose text is exactly one ("42", "true") is converted, and the call lists
it under "coerced".

A sidecar's "aliases" and "value_aliases" (toolcall catalog --help) are
applied before anything else is checked: the call passes under the
schema's names, and lists each change under "normalized", in the order of
the arguments: {"from": "/q", "to": "/query"} for a property, {"pointer":
"/unit", "from": "C", "to": "celsius"} for a value. An alias given
together with the property it stands for (or with another alias of it)
is not applied: the call fails validation, so the model gives it once.

A call that passes is written again with "validated": true. A tool
registered without a schema passes with "validated": false and its
"no_schema_mode". A call already marked "validated": false without one
was refused by an earlier validate, whose tool_observation follows it:
it is passed through, not answered twice.

A line that is not a JSON event is reported on standard error with its line
number and skipped; the stream goes on. Validation failures are data:
validate exits 0 unless --fail is given and a call failed.`

const validateExample = `  # parse a reply and check its calls
  toolcall parse reply.txt | toolcall validate --tools ./tools

  # only the failures, as the model will see them
  toolcall parse reply.txt | toolcall validate --tools ./tools |
    jq -r 'select(.type == "tool_observation") | .content'

  # in CI: fail when a saved transcript holds a bad call
  toolcall validate --tools ./tools --fail events.jsonl > /dev/null`

type validateOptions struct {
	tools   toolsFlags
	coerce  bool
	fail    bool
	scratch string
	maxLine byteSize
	refs    execOptions // only its --max-ref-bytes

	isTerminal func(io.Reader) bool
}

// validateHint is said on stderr when validate would read a terminal.
const validateHint = "toolcall: reading events from stdin (the output of toolcall parse; Ctrl-D ends); see 'toolcall validate --help'"

func newValidateCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	opts := validateOptions{isTerminal: isTerminal, maxLine: tools.DefaultMaxLine}
	cmd := &cobra.Command{
		Use:     "validate [<file>...]",
		Short:   "Check tool calls against their schemas and the policy",
		Long:    validateLong,
		Example: validateExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.run(cmd.Context(), args, stdin, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	opts.tools.addDirs(fs)
	opts.tools.addPolicy(fs)
	fs.BoolVar(&opts.coerce, "coerce", false, coerceUsage)
	fs.StringVar(&opts.scratch, "scratch", "", "the `dir` of saved outputs that ref: arguments name, as given to exec")
	fs.BoolVar(&opts.fail, "fail", false, "exit 1 if any call failed, or an input line was skipped (not an event, or too long)")
	fs.Var(&opts.maxLine, "max-line", "skip input lines longer than this, answering each with a parse_error, e.g. 64MiB")
	opts.tools.registerCompletions(cmd, true)
	opts.refs.addMaxRefBytes(fs)
	must(cmd.MarkFlagDirname("scratch"))
	return cmd
}

// run validates the calls of each input (args, else stdin) into stdout.
func (o *validateOptions) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	policy, err := o.tools.policy()
	if err != nil {
		return err
	}
	c, err := o.tools.load(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	// Calls are checked against an MCP server's tools as they are when
	// the call comes, should the server say they changed.
	live := catalog.NewLive(c)
	ins, closeAll, err := openInputs(stdin, args)
	if err != nil {
		return err
	}
	defer closeAll()
	var failed, tooLong, skipped int
	err = eachInput(ins, o.isTerminal, validateHint, stderr, func(in input, warn func(int, error)) error {
		st, err := tools.Validate(ctx, skipBOM(in.r), stdout, live, tools.ValidateOptions{
			Policy:      policy,
			Coerce:      o.coerce,
			Scratch:     o.scratch,
			MaxRefBytes: int64(o.refs.maxRefs),
			MaxLine:     int(o.maxLine),
			Warn:        warn,
		})
		failed += st.Failed
		tooLong += st.TooLong
		skipped += st.Skipped
		return err
	})
	if err != nil {
		return err
	}
	if o.fail && (failed > 0 || tooLong > 0 || skipped > 0) {
		reportFailures(stderr, failed, "failed validation", tooLong, skipped)
		return errReported
	}
	return nil
}
