package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
)

const parseLong = `Parse reads what a model wrote and turns it into events: one JSON object per
line on standard output, each written the moment it is complete, so a
stream from a model server is parsed while it arrives.

It reads each <file> in turn, or standard input when no file is given or the
file is "-". The input may be:

    raw text       what the model printed, with its calls in any of the
                   syntaxes of --list-formats: Hermes/Qwen <tool_call>,
                   Llama 3 JSON, Qwen3-Coder XML, Mistral [TOOL_CALLS], ...
    response JSON  an OpenAI chat completion or an Ollama /api/chat
                   response, with native tool_calls or text content
    SSE stream     server-sent events ("data: {...}" lines) as curl -N
                   prints them from a streaming chat completion

An input that is not text (a NUL byte, or bytes that are not UTF-8, in its
first 8 KiB) is refused with exit 2 naming it, unless --binary-ok.

It writes these events, with their fields beyond "type":

    text          content: prose outside any call; nothing the model said
                  is lost. format only on Command R's directly_answer, the
                  template's pseudo-tool for "no tool needed": kept as
                  text, no call (unless --tools has a tool of that name)
    reasoning     content: a <think>-style block; never searched for calls;
                  format (the kind of block, such as think)
    tool_call     id (call_1, call_2, ... in stream order, unless the model
                  gave one), name, arguments (always a JSON object),
                  format (the syntax the call came in), repaired (true when
                  JSON repair changed the model's text), repairs (what it
                  changed: bare_word, single_quotes, trailing_comma, ...;
                  docs/json-repair.md lists them all)
    final_answer  content
    parse_error   error (what was wrong, in words a model can act on),
                  raw (the text that failed), offset (its byte offset),
                  format (the syntax it was written in, when known),
                  file (the input it came from, when there are several)

Call ids go on counting across files: the first call of the second file
follows the last call of the first.

A syntax none of them covers can be described in a format file, JSON that
names its markers and how the text between them is read (docs/formats.md):
--format-file FILE (repeatable, or TOOLCALL_FORMAT_FILES, colon-separated)
reads it besides the built-in ones. --show-format ID prints a family in
that form, to copy and change.

Every syntax is looked for unless --format names one, or --template gives
the model's own chat template: a Jinja file, a tokenizer_config.json
(chat_template as a string or a named list, or the chat_template.jinja
beside it), a model directory holding either, or a GGUF model file (only
its header is read). The template is rendered with probe calls, and the
difference tells how the model writes a call. When that is a syntax of
--list-formats, only it is looked for; otherwise calls are read with the
markers taken from the template and carry "format": "template". The
template's end-of-turn and other control tokens never appear in text
events. Never worse than without it: the input is also read by
detection, and where the template's syntax reads no call but detection
reads one, detection's events are written, each call's format marked
"auto:" ("auto:mistral"); so the text before the first call waits (up to
4 MiB) until a call shows whose events to write. A template that does
not render, or renders no tool calls, gets
one warning naming the template and what failed, and every syntax is
looked for as without --template; with --template-strict it is an error
(exit 2). A template that would read other files ({% include %},
{% import %}, {% from %}, {% extends %}) is always an error. With --tools, the
tools' schemas type the bare values of XML-style calls ("007" stays a
string where the schema says string), and a complete bare call (Llama 3
JSON, a pythonic list) to one of the tools counts even inside a line of
prose. JSON that is not strictly valid (single quotes, a trailing comma,
a missing brace) is repaired where that is safe, and the call is marked
"repaired": true, with the kinds of change in "repairs"; with --no-repair
it is a parse_error instead.

A parse_error is data, not a failure: parse exits 0, so a loop can show
the model its mistake. With --fail, parse exits 1 when it wrote any
parse_error, as a CI check wants, and says on stderr how many each file
had.`

const parseExample = `  # a model's raw output, saved to a file
  toolcall parse reply.txt

  # events as the tokens arrive from llama-server, mlx_lm.server or vLLM
  # (with "stream": true in req.json; without it, the response JSON)
  curl -sN http://127.0.0.1:8080/v1/chat/completions -d @req.json | toolcall parse

  # only the calls
  toolcall parse reply.txt | jq -c 'select(.type == "tool_call")'

  # look for Qwen3-Coder XML calls only
  toolcall parse --format qwen3_coder reply.txt

  # read the calls the way the model's own chat template writes them
  toolcall parse --template tokenizer_config.json reply.txt
  toolcall parse --template model.gguf reply.txt

  # the syntaxes parse knows, and the models that write them
  toolcall parse --list-formats

  # a syntax of your own, described in a format file (docs/formats.md)
  toolcall parse --format-file acme.json reply.txt
  toolcall parse --show-format qwen3_coder > my_coder.json

  # in CI: fail when any call in the saved outputs could not be parsed
  toolcall parse --fail outputs/*.txt > events.jsonl`

