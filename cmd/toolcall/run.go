package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
)

const runLong = `Run is the whole loop: a prompt in, a final answer out, tools called in
between. It reads the request from the arguments, or from standard input:
plain text, {"prompt": "..."} or {"messages": [...]}; a request that is not
text (a NUL byte, or bytes that are not UTF-8) is refused with exit 2
unless --binary-ok. Then, turn by turn:

 1. The system prompt is --system TEXT (or --system @FILE, the text of a
    file; or a good default) and the tools, as
    catalog --format prompt --style STYLE writes them; with --pick N only
    the N tools ranked best for the request (made up with the best of the
    rest, and a warning, when fewer than N score 0.05 or more).
 2. The model is asked, and its reply parsed as it streams in. Once a call
    is complete and the model talks on, reading stops: it must not invent
    the result.
 3. The calls are validated and run exactly as toolcall exec runs them,
    under exec's policy and limit flags: --allow, --deny, --allow-unsafe,
    --approve, --local-only, --confirm, --dry-run, --max-output, --scratch,
    --max-scratch-bytes, --workdir, --env, --redact, --parallel, --coerce,
    --max-calls (for the whole run), the hooks and retries of
    --before-call, --after-call, --hook-timeout and --retries, and
    --tool-timeout for exec's --timeout. A tool whose budget is spent
    (--max-calls, or its sidecar's "max_calls") is no longer offered from
    the next turn on.
 4. The observations go back to the model, errors included, so it can
    correct its call; and the loop goes on. With --reflect a note follows
    them, in the style's syntax: per call its status (ok, partial, error,
    blocked), a finding (the first meaningful line of the output, or what
    to fix) and a next action (fix the argument at /x and call again; pass
    the ref to read the rest; answer without the tool), derived from the
    observations without asking the model.
 5. It ends at a final answer. Plain prose without a call is the final
    answer, unless --strict-protocol makes it an error the model must fix,
    or the turn holds a call that could not be read (a parse_error).

The transcript is standard output: system, user, assistant (the model's
text, model, usage, duration_ms), then the events of parse, validate and
exec, a step event that closes each turn (its calls and their statuses,
and where the time went: model_ms, parse_ms, validate_ms, exec_ms, and the
server's tokens when it reports usage), a reflection event before it with
--reflect, and last a stop event with the reason: final_answer, max_iterations,
timeout, interrupted, provider_error, repeated_call (the same call with
the same arguments again), reply_too_large (a turn passed
--max-reply-bytes; reading stopped there) or call_budget (a call was
refused for its budget and no tool is left to offer). --record FILE writes it to a
file too; interrupted, it keeps the transcript so far in FILE.partial.jsonl
and leaves FILE as it was. When stdout is a terminal, run shows the run for a person
instead, as toolcall show does (calls, shortened results, the answer
last; colour unless NO_COLOR is set); --jsonl keeps the transcript there.

Models (--api):

    chat         POST {base-url}/chat/completions; the default
    completions  POST {base-url}/completions, the conversation rendered by
                 --template chatml, llama3, mistral, gemma, plain, a Go
                 text/template FILE, the model's own chat template (a
                 .jinja FILE, a tokenizer_config.json or a GGUF model), or
                 auto: the template llama-server gives at GET /props; stop
                 sequences come from the template's end-of-turn token
                 and the token that opens a tool's response after calls
    native       chat with the server's own tool calling (the "tools"
                 parameter); validation, execution and limits are the same

--base-url (OPENAI_BASE_URL; default http://127.0.0.1:8080/v1, where
llama-server and mlx_lm.server listen) and --api-key (OPENAI_API_KEY) name
the server. A request that fails to connect or gets 429 or 5xx is tried
three times in all (two retries), with backoff, honouring Retry-After;
nothing is retried once the reply has begun. The server's reply is decoded
by the same code as toolcall parse. --model-cmd runs a program as the model
instead: the conversation as JSONL on its stdin, the reply on its stdout.
--replay FILE takes the model's turns, and the request, from a recorded
transcript; a prompt given with it must be the recorded one. A recording
made with --api native replays natively, the server's calls given back as
it sent them, and one that ended in provider_error fails the same way.
With --check it runs the loop again with real tools and exits 1 with a
diff if any event differs (duration_ms, usage and the step events' timings
and tokens aside; a recording made before step events existed is compared
without them), 0 when the run
goes as recorded, its ending included: a golden test for CI. On success
it says "ok FILE" on stderr, as a check of many recordings says of each.
Stdout holds one check event (file, status, difference), not the new
transcript, which --record FILE keeps.
--ignore leaves out of the comparison what changes legitimately: system,
the system prompt (when only the tools' descriptions changed), or a JSON
pointer into observations, such as /structured_content/time, which
reaches into content that is JSON text too (/content/time); it repeats,
and what it leaves out is said on stderr, in the diff and in check
events. To refresh a recording, run it again with --record in place of
--check: --replay FILE --record FILE keeps the model's turns and takes
the tools' new results and the new prompt.

Conversations that go on: --continue FILE starts from the
conversation of a transcript run wrote (stdout, or --record's file) that
ended with a stop event, and asks the model with the new prompt as the
next user message. The model is given what it was given before: the
recorded system prompt, kept as it was (so --system is refused; the tools
it offers are those offered then), every earlier prompt, its own turns and
the observations as the loop gave them back, rebuilt from the transcript
without running a tool again; a turn that failed (timeout, provider_error)
is left out, as it was then. The calls of the new turns are checked and
run against this run's tools and policy: give the same --tools (and --api,
--style, --max-observation) as the recorded run. A recording made with
--api native goes on with --api native only, one made without it without
it; --pick does nothing. The new transcript holds the whole conversation:
the earlier events as recorded, then the new prompt and its turns; so it
can be continued in turn, --record may name FILE itself (FILE is read
whole first), and --replay FILE --check replays it prompt after prompt.
-c (--continue-last) goes on with the last recording a run kept with
--record (its name is kept in $XDG_STATE_HOME/toolcall, else
~/.local/state/toolcall), and records the conversation back into it unless
--record names another file: toolcall run --record chat.jsonl 'hi', then
toolcall run -c 'and then?', as often as the conversation goes on.

Batches: --batch FILE (- for stdin) runs each request of a JSONL file, one
a line ({"id": …, "prompt": …} or {"id": …, "messages": […]}; without an
id, the line number), as its own loop, --jobs at a time. The transcripts
come in the order of the requests, each whole, every event with its
"request" first, each followed by a summary event (request, reason,
iterations, calls, duration_ms, error); a batch event with the totals
comes last, and "phases": the median and 95th percentile (p50, p95) of
each step phase over every turn of the batch. --out DIR writes each transcript to DIR/ID.jsonl instead,
atomically when it ends, and skips the requests whose transcript there is
complete (--force runs them again). --shard I/N runs every N-th request
from the I-th (0-based), for N processes started with an index. On SIGINT
no more requests start and the running ones end interrupted. A
Retry-After from the server holds back every request of the batch.
--replay DIR (or a glob) with --check checks every recording, --jobs at a
time: a line per file on stderr (ok, differs with the first difference,
error), check events on stdout.

A flag that does nothing in the mode chosen (one marked "model servers
only" with --model-cmd or --replay, --template without --api completions)
is said on stderr with a warning; its variable is not,
since a variable holds a setting for every mode.

Secrets never reach the transcript or stderr: exec's redaction applies to
every event, the model's own text included, and knows the API key and a
password in the base URL too. URLs are shown without user:password@.

Exit status: 0 when a final answer was reached (with --check: when the
run matches the recording; with --batch or many recordings: by every
one), 1 otherwise; 130 or 143
when stopped by SIGINT or SIGTERM, after the tools were stopped.`

