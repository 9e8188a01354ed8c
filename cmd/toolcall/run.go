package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/atomicfile"
	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
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

  # many prompts, four at a time, a transcript per request; run again to resume
  toolcall run --tools ./tools --batch prompts.jsonl --jobs 4 --out results/

  # every golden transcript of a directory
  toolcall run --tools ./tools --replay testdata/transcripts --check`

type runOptions struct {
	exec        execOptions // the tools, the policy and the limits of exec
	formatFiles formatFiles // --format-file

	api            choice
	server         serverFlags
	model          string
	temperature    float64
	temperatureSet bool // --temperature given: else the server's default
	extra          string
	constrain      bool
	reflect        bool
	template       string
	modelCmd       string
	replay         string
	check          bool
	ignore         []string        // --ignore, as given
	ignoreGiven    bool            // on the command line: TOOLCALL_IGNORE serves checks only
	ignored        run.CheckIgnore // --ignore, read
	record         string
	system         string
	style          choice
	pick           int
	maxIterations  int
	totalTimeout   time.Duration
	stall          time.Duration
	maxObservation int
	maxReplyBytes  byteSize
	maxTokens      int
	strictProtocol bool
	toolChoice     string
	parallelCalls  bool
	noStream       bool
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
		api:           choice{value: "chat", choices: []string{"chat", "completions", "native"}},
		style:         choice{value: catalog.StyleJSONL, choices: catalog.Styles},
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
			o.server.sources(fs)
			o.temperatureSet = fs.Changed("temperature")
			o.batch.noteGiven(fs)
			o.noteIdle(fs)
			o.ignoreGiven = source(fs, "ignore") == "--ignore"
			o.quiet, o.verbose = isQuiet(cmd), isVerbose(cmd)
			return o.run(cmd.Context(), args, stdin, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	o.exec.tools.addDirs(fs)
	o.exec.tools.addPolicy(fs)
	fs.Var(&o.api, "api", "how to talk to the model server: chat, completions or native (model servers only)")
	fs.StringVar(&o.server.baseURL, "base-url", "", "the model server's OpenAI-compatible `url` (default $OPENAI_BASE_URL, else http://127.0.0.1:8080/v1)")
	fs.StringVar(&o.server.apiKey, "api-key", "", "the server's API `key` (default $OPENAI_API_KEY)")
	fs.StringVar(&o.model, "model", "", "the model `name` to ask for (model servers only)")
	fs.Float64Var(&o.temperature, "temperature", 0, "sampling temperature (default: the server's) (model servers only)")
	fs.StringVar(&o.extra, "extra", "", "a `JSON` object merged into every request body, e.g. '{\"top_k\": 20}' (model servers only)")
	fs.BoolVar(&o.constrain, "constrain", false, "ask the server for schema-constrained decoding of the protocol (style jsonl) (model servers only)")
	fs.StringVar(&o.template, "template", "chatml", "with --api completions, the prompt `template`: chatml, llama3, mistral, gemma, plain, auto (the server's), or a file: the model's chat template (.jinja, tokenizer_config.json, model directory, .gguf) or a Go text/template")
	fs.StringVar(&o.modelCmd, "model-cmd", "", "run this `command` as the model (no shell: words split on spaces)")
	fs.StringVar(&o.replay, "replay", "", "take the model's turns from this recorded transcript `file`")
	fs.BoolVar(&o.check, "check", false, "with --replay: exit 1 with a diff when the run differs from the recording")
	fs.StringArrayVar(&o.ignore, "ignore", nil, "with --check, also leave out `what` changes legitimately: system (the system prompt), or a JSON pointer into observations such as /structured_content/time (repeatable)")
	o.formatFiles.add(fs)
	fs.StringVar(&o.record, "record", "", "also write the transcript to this `file`")
	fs.StringVarP(&o.system, "system", "s", "", "the system `text` that comes before the tools; @FILE reads it from a file")
	fs.Var(&o.style, "style", "how the model is told to write calls: jsonl, xml or markdown")
	fs.IntVar(&o.pick, "pick", 0, "offer only the `n` tools ranked best for the request (default: all)")
	fs.IntVar(&o.maxIterations, "max-iterations", run.DefaultMaxIterations, "stop after this many model turns (enough for a small model to correct a call or two)")
	durationVar(fs, &o.totalTimeout, "timeout", run.DefaultTimeout, "stop the whole run after this long (a local model on a CPU can take minutes a turn)")
	durationVar(fs, &o.stall, "stall-timeout", run.DefaultStall, "fail a request when the server sends nothing for this long (a local server can read a long prompt for minutes before its first token) (model servers only)")
	envAs(fs, "timeout", "TOOLCALL_RUN_TIMEOUT") // not exec's --timeout
	durationVar(fs, &o.exec.timeout, "tool-timeout", tools.DefaultTimeout, "stop a tool after this long, unless its sidecar sets a timeout")
	fs.IntVar(&o.maxObservation, "max-observation", 0, "give the model at most this many bytes of each result (default: all that exec keeps)")
	fs.Var(&o.maxReplyBytes, "max-reply-bytes", "stop reading a model turn past this size and end the run with reply_too_large, e.g. 8MiB")
	fs.IntVar(&o.maxTokens, "max-tokens", 0, "at most this many tokens per model turn (default: the server's) (model servers only)")
	fs.BoolVar(&o.reflect, "reflect", false, "after each turn's observations, give the model a note per call: status, finding, next action (a reflection event too)")
	fs.BoolVar(&o.strictProtocol, "strict-protocol", false, "prose without a call is an error the model must correct, not the answer")
	fs.StringVar(&o.toolChoice, "tool-choice", "auto", "auto, required (every turn must call a tool or answer by the protocol), none, or a tool's `name`")
	fs.BoolVar(&o.parallelCalls, "parallel-calls", true, "let one turn hold several calls; false stops reading at the first")
	fs.BoolVar(&o.noStream, "no-stream", false, "ask for the whole reply at once instead of streaming it (model servers only)")
	fs.BoolVarP(&o.answer, "answer", "a", false, "write only the final answer's text on stdout (the transcript still goes to --record)")
	fs.BoolVar(&o.binaryOK, "binary-ok", false, "send a request that is not text (a NUL byte, or bytes that are not UTF-8, in its first 8 KiB) rather than refuse it")
	fs.BoolVar(&o.jsonl, "jsonl", false, "write the JSONL transcript on stdout even when it is a terminal (it is, whenever stdout is not)")
	o.exec.addRunFlags(fs)
	fs.IntVar(&o.exec.parallel, "parallel", tools.DefaultParallel, "run at most `n` calls of a turn at once")
	fs.BoolVar(&o.exec.coerce, "coerce", false, coerceUsage)
	o.batch.addFlags(cmd)
	noEnv(fs, "check")
	o.exec.tools.registerCompletions(cmd, true)
	must(cmd.RegisterFlagCompletionFunc("api", o.api.complete))
	must(cmd.RegisterFlagCompletionFunc("style", o.style.complete))
	o.exec.grace = 2 * time.Second
	return cmd
}

func (o *runOptions) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	if o.check && o.replay == "" {
		return usage(errors.New("--check needs --replay FILE"))
	}
	if len(o.ignore) > 0 && !o.check {
		if o.ignoreGiven {
			return usage(errors.New("--ignore says what --check leaves out: add --check"))
		}
		o.ignore = nil // TOOLCALL_IGNORE, set for the checks of a CI job
	}
	formats, err := o.formatFiles.load()
	if err != nil {
		return err
	}
	if o.ignored, err = run.ParseIgnore(o.ignore); err != nil {
		return usage(fmt.Errorf("--ignore: %w", err))
	}
	if o.answer && o.check {
		return usage(errors.New("--answer and --check both decide what stdout holds; use one"))
	}
	// "-" is standard input, as for the other commands.
	if len(args) == 1 && args[0] == "-" {
		args = nil
	}
	if o.modelCmd != "" && o.replay != "" {
		return usage(errors.New("--model-cmd and --replay both give the model's turns; use one"))
	}
	// Each bound is named alone, so the message says which one to change.
	switch {
	case o.maxIterations < 1:
		return usage(fmt.Errorf("--max-iterations %d: want 1 or more", o.maxIterations))
	case o.totalTimeout <= 0:
		return usage(errors.New("--timeout 0: want more than 0, such as 10m"))
	case o.exec.timeout <= 0:
		return usage(errors.New("--tool-timeout 0: want more than 0, such as 20s"))
	case o.stall <= 0:
		return usage(errors.New("--stall-timeout 0: want more than 0, such as 5m"))
	}
	// Many requests, or many recordings: each is read later.
	many, err := o.batch.check(o, args)
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

	// The request: the arguments, or stdin.
	var in run.Input
	var rec *run.Recording
	switch {
	case many != nil || o.batch.file != "":
	case o.replay != "":
		// The recording holds the request too.
		if rec, err = run.OpenRecording(o.replay); err != nil {
			if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
				return fileFlagError("--replay", err)
			}
			return usage(fmt.Errorf("--replay %s: %w", o.replay, err))
		}
		if len(args) > 0 {
			if err := rec.AcceptPrompt(strings.Join(args, " ")); err != nil {
				return usage(fmt.Errorf("--replay %s: %w", o.replay, err))
			}
		}
		in = rec.Input
	case len(args) > 0:
		prompt := strings.Join(args, " ")
		if err := o.textOnly([]byte(prompt), "the prompt"); err != nil {
			return err
		}
		in = run.Input{Messages: []run.Message{{Role: "user", Content: prompt}}}
	default:
		if o.isTerminal(stdin) {
			fmt.Fprintln(stderr, "toolcall: reading the request from stdin (type it, then Ctrl-D); or give it as arguments")
		}
		data, err := io.ReadAll(io.LimitReader(stdin, maxRequest+1))
		if err != nil {
			return fmt.Errorf("reading the request: %w", err)
		}
		if err := o.textOnly(data, "stdin"); err != nil {
			return err
		}
		if in, err = run.ParseInput(data); err != nil {
			return usage(err)
		}
	}

	var model modelBackend
	if many == nil { // a bulk check replays each recording with its own
		if model, err = o.backend(ctx); err != nil {
			return err
		}
	}
	// The key and the URL's password are secrets of the transcript.
	xopts.Secrets = append(xopts.Secrets, model.secrets...)
	system, err := o.systemText(stderr)
	if err != nil {
		return err
	}
	var extra []byte
	if o.extra != "" {
		if !gjson.Valid(o.extra) || !gjson.Parse(o.extra).IsObject() {
			return usage(fmt.Errorf("--extra %q is not a JSON object", o.extra))
		}
		extra = []byte(o.extra)
	}
	var temperature *float64
	if o.temperatureSet {
		temperature = &o.temperature
	}

	// The transcript: stdout (unless --answer), the record file, and for
	// --check a copy.
	out := stdout
	var view *run.View // the screen's sink, when a person reads the run
	switch {
	case o.answer:
		out = io.Discard
	case o.check:
		// stdout gets the check event, as for many recordings: a CI log
		// is not the place for the whole transcript (--record keeps it).
		out = io.Discard
	case !o.jsonl && many == nil && o.isTerminalOut(stdout):
		// A person is reading: show them the run (or the batch) as
		// toolcall show does. The record file still gets the JSONL. A
		// bulk check keeps its check events: its lines on stderr are the
		// ones for people.
		view = run.NewView(stdout, os.Getenv("NO_COLOR") == "")
		defer func() {
			// The view's last lines, of a recording cut short.
			if cerr := view.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("showing the run: %w", cerr)
			}
		}()
		out = view
	}
	// The loop hands its events to the sinks as values: the view takes
	// them so, stdout and the record file as JSONL (a batch writes lines).
	var sink event.Sink = event.NewJSONL(out)
	if view != nil {
		sink = view
	}
	var record *recordFile
	if o.record != "" {
		f, err := atomicfile.Create(o.record, 0o644)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// The error names the temporary file beside it.
				return &usageError{err: fmt.Errorf("--record %s: the directory %s does not exist (create it first)", o.record, filepath.Dir(o.record))}
			}
			return &usageError{err: fmt.Errorf("--record %s: %w", o.record, err)}
		}
		record = &recordFile{File: f}
		defer record.Abort() // a run that fails leaves the old recording
		out = io.MultiWriter(out, record)
		sink = event.Tee(sink, event.NewJSONL(record))
	}

	var progress func(string)
	if !o.quiet && (o.verbose || isTerminalWriter(stderr)) {
		start := time.Now()
		progress = func(msg string) {
			fmt.Fprintf(stderr, "toolcall: %5.1fs %s\n", time.Since(start).Seconds(), termsafe.Line(msg))
		}
	}

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	caught, release := catchSignals(stop)
	defer release()
	lopts := run.Options{
		Backend:         model.backend,
		Model:           o.model,
		ObservationRole: model.observationRole,
		Native:          o.native(),
		Catalog:         c,
		Pick:            o.pick,
		Style:           o.style.value,
		System:          system,
		Exec:            xopts,
		MaxIterations:   o.maxIterations,
		Timeout:         o.totalTimeout,
		MaxObservation:  o.maxObservation,
		MaxReplyBytes:   int(min(o.maxReplyBytes, byteSize(math.MaxInt))),
		MaxTokens:       o.maxTokens,
		Temperature:     temperature,
		Extra:           extra,
		StrictProtocol:  o.strictProtocol,
		ToolChoice:      o.toolChoice,
		OneCallPerTurn:  !o.parallelCalls,
		Constrain:       o.constrain,
		Reflect:         o.reflect,
		Stop:            model.stop,
		Progress:        progress,
		Warn:            warnTo(stderr),
		Formats:         formats,
	}
	switch {
	case many != nil:
		return o.batch.checkMany(ctx, many, lopts, o, caught, stdout, stderr)
	case o.batch.file != "":
		return o.batch.run(ctx, stdin, lopts, o, caught, out, stderr)
	}
	var res run.Result
	var diff string // with --check, how the run differs from the recording
	if rec != nil {
		// The recording decides the backend and how tools are offered.
		if err := rec.Setup(&lopts, o.api.value == "native"); err != nil {
			return usage(fmt.Errorf("--replay %s: %w", o.replay, err))
		}
		rec.Ignore = o.ignored
		res, diff, err = rec.Replay(ctx, sink, lopts, o.check)
	} else {
		res, err = run.LoopSink(ctx, in, sink, lopts)
	}
	if err != nil {
		return err
	}
	if err := keepRecording(record, o.record, res, caught.Load() != nil, stderr); err != nil {
		return err
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		if res.Unread > 0 {
			fmt.Fprintf(stderr, "toolcall: %v: stopped the running tools; %d call%s of the last turn left unread\n", sig, res.Unread, plural(res.Unread))
		}
		return &signalExit{code: signalCode(sig)}
	}
	if o.check {
		ev := event.Check{File: o.replay, Status: run.CheckOK, Ignored: o.ignored.Items()}
		if diff != "" {
			ev.Status, ev.Difference = run.CheckDiffers, strings.TrimRight(diff, "\n")
		}
		if _, err := stdout.Write(append(ev.AppendJSON(nil), '\n')); err != nil {
			return err
		}
		if diff != "" {
			fmt.Fprintf(stderr, "toolcall: the run differs from %s:\n%s", o.replay, termsafe.Text(diff))
			fmt.Fprintf(stderr, "toolcall: if the new run is right, make it the recording: the same command with --record %s in place of --check (and --ignore)\n", termsafe.Line(run.ShellLine([]string{o.replay})))
			return errReported
		}
		// The recording is what was expected, its ending included: a run
		// that ends as it did passes the check, said in the line a check
		// of many recordings gives each; -v says it in words too.
		if !o.quiet {
			reportCheck(stderr, o.replay, run.CheckOK, "")
		}
		switch {
		case !o.verbose:
		case res.Reason != run.StopFinalAnswer:
			fmt.Fprintf(stderr, "toolcall: the run matches %s (ending, as recorded, in %s)\n", o.replay, res.Reason)
		default:
			fmt.Fprintf(stderr, "toolcall: the run matches %s\n", o.replay)
		}
		return nil
	}
	if res.Reason != run.StopFinalAnswer {
		if res.Error != "" {
			fmt.Fprintf(stderr, "toolcall: no final answer: %s: %s\n", res.Reason, termsafe.Line(res.Error))
		} else {
			fmt.Fprintf(stderr, "toolcall: no final answer: %s after %d iteration%s\n", res.Reason, res.Iterations, plural(res.Iterations))
		}
		return errReported
	}
	if o.answer {
		if _, err := io.WriteString(stdout, strings.TrimRight(res.FinalAnswer, "\n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// serverOnlyFlags are the flags that only a model server reads; the last
// is not idle with --replay, which --api native replays natively.
var serverOnlyFlags = []string{"base-url", "api-key", "model", "temperature", "extra", "constrain", "template", "max-tokens", "no-stream", "stall-timeout", "api"}

// noteIdle notes the flags given that do nothing in the mode chosen.
func (o *runOptions) noteIdle(fs *pflag.FlagSet) {
	o.idle.fs = fs
	server := serverOnlyFlags
	switch {
	case o.modelCmd != "":
		o.idle.note("with --model-cmd, which runs a program instead of asking a model server", server...)
	case o.replay != "":
		o.idle.note("with --replay: the recording gives the model's turns", server[:len(server)-1]...)
	default:
		if o.api.value != "completions" {
			o.idle.note("without --api completions: the server renders the chat", "template")
		}
		if o.api.value == "native" {
			o.idle.note("with --api native: the server's own tool calling writes the calls", "constrain")
		}
	}
	if o.answer {
		o.idle.note("with --answer: stdout holds the answer alone", "jsonl")
	}
}

// modelBackend is the model backend the flags ask for, with what goes
// with it.
type modelBackend struct {
	backend         run.Backend
	observationRole string   // how it wants observations back
	secrets         []string // the key and the URL's password
	stop            []string // the prompt template's stop sequences
}

// backend makes the model backend the flags ask for.
func (o *runOptions) backend(ctx context.Context) (modelBackend, error) {
	switch {
	case o.replay != "":
		return modelBackend{}, nil // the recording's, set up with the loop's options
	case o.modelCmd != "":
		argv := strings.Fields(o.modelCmd)
		if err := findProgram("--model-cmd", "as the model", argv); err != nil {
			return modelBackend{}, err
		}
		return modelBackend{backend: run.NewModelCmd(argv, o.totalTimeout), observationRole: run.RoleTool}, nil
	}
	hopts, err := o.server.options()
	if err != nil {
		return modelBackend{}, err
	}
	hopts.Stream = !o.noStream
	hopts.Stall = o.stall
	secrets := run.Secrets(hopts)
	switch o.api.value {
	case "completions":
		var tmpl *run.PromptTemplate
		var err error
		if o.template == "auto" {
			if tmpl, err = run.ServerTemplate(ctx, hopts); err != nil {
				return modelBackend{}, err
			}
		} else if tmpl, err = run.Template(o.template); err != nil {
			return modelBackend{}, usage(fmt.Errorf("--template: %w", err))
		}
		return modelBackend{backend: run.NewCompletions(hopts, tmpl.Render), observationRole: run.RoleTool, secrets: secrets, stop: tmpl.Stop()}, nil
	case "native":
		return modelBackend{backend: run.NewNative(hopts), observationRole: run.RoleTool, secrets: secrets}, nil
	}
	return modelBackend{backend: run.NewChat(hopts), observationRole: run.RoleUser, secrets: secrets}, nil
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

// native reports whether the run uses the server's own tool calling:
// with --api native and a model server (a replay decides for itself, in
// run.Recording.Setup).
func (o *runOptions) native() bool {
	return o.api.value == "native" && o.modelCmd == ""
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
