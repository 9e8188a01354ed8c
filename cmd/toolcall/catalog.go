package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/termsafe"
)

const catalogLong = `Catalog reads tool directories and writes the tools in them: as tool
events, as the tools array of the OpenAI, Anthropic or Ollama APIs, as an MCP
tools/list result, or as the block of a system prompt that teaches a
text-only model to call them.

A tool is an executable and a JSON sidecar beside it: get_weather (or
get_weather.py, any language) and get_weather.json. The sidecar holds the
tool's description and the JSON Schema of its arguments, in our shape or as
an OpenAI, Anthropic, MCP or BFCL definition dropped in as it is:

    {"description": "Current weather for a city.",
     "input_schema": {"type": "object",
                      "properties": {"city": {"type": "string"}},
                      "required": ["city"]},
     "safe": true, "timeout": "20s", "tags": ["weather", "network"],
     "examples": [{"arguments": {"city": "Paris"}}]}

An invalid sidecar fails every command that reads its directory (exit
2), naming the file; --skip-invalid loads the valid tools instead and
lists each invalid sidecar on stderr with a warning.

A sidecar without a schema is an error (fail closed) unless it says
"allow_no_schema": true and a "no_schema_mode" of read-only, human-approval
or full. A $ref must resolve inside the sidecar (#/$defs/..., or a
resource embedded with its own $id); nothing is ever fetched. A schema that
does not compile makes its sidecar invalid, the error naming the keyword
(--skip-invalid withholds the tool, with a warning).
"requires": ["jq"] and "platforms": ["linux"] keep a tool out of the
catalog where it cannot run; --check says why. "retries": 2 runs a safe
tool again after a timeout or a failed exit, up to twice (see toolcall
exec --help); it must be a whole number from 0 to 10, and a tool marked
"safe": false may not ask for it. --tools may also name a
file of definitions (an OpenAI or Anthropic tools array, an MCP tools/list
result or response, a BFCL entry): those tools are listed and validated,
but have no executable to run. A .json file with no key
of a tool definition and no executable beside it (package.json) is
skipped.

Argument normalisation: "aliases": {"q": "query", "/filter/q": "query"}
names the near misses a model writes for a property (a bare name at the
top level; inside an object, a JSON pointer with the schema's names, "*"
standing for every item of an array), and "value_aliases": {"/unit":
{"C": "celsius"}} those it writes for an enum value. validate, exec, run
and mcp serve apply them before the schema is checked, and a call that
needed them says so under "normalized"; no format shows them to the
model. --check reports an alias that is not a property of the schema in
that object (or is one itself), and a value alias that is not one of the
enum's values there (or is one itself). "max_calls": N runs the tool at
most N times in one run or exec stream (toolcall exec --help).

Tools marked "safe": false are left out unless --allow-unsafe (or
--approve NAME) is given, and standard error says how many; --local-only leaves out tools tagged "network"; --allow, --deny and --tag
choose by name and tag.

With --query TEXT, or a request read from standard input when asked
with --query - (or the argument -): plain text, {"query": ...},
{"prompt": ...}, a user message, or {"messages": [...]}, the tools are
ranked for it with BM25 over their names, descriptions, tags,
argument names and outputs, and the best 3 scoring at least --min-score are written,
each with its score (0 to 1) and the terms that matched. Standard input
is not read otherwise, so catalog in a while-read loop leaves the loop's
input alone. --max N asks for N tools: when there are
no more than N, all of them are written in catalog order, each still with
its score; when fewer than N score --min-score, the best of the rest make
up the N and a warning says so. --scorer runs a command of
your own instead: it reads {"query", "tools"} as JSON on stdin and prints
{"scores": [{"name", "score", "reason"}]}; if it fails or takes longer than
--scorer-timeout, BM25 ranks instead and a warning says why.

OpenAI and Anthropic accept only names of letters, digits, _ and -, at most
64 of them. For those formats a name such as math.factorial is written as
math_factorial (with _2, _3 ... when that is taken, and a hash when it is
too long); validate, exec and run map such a name back to the tool.

--explain writes, for every tool, an explain event instead: the words of
the request it matched, in which fields, with what weights, and whether
it is offered; for a tool's author to see why.

--check lints every sidecar instead: schemas that do not compile, missing
or non-executable programs, bad or duplicate names, examples that fail
their own schema, remote $refs, directories without tools. It lists each
problem with its file on standard error, with the files it skipped and
the sidecars' warnings, and exits 1 if there is any problem.`

const catalogExample = `  # every tool, one tool event per line
  toolcall catalog --tools ./tools

  # the tools array for a chat completion request
  toolcall catalog --tools ./tools --format openai

  # the three tools that best fit a request, as a system prompt
  toolcall catalog --tools ./tools --query "weather in Paris" --format prompt

  # the same, with calls written as <tool_call> tags
  toolcall catalog --tools ./tools --format prompt --style xml --query - < request.json

  # in CI: lint the tool directories
  toolcall catalog --tools ./tools --check`