const runExample = `  # against llama-server or mlx_lm.server on this machine
  toolcall run --tools ./tools "What is the weather in Paris?"

  # Ollama, or any OpenAI-compatible server
  toolcall run --tools ./tools --base-url http://127.0.0.1:11434/v1 --model qwen3 "..."

  # record a run, and check in CI that it still goes the same way
  toolcall run --tools ./tools --record golden.jsonl "What is 17 * 25 + 3?"
  toolcall run --tools ./tools --replay golden.jsonl --check

  # the same, when the tools' descriptions changed; then refresh it
  toolcall run --tools ./tools --replay golden.jsonl --check --ignore system
  toolcall run --tools ./tools --replay golden.jsonl --record golden.jsonl

  # a conversation that goes on, kept in one file
  toolcall run --tools ./tools --record chat.jsonl "What is 17 * 25?"
  toolcall run --tools ./tools -c chat.jsonl --record chat.jsonl "And plus 3?"

  # many prompts, four at a time, a transcript per request; run again to resume
  toolcall run --tools ./tools --batch prompts.jsonl --jobs 4 --out results/

  # every golden transcript of a directory
  toolcall run --tools ./tools --replay testdata/transcripts --check`

type runOptions struct {
	exec        execOptions  // the tools, the policy and the limits of exec
	formatFiles formatFiles  // --format-file
	backend     backendFlags // the model, and how it is asked (backend.go)

	reflect        bool
	replay         string
	cont           string // --continue
	contLast       bool   // -c: --continue the last recording
	systemGiven    bool   // --system on the command line, not from the environment
	check          bool
	ignore         []string        // --ignore, as given
	ignoreGiven    bool            // on the command line: TOOLCALL_IGNORE serves checks only
	ignored        run.CheckIgnore // --ignore, read
	record         string
	system         string
	pick           int
	maxIterations  int
	totalTimeout   time.Duration
	maxObservation int
	maxReplyBytes  byteSize
	strictProtocol bool
	toolChoice     string
	parallelCalls  bool
	quiet          bool
	verbose        bool
	answer         bool
	jsonl          bool
	binaryOK       bool // --binary-ok
	batch          batchOptions
	idle           idleFlags // flags given that do nothing in the mode chosen

	isTerminal    func(io.Reader) bool
	isTerminalOut func(io.Writer) bool
}

func newRunCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := runOptions{
		isTerminal:    isTerminal,
		isTerminalOut: isTerminalWriter,
	}
	o.exec.maxOutput = tools.DefaultMaxOutput
	o.exec.maxSaved = tools.DefaultMaxScratch
	o.maxReplyBytes = run.DefaultMaxReplyBytes
	cmd := &cobra.Command{
		Use:     "run [<prompt>...]",
		Short:   "Run the whole loop: prompt in, tools called, final answer out",
		Long:    runLong,
		Example: runExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			o.backend.given(fs)
			o.batch.noteGiven(fs)
			o.noteIdle(fs)
			o.ignoreGiven = source(fs, "ignore") == "--ignore"
			o.systemGiven = source(fs, "system") == "--system"
			o.quiet, o.verbose = isQuiet(cmd), isVerbose(cmd)
			return o.run(cmd.Context(), args, stdin, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	o.exec.tools.addDirs(fs)
	o.exec.tools.addPolicy(fs)
	o.backend.register(cmd)
	fs.StringVar(&o.replay, "replay", "", "take the model's turns from this recorded transcript `file`")
	fs.StringVar(&o.cont, "continue", "", "go on with the conversation of this transcript `file` (run's stdout or --record): its system prompt and turns, then the new prompt")
	fs.BoolVarP(&o.contLast, "continue-last", "c", false, "go on with the conversation of the last recording a run kept (--record), and record it back there unless --record names another file")
	fs.BoolVar(&o.check, "check", false, "with --replay: exit 1 with a diff when the run differs from the recording")
	fs.StringArrayVar(&o.ignore, "ignore", nil, "with --check, also leave out `what` changes legitimately: system (the system prompt), or a JSON pointer into observations such as /structured_content/time (repeatable)")
	o.formatFiles.add(fs)
	fs.StringVar(&o.record, "record", "", "also write the transcript to this `file`")
	fs.StringVarP(&o.system, "system", "s", "", "the system `text` that comes before the tools; @FILE reads it from a file")
	fs.IntVar(&o.pick, "pick", 0, "offer only the `n` tools ranked best for the request (default: all)")
	fs.IntVar(&o.maxIterations, "max-iterations", run.DefaultMaxIterations, "stop after this many model turns (enough for a small model to correct a call or two)")
	durationVar(fs, &o.totalTimeout, "timeout", run.DefaultTimeout, "stop the whole run after this long (a local model on a CPU can take minutes a turn)")
	envAs(fs, "timeout", "TOOLCALL_RUN_TIMEOUT") // not exec's --timeout
	durationVar(fs, &o.exec.timeout, "tool-timeout", tools.DefaultTimeout, "stop a tool after this long, unless its sidecar sets a timeout")
	fs.IntVar(&o.maxObservation, "max-observation", 0, "give the model at most this many bytes of each result (default: all that exec keeps)")
	fs.Var(&o.maxReplyBytes, "max-reply-bytes", "stop reading a model turn past this size and end the run with reply_too_large, e.g. 8MiB")
	fs.BoolVar(&o.reflect, "reflect", false, "after each turn's observations, give the model a note per call: status, finding, next action (a reflection event too)")
	fs.BoolVar(&o.strictProtocol, "strict-protocol", false, "prose without a call is an error the model must correct, not the answer")
	fs.StringVar(&o.toolChoice, "tool-choice", "auto", "auto, required (every turn must call a tool or answer by the protocol), none, or a tool's `name`")
	fs.BoolVar(&o.parallelCalls, "parallel-calls", true, "let one turn hold several calls; false stops reading at the first")
	fs.BoolVarP(&o.answer, "answer", "a", false, "write only the final answer's text on stdout (the transcript still goes to --record)")
	fs.BoolVar(&o.binaryOK, "binary-ok", false, "send a request that is not text (a NUL byte, or bytes that are not UTF-8, in its first 8 KiB) rather than refuse it")
	fs.BoolVar(&o.jsonl, "jsonl", false, "write the JSONL transcript on stdout even when it is a terminal (it is, whenever stdout is not)")
	o.exec.addRunFlags(fs)
	fs.IntVar(&o.exec.parallel, "parallel", tools.DefaultParallel, "run at most `n` calls of a turn at once")
	fs.BoolVar(&o.exec.coerce, "coerce", false, coerceUsage)
	o.batch.addFlags(cmd)
	noEnv(fs, "check")
	noEnv(fs, "continue") // a variable would make every run go on with one file
	noEnv(fs, "continue-last")
	o.exec.tools.registerCompletions(cmd, true)
	o.exec.grace = 2 * time.Second
	return cmd
}

// run checks the flags, reads the tools and the policy, and runs the
// mode the flags choose: many recordings checked, a batch of requests,
// one recording replayed (and checked), or one request's loop.
func (o *runOptions) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	args, many, formats, err := o.checkFlags(args)
	if err != nil {
		return err
	}
	o.idle.warn(stderr)
	if items := o.ignored.Items(); len(items) > 0 {
		// Said before any result, so that nothing is ignored silently.
		fmt.Fprintf(stderr, "toolcall: the check leaves out, as --ignore asks: %s\n", termsafe.Line(strings.Join(items, ", ")))
	}
	xopts, c, err := o.exec.prepare(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	adoptOrphans()
	s := runSetup{exec: xopts, catalog: c, formats: formats, stdin: stdin, stdout: stdout, stderr: stderr}
	switch {
	case many != nil:
		return o.checkRecordings(ctx, many, s)
	case o.batch.file != "":
		return o.runBatch(ctx, s)
	case o.replay != "":
		return o.runReplay(ctx, args, s)
	}
	return o.runPrompt(ctx, args, s)
}

// checkFlags refuses flags that do not go together or are out of bounds,
// before anything runs. It returns the prompt's arguments ("-" is none),
// the recordings of a --replay that names many, and the format files.
func (o *runOptions) checkFlags(args []string) ([]string, []string, []*parse.Spec, error) {
	if o.check && o.replay == "" {
		return nil, nil, nil, usage(errors.New("--check needs --replay FILE"))
	}
	if len(o.ignore) > 0 && !o.check {
		if o.ignoreGiven {
			return nil, nil, nil, usage(errors.New("--ignore says what --check leaves out: add --check"))
		}
		o.ignore = nil // TOOLCALL_IGNORE, set for the checks of a CI job
	}
	formats, err := o.formatFiles.load()
	if err != nil {
		return nil, nil, nil, err
	}
	if o.ignored, err = run.ParseIgnore(o.ignore); err != nil {
		return nil, nil, nil, usage(fmt.Errorf("--ignore: %w", err))
	}
	if o.answer && o.check {
		return nil, nil, nil, usage(errors.New("--answer and --check both decide what stdout holds; use one"))
	}
	// "-" is standard input, as for the other commands.
	if len(args) == 1 && args[0] == "-" {
		args = nil
	}
	if err := o.checkContinue(); err != nil {
		return nil, nil, nil, err
	}
	if o.backend.modelCmd != "" && o.replay != "" {
		return nil, nil, nil, usage(errors.New("--model-cmd and --replay both give the model's turns; use one"))
	}
	// Each bound is named alone, so the message says which one to change.
	switch {
	case o.maxIterations < 1:
		return nil, nil, nil, usage(fmt.Errorf("--max-iterations %d: want 1 or more", o.maxIterations))
	case o.totalTimeout <= 0:
		return nil, nil, nil, usage(errors.New("--timeout 0: want more than 0, such as 10m"))
	case o.exec.timeout <= 0:
		return nil, nil, nil, usage(errors.New("--tool-timeout 0: want more than 0, such as 20s"))
	}
	if err := o.backend.check(); err != nil {
		return nil, nil, nil, err
	}
	// Many requests, or many recordings: each is read later.
	many, err := o.batch.check(o, args)
	if err != nil {
		return nil, nil, nil, err
	}
	return args, many, formats, nil
}

// checkContinue refuses what does not go with --continue: it asks the
// model to go on with one conversation, whose system prompt is recorded.
func (o *runOptions) checkContinue() error {
	if o.contLast {
		if o.cont != "" {
			return usage(errors.New("-c goes on with the last recording, --continue FILE with the one named: give one"))
		}
		last, err := lastRecording()
		if err != nil {
			return usage(err)
		}
		o.cont = last
		if o.record == "" {
			o.record = last // the conversation goes on in its file
		}
	}
	switch {
	case o.cont == "":
		return nil
	case o.replay != "":
		return usage(errors.New("--continue and --replay do not go together: --continue asks the model to go on, --replay takes its turns from a recording; to check a continued recording, use --replay FILE --check alone"))
	case o.batch.file != "":
		return usage(errors.New("--continue and --batch do not go together: --continue goes on with one conversation; give one prompt"))
	case o.systemGiven:
		return usage(fmt.Errorf("--continue %s keeps the recorded system prompt: drop --system (or start a new conversation without --continue)", o.cont))
	}
	// TOOLCALL_SYSTEM and --pick: the recorded system prompt holds.
	o.system, o.pick = "", 0
	return nil
}

// noteIdle notes the flags given that do nothing in the mode chosen.
func (o *runOptions) noteIdle(fs *pflag.FlagSet) {
	o.idle.fs = fs
	server := serverOnlyFlags
	switch {
	case o.backend.modelCmd != "":
		o.idle.note("with --model-cmd, which runs a program instead of asking a model server", server...)
	case o.replay != "":
		o.idle.note("with --replay: the recording gives the model's turns", server[:len(server)-1]...)
	default:
		if o.backend.api.value != "completions" {
			o.idle.note("without --api completions: the server renders the chat", "template")
		}
		if o.backend.api.value == "native" {
			o.idle.note("with --api native: the server's own tool calling writes the calls", "constrain")
		}
	}
	if o.answer {
		o.idle.note("with --answer: stdout holds the answer alone", "jsonl")
	}
	if o.cont != "" {
		o.idle.note("with --continue: the recorded system prompt offers the tools it offered", "pick")
	}
}

// findProgram checks, before the run starts, that the command of flag
// (--model-cmd, --before-call, ...) names a program that can be run,
// found as the launcher finds it (through PATH for a bare name): a typo
// is the invocation's fault (exit 2), not a failure at the first turn or
// call. what says what the program is for, for the message of an empty
// one.
func findProgram(flag, what string, argv []string) error {
	if len(argv) == 0 {
		return usage(fmt.Errorf("%s is empty: give the program to run %s", flag, what))
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		where := "no such file"
		switch {
		case !strings.ContainsRune(argv[0], os.PathSeparator):
			where = "not found on PATH"
		case errors.Is(err, fs.ErrPermission):
			where = "not executable (chmod +x it)"
		case !errors.Is(err, fs.ErrNotExist):
			where = "not an executable file"
		}
		return usage(fmt.Errorf("%s: %s: %s", flag, termsafe.Line(argv[0]), where))
	}
	return nil
}

// textOnly refuses a request that is not text, unless --binary-ok: a
// model is sent what it can read, not an executable's bytes.
func (o *runOptions) textOnly(data []byte, name string) error {
	if o.binaryOK {
		return nil
	}
	if err := checkText(data, name); err != nil {
		return &usageError{err: err}
	}
	return nil
}

// systemText is the text of --system: the value itself, or with a
// leading @ the text of the file it names. A value that is the name of a
// file, as --system once took, is still sent as text, with a warning that
// says how to read the file.
func (o *runOptions) systemText(stderr io.Writer) (string, error) {
	switch {
	case o.system == "":
		return "", nil
	case strings.HasPrefix(o.system, "@"):
		name := o.system[1:]
		data, err := os.ReadFile(name)
		if err != nil {
			return "", fileFlagError("--system @", err)
		}
		if err := o.textOnly(data, "--system @"+name); err != nil {
			return "", err
		}
		return strings.TrimSpace(string(data)), nil
	}
	if !strings.ContainsAny(o.system, " \t\n") {
		if fi, err := os.Stat(o.system); err == nil && fi.Mode().IsRegular() {
			warnTo(stderr)(fmt.Sprintf("--system %s is sent as the system text itself; to send the text of the file, write --system @%s", o.system, o.system))
		}
	}
	return o.system, nil
}