// stdinHint is said on stderr when parse would read a terminal.
const stdinHint = "toolcall: reading model output from stdin (paste it, then Ctrl-D); see 'toolcall parse --help'"

type parseOptions struct {
	tools          toolsFlags  // --tools
	format         formatValue // --format
	template       string      // --template
	templateStrict bool        // --template-strict
	noRepair       bool        // --no-repair
	fail           bool        // --fail
	listFormats    bool        // --list-formats
	showFormat     string      // --show-format
	formatFiles    formatFiles // --format-file
	flags          *pflag.FlagSet
	binaryOK       bool // --binary-ok

	// stream is parse.Stream; tests replace it.
	stream func(context.Context, io.Reader, io.Writer, parse.Options) (parse.Stats, error)
	// isTerminal reports whether a reader is a terminal; tests replace it.
	isTerminal func(io.Reader) bool
}

func newParseCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	opts := parseOptions{stream: parse.Stream, isTerminal: isTerminal}
	cmd := &cobra.Command{
		Use:     "parse [<file>...]",
		Short:   "Turn model output into text, reasoning and tool_call events",
		Long:    parseLong,
		Example: parseExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			return opts.run(cmd.Context(), args, stdin, stdout, stderr)
		},
	}
	flags := cmd.Flags()
	opts.flags = flags
	opts.tools.addDirs(flags)
	opts.tools.registerCompletions(cmd, false)
	flags.Var(&opts.format, "format", "look for this syntax only, an id from --list-formats (default: every syntax)")
	flags.StringVar(&opts.template, "template", "", "read calls the way this chat `template` writes them: a .jinja file, a tokenizer_config.json, a model directory or a GGUF model")
	envAs(flags, "template", "TOOLCALL_PARSE_TEMPLATE") // run's --template also takes prompt templates
	flags.BoolVar(&opts.templateStrict, "template-strict", false, "exit 2 when the --template cannot be rendered or its call syntax derived, instead of warning and looking for every syntax")
	envAs(flags, "template-strict", "TOOLCALL_PARSE_TEMPLATE_STRICT")
	flags.BoolVar(&opts.noRepair, "no-repair", false, "report JSON that is not strictly valid as a parse_error instead of repairing it")
	flags.BoolVar(&opts.fail, "fail", false, "exit 1 if any parse_error was written")
	flags.BoolVar(&opts.binaryOK, "binary-ok", false, "read an input that is not text (a NUL byte, or bytes that are not UTF-8, in its first 8 KiB) rather than refuse it")
	flags.BoolVar(&opts.listFormats, "list-formats", false, "list the syntaxes parse knows, and the models that write them, then exit")
	noEnv(flags, "list-formats")
	flags.StringVar(&opts.showFormat, "show-format", "", "print the spec of the syntax `id` as a format file (with --template, \"template\" is the template's), then exit")
	noEnv(flags, "show-format")
	must(cmd.RegisterFlagCompletionFunc("show-format", completeFormat))
	opts.formatFiles.add(flags)
	envAs(flags, "format", "TOOLCALL_PARSE_FORMAT")
	must(cmd.RegisterFlagCompletionFunc("format", completeFormat))
	return cmd
}

// run parses each input (args, else stdin) into stdout, or lists the
// formats.
func (o *parseOptions) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	specs, err := o.formatFiles.load()
	if err != nil {
		return err
	}
	if o.listFormats || o.showFormat != "" {
		return o.describe(args, specs, stdout, stderr)
	}
	if err := checkFormat(string(o.format), o.formatFrom(), specs); err != nil {
		return err
	}
	// With --tools, the schemas type tagged values and a bare
	// call to one of the tools counts wherever it starts.
	var set tools.ToolSet
	if len(o.tools.dirs) > 0 || len(o.tools.mcp) > 0 {
		c, err := o.tools.load(stderr)
		if err != nil {
			return err
		}
		defer c.Close()
		set = c
	}
	if o.template != "" {
		if o.format != "" {
			return usage(errors.New("--format and --template both choose the syntax: give one of them"))
		}
		if slices.Contains(run.TemplateNames, o.template) || o.template == "auto" {
			return usage(fmt.Errorf("--template %s is one of run's prompt templates; parse needs the model's own chat template: a .jinja file, a tokenizer_config.json or a GGUF model", o.template))
		}
	}
	base := run.ParserOptions(set, parse.Options{Format: string(o.format), NoRepair: o.noRepair, Formats: specs})
	if o.template != "" {
		opts, stream, fallback, err := run.TemplateParser(o.template, o.templateStrict, base)
		if err != nil {
			return usage(fmt.Errorf("--template: %w", err))
		}
		if fallback != nil {
			fmt.Fprintf(stderr, "toolcall: warning: --template: %v\n", fallback)
		}
		base = opts
		if stream != nil {
			o.stream = stream
		}
	}
	ins, closeAll, err := openInputs(stdin, args)
	if err != nil {
		return err
	}
	defer closeAll()
	// Through pipes, larger pipe buffers save parse and its neighbours
	// waiting on each other (pipe_linux.go).
	for _, in := range ins {
		if in.name == "" {
			growPipe(in.r)
		}
	}
	growPipe(stdout)
	return o.parseAll(ctx, ins, stdout, stderr, base)
}