type catalogOptions struct {
	notes         io.Writer // stderr, or io.Discard under -q
	tools         toolsFlags
	format        choice // --format
	style         choice // --style
	pageSize      int
	cursor        string
	tags          []string
	query         string
	max           int
	minScore      float64
	scorer        string
	scorerTimeout time.Duration
	check         bool
	explain       bool

	// Which flags were given (by flag or variable): a flag's zero value
	// and its absence differ for these.
	styleSet, querySet, maxSet bool
	pageSet                    []string // of --page-size and --cursor, those given

	idle idleFlags // flags given that do nothing in the mode chosen

	isTerminal func(io.Reader) bool
}

func newCatalogCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	opts := catalogOptions{
		notes:      stderr,
		format:     choice{value: catalog.FormatJSONL, choices: catalog.Formats},
		style:      choice{value: catalog.StyleJSONL, choices: catalog.Styles},
		isTerminal: isTerminal,
	}
	cmd := &cobra.Command{
		Short:   "List, rank and render tools for a prompt or a model API",
		Long:    catalogLong,
		Example: catalogExample,
		Use:     "catalog [-]",
		Args:    stdinArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			opts.styleSet = fs.Changed("style")
			for _, name := range []string{"page-size", "cursor"} {
				if fs.Changed(name) {
					opts.pageSet = append(opts.pageSet, "--"+name)
				}
			}
			opts.querySet = fs.Changed("query")
			opts.maxSet = fs.Changed("max")
			if len(args) == 1 { // "-", as stdinArg allows
				if opts.querySet {
					return usage(errors.New("give the request once: --query TEXT, or - to read it from stdin"))
				}
				opts.query, opts.querySet = "-", true
			}
			opts.noteIdle(fs)
			opts.notes = notesTo(cmd, stderr)
			return opts.run(cmd.Context(), stdin, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	opts.tools.addDirs(fs)
	fs.Var(&opts.format, "format", "write the tools as `name`: "+strings.Join(catalog.Formats, ", "))
	fs.Var(&opts.style, "style", "with --format prompt, how the model is told to write calls: "+strings.Join(catalog.Styles, ", "))
	fs.IntVar(&opts.pageSize, "page-size", 0, "with --format mcp, at most `n` tools per page, with a nextCursor for the next")
	fs.StringVar(&opts.cursor, "cursor", "", "with --format mcp, start at the page a previous nextCursor named (the `cursor`)")
	opts.tools.addPolicy(fs)
	fs.StringSliceVar(&opts.tags, "tag", nil, "only tools with one of these `tags` (repeatable, comma-separated)")
	fs.StringVar(&opts.query, "query", "", "rank the tools for this request `text`; - reads the request from stdin: plain text, {\"query\": ...}, {\"prompt\": ...} or {\"messages\": [...]}")
	fs.IntVar(&opts.max, "max", 0, "write `n` tools: when ranking, all of them if there are no more, else the best n, made up with the best of the rest if fewer score --min-score (default: at most 3 when ranking, else all)")
	fs.Float64Var(&opts.minScore, "min-score", 0.05, "when ranking, leave out tools scoring below this (0 to 1)")
	fs.StringVar(&opts.scorer, "scorer", "", "rank with this `command` instead of BM25 (no shell: words split on spaces)")
	durationVar(fs, &opts.scorerTimeout, "scorer-timeout", 10*time.Second, "give up on --scorer after this long and rank with BM25")
	fs.BoolVar(&opts.check, "check", false, "lint the tool directories instead, listing every problem; exit 1 if any")
	fs.BoolVar(&opts.explain, "explain", false, "with a query, write for every tool an explain event instead: the words that matched, in which fields, with what weights, and whether it is offered")
	noEnv(fs, "check")
	envAs(fs, "format", "TOOLCALL_CATALOG_FORMAT")
	opts.tools.registerCompletions(cmd, true)
	must(cmd.RegisterFlagCompletionFunc("format", opts.format.complete))
	must(cmd.RegisterFlagCompletionFunc("style", opts.style.complete))
	return cmd
}

// noteIdle notes the flags given that do nothing in the mode chosen.
func (o *catalogOptions) noteIdle(fs *pflag.FlagSet) {
	o.idle.fs = fs
	if o.check {
		o.idle.note("with --check: it lints every tool and writes none",
			"format", "style", "page-size", "cursor", "allow", "deny", "allow-unsafe", "local-only", "approve", "tag",
			"query", "max", "min-score", "scorer", "scorer-timeout", "explain", "skip-invalid")
		return
	}
	if !o.querySet {
		o.idle.note("without a query to rank for (--query)", "min-score", "scorer", "scorer-timeout")
	}
}

func (o *catalogOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.check {
		o.idle.warn(stderr)
		return o.runCheck(stderr)
	}
	if o.styleSet && o.format.value != catalog.FormatPrompt {
		return usage(errors.New("--style applies to --format prompt only"))
	}
	if o.explain && o.format.value != catalog.FormatJSONL {
		return usage(fmt.Errorf("--explain writes explain events, not --format %s", o.format.value))
	}
	if len(o.pageSet) > 0 && o.format.value != catalog.FormatMCP {
		verb := " applies"
		if len(o.pageSet) > 1 {
			verb = " apply"
		}
		return usage(errors.New(strings.Join(o.pageSet, " and ") + verb + " to --format mcp only"))
	}
	// Each bound is named alone, so the message says which one to change.
	switch {
	case o.max < 0:
		return usage(fmt.Errorf("--max %d: want a number of tools, 0 or more", o.max))
	case o.pageSize < 0:
		return usage(fmt.Errorf("--page-size %d: want a number of tools, 0 or more", o.pageSize))
	}
	if o.minScore < 0 || o.minScore > 1 {
		return usage(fmt.Errorf("--min-score %g is outside 0 to 1", o.minScore))
	}
	o.idle.warn(stderr)
	policy, err := o.tools.policy()
	if err != nil {
		return err
	}
	c, err := o.tools.load(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	// Stdin is read only when asked: a catalog in a while-read loop, or
	// under a pipe that stays open, must not take its input.
	query := o.query
	if o.querySet && query == "-" {
		if o.isTerminal(stdin) {
			fmt.Fprintln(stderr, "toolcall: reading the request from stdin (type it, then Ctrl-D); or give it as --query TEXT")
		}
		if query, err = readRequest(stdin); err != nil {
			return err
		}
	}
	max := o.max
	if !o.maxSet && query != "" {
		max = 3
	}
	sel := catalog.Selection{
		Policy:        policy,
		Tags:          o.tags,
		Query:         query,
		Max:           max,
		Cap:           !o.maxSet,
		MinScore:      o.minScore,
		Scorer:        strings.Fields(o.scorer),
		ScorerTimeout: o.scorerTimeout,
		Warn:          warnTo(stderr),
	}
	if o.explain {
		if query == "" {
			return usage(errors.New("--explain explains a ranking: give a request with --query TEXT, or --query - to read it from stdin"))
		}
		es, err := c.Explain(ctx, sel)
		if err != nil {
			return err
		}
		return catalog.WriteExplained(stdout, es)
	}
	picked, err := c.Select(ctx, sel)
	if err != nil {
		return err
	}
	if names := c.Withheld(sel); len(names) > 0 {
		it := "them, or --approve NAME for one"
		if len(names) == 1 {
			it = "it, or --approve " + names[0]
		}
		fmt.Fprintf(o.notes, "toolcall: %d unsafe tool%s left out (%s): add --allow-unsafe to include %s\n",
			len(names), plural(len(names)), termsafe.Line(strings.Join(names, ", ")), it)
	}
	err = catalog.Render(stdout, c, picked, catalog.RenderOptions{
		Format:   o.format.value,
		Style:    o.style.value,
		PageSize: o.pageSize,
		Cursor:   o.cursor,
	})
	if errors.Is(err, catalog.ErrBadCursor) {
		return usage(err)
	}
	return err
}

// maxRequest bounds the request catalog reads from stdin.
const maxRequest = 16 << 20

// readRequest reads the request on stdin that --query - asks for and
// returns its query; empty input is no query.
func readRequest(stdin io.Reader) (string, error) {
	data, err := io.ReadAll(io.LimitReader(stdin, maxRequest+1))
	if err != nil {
		return "", fmt.Errorf("reading the request on stdin: %w", err)
	}
	if len(data) > maxRequest {
		return "", usage(fmt.Errorf("the request on stdin is over %d MiB; pass the query as --query TEXT", maxRequest>>20))
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return "", nil
	}
	q, err := catalog.RequestQuery(data)
	if err != nil {
		return "", usage(fmt.Errorf("the request on stdin: %w", err))
	}
	return q, nil
}

// stdinArg allows catalog's one optional argument, "-": the request on
// stdin, as --query - reads it.
func stdinArg(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return nil
	case len(args) == 1 && args[0] == "-":
		return nil
	}
	return usage(fmt.Errorf("%s takes no arguments but -, the request on stdin; got %q (a query is --query TEXT)", cmd.Name(), args[0]))
}

// runCheck lints the tool directories.
func (o *catalogOptions) runCheck(stderr io.Writer) error {
	if len(o.tools.dirs) == 0 {
		return usage(errors.New("--check lints tool directories: give --tools DIR, or set TOOLCALL_TOOLS (it starts no MCP server, so --mcp alone has nothing to lint)"))
	}
	problems, skipped := catalog.Check(o.tools.dirs, catalog.LoadOptions{Warn: warnTo(stderr)})
	for _, p := range skipped {
		if p.Tool == "" {
			fmt.Fprintf(stderr, "%s (skipped)\n", p) // a .json file that is not a sidecar
		} else {
			fmt.Fprintf(stderr, "%s (not advertised)\n", p)
		}
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "toolcall: %d problem%s\n", len(problems), plural(len(problems)))
		return errReported
	}
	return nil
}