// parseAll parses each input in turn into stdout with the options base.
func (o *parseOptions) parseAll(ctx context.Context, ins []input, stdout, stderr io.Writer, base parse.Options) error {
	var total parse.Stats
	// With several inputs, a parse_error says which one it came from, and
	// --fail counts the errors of each.
	multi := len(ins) > 1
	type fileErrors struct {
		name string
		n    int
	}
	var failed []fileErrors
	err := eachInput(ins, o.isTerminal, stdinHint, stderr, func(in input, _ func(int, error)) error {
		name := in.name
		if name == "" {
			name = "stdin"
		}
		opts := base
		opts.FirstID = total.Calls
		if multi {
			opts.File = name
		}
		r := in.r
		if !o.binaryOK {
			r = textOnly(r, in.name)
		}
		st, err := o.stream(ctx, r, stdout, opts)
		total.Events += st.Events
		total.Calls += st.Calls
		total.Errors += st.Errors
		if st.Errors > 0 {
			failed = append(failed, fileErrors{name, st.Errors})
		}
		if nt := (*notTextError)(nil); errors.As(err, &nt) {
			return &usageError{err: nt}
		}
		return err
	})
	if err != nil {
		return err
	}
	if o.fail && total.Errors > 0 {
		if multi {
			for _, f := range failed {
				fmt.Fprintf(stderr, "toolcall: %s: %d parse error%s\n", f.name, f.n, plural(f.n))
			}
		}
		fmt.Fprintf(stderr, "toolcall: %d parse error%s\n", total.Errors, plural(total.Errors))
		return errReported
	}
	return nil
}

// formatFrom names where --format's value came from, for messages.
func (o *parseOptions) formatFrom() string {
	if o.flags != nil {
		if from := source(o.flags, "format"); from != "" {
			return from
		}
	}
	return "--format"
}

// describe does --list-formats and --show-format: the families parse
// reads, built in, from format files and derived from --template.
func (o *parseOptions) describe(args []string, specs []*parse.Spec, stdout, stderr io.Writer) error {
	flag := "--list-formats"
	if o.showFormat != "" {
		flag = "--show-format"
	}
	if len(args) > 0 {
		return usage(fmt.Errorf("%s takes no files", flag))
	}
	if o.listFormats && o.showFormat != "" {
		return usage(errors.New("--list-formats and --show-format both print: give one of them"))
	}
	if o.template != "" {
		opts, _, fallback, err := run.TemplateParser(o.template, true, parse.Options{})
		if err == nil && fallback != nil {
			err = fallback
		}
		if err != nil {
			return usage(fmt.Errorf("--template: %w", err))
		}
		derived, err := parse.TemplateSpec(opts.Format, opts.Syntax, "template "+o.template)
		if err != nil {
			if o.showFormat != "" {
				return usage(fmt.Errorf("--template %s: %w", o.template, err))
			}
			fmt.Fprintf(stderr, "toolcall: warning: --template %s: %v\n", o.template, err)
		} else {
			if o.showFormat == opts.Format || o.showFormat == parse.FormatTemplate {
				o.showFormat = derived.Format
			}
			specs = append(specs, derived)
		}
	}
	if o.listFormats {
		return listFormats(stdout, specs)
	}
	return showFormat(stdout, o.showFormat, specs)
}

// formatValue is the value of --format: empty, or the ID of a format.
type formatValue string

func (v *formatValue) String() string { return string(*v) }
func (v *formatValue) Type() string   { return "name" }

func (v *formatValue) Set(s string) error {
	if s == "" {
		*v = ""
		return nil
	}
	// Checked once the format files are read (checkFormat): an id may
	// be one of theirs.
	*v = formatValue(s)
	return nil
}

// completeFormat completes --format with the format ids, each described by
// the models that write it.
func completeFormat(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var cs []cobra.Completion
	for _, f := range parse.Formats() {
		if strings.HasPrefix(f.ID, toComplete) {
			cs = append(cs, cobra.CompletionWithDesc(f.ID, f.Models))
		}
	}
	return cs, cobra.ShellCompDirectiveNoFileComp
}
