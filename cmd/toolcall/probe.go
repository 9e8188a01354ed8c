package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/run"
)

const probeLong = `Probe asks a model server what it supports and says how to run against it.
It sends a few short requests, one check at a time, and writes one probe
event per check, then a recommendation event: the toolcall run flags to
use, and why, with a line to paste. At a terminal it shows a short table
instead, a line per check and the line to paste (--json keeps the events);
with standard output piped and standard error a terminal, the table goes
to standard error.

The checks, in the order they run (--checks picks some):

    models        GET /models (and Ollama's /api/tags): the models, the
                  server when it says (llama.cpp, vllm, ollama), and the
                  model --model resolves to (else the first listed)
    chat          /chat/completions answers a trivial request, not streamed
                  and streamed; first_token_ms is the time to the first token
    completions   the same for /completions
    native_tools  a request with one harmless tool (add) and a question that
                  needs it: status supported (native tool_calls), leaking
                  (the call comes back as text in content, with the format
                  parse reads in it), no_tool_use (plain text), or rejected
                  (the server refuses tools)
    constrain     whether the server honours response_format json_schema on
                  chat, and llama.cpp's json_schema and grammar fields on
                  completions: the reply must hold a value only the
                  constraint could make the model write
    prompt_mode   toolcall's own prompt in each --style: whether the model
                  writes a call that parse reads, and in which format

Every check has its own time limit (--timeout, default 30s), so a probe never
hangs. A server that fails, refuses or does not answer is reported in the
check's event (status, error), not as a failure of the command: probe exits
0, or 1 with --fail when no endpoint answered at all. The API key and any
password in the base URL never appear in the output.`

const probeExample = `  # llama-server or mlx_lm.server on this machine
  toolcall probe

  # an Ollama server and one of its models, the recommendation alone
  toolcall probe --base-url http://127.0.0.1:11434/v1 --model qwen3:8b |
    jq -r 'select(.type == "recommendation") | .command'

  # in CI: only whether the server answers and takes tools
  toolcall probe --checks chat,native_tools --fail > /dev/null`

type probeOptions struct {
	server  serverFlags
	model   string
	timeout time.Duration
	checks  []string
	fail    bool
	json    bool // the events even at a terminal
	// formatFiles are read in the replies, as parse reads them.
	formatFiles formatFiles

	isTerminal func(io.Writer) bool
}

func newProbeCmd(stdout, stderr io.Writer) *cobra.Command {
	o := probeOptions{isTerminal: isTerminalWriter}
	cmd := &cobra.Command{
		Use:     "probe",
		Short:   "Find out what a model server supports, and how to run against it",
		Long:    probeLong,
		Example: probeExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.server.sources(cmd.Flags())
			return o.run(cmd.Context(), stdout, stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.server.baseURL, "base-url", "", "the model server's OpenAI-compatible `url` (default $OPENAI_BASE_URL, else http://127.0.0.1:8080/v1)")
	fs.StringVar(&o.server.apiKey, "api-key", "", "the server's API `key` (default $OPENAI_API_KEY)")
	fs.StringVar(&o.model, "model", "", "the model `name` to ask for (default: the first the server lists)")
	durationVar(fs, &o.timeout, "timeout", run.DefaultProbeTimeout, "give each check at most this long")
	envAs(fs, "timeout", "TOOLCALL_PROBE_TIMEOUT") // per check, not per tool nor per run
	fs.StringSliceVar(&o.checks, "checks", nil, "run only these `checks`: "+strings.Join(run.ProbeChecks, ", ")+" (comma-separated)")
	fs.BoolVar(&o.fail, "fail", false, "exit 1 when no endpoint of the server answered")
	fs.BoolVar(&o.json, "json", false, "write the probe events as JSONL even when standard output is a terminal")
	o.formatFiles.add(fs)
	must(cmd.RegisterFlagCompletionFunc("checks", func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		// Complete the last of a comma-separated list.
		done, last := "", toComplete
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			done, last = toComplete[:i+1], toComplete[i+1:]
		}
		var out []cobra.Completion
		for _, c := range run.ProbeChecks {
			if strings.HasPrefix(c, last) {
				out = append(out, done+c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}))
	for _, name := range []string{"base-url", "api-key", "model"} {
		must(cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions))
	}
	return cmd
}

func (o *probeOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	formats, err := o.formatFiles.load()
	if err != nil {
		return err
	}
	if err := run.CheckNames(o.checks); err != nil {
		return usage(fmt.Errorf("--checks: %w", err))
	}
	if o.timeout <= 0 {
		return usage(errors.New("--timeout must be more than 0"))
	}
	hopts, err := o.server.options()
	if err != nil {
		return err
	}
	// A person at the terminal reads the table, not the events: on stdout
	// when it is the terminal (the events with --json, and then no table),
	// else beside the piped events on stderr.
	var table io.Writer
	events := stdout
	switch {
	case o.isTerminal(stdout):
		if !o.json {
			table, events = stdout, nil
		}
	case o.isTerminal(stderr):
		table = stderr
	}
	rec, err := run.Probe(ctx, run.ProbeOptions{
		HTTP:    hopts,
		Model:   o.model,
		Checks:  o.checks,
		Timeout: o.timeout,
		Environ: os.Environ(),
		Formats: formats,
	}, func(event []byte) error {
		if events != nil {
			if _, err := events.Write(append(event, '\n')); err != nil {
				return err
			}
		}
		if table != nil {
			summarize(table, event)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if o.fail && !rec.Usable {
		fmt.Fprintln(stderr, "toolcall: the server is not usable: no endpoint answered")
		return errReported
	}
	return nil
}

// summarize writes the line a person reads for an event; what the
// server said goes through termsafe.
func summarize(stderr io.Writer, event []byte) {
	ev := gjson.ParseBytes(event)
	if ev.Get("type").Str == "recommendation" {
		if ev.Get("usable").Bool() {
			fmt.Fprintf(stderr, "run with: %s\n", termsafe.Line(ev.Get("command").Str))
		} else {
			fmt.Fprintf(stderr, "not usable: %s\n", termsafe.Line(ev.Get("reasons.0").Str))
		}
		return
	}
	line := fmt.Sprintf("%-13s %-12s %s", ev.Get("check").Str, ev.Get("status").Str, termsafe.Line(ev.Get("summary").Str))
	if e := ev.Get("error").Str; e != "" {
		line += ": " + termsafe.Line(e)
	}
	fmt.Fprintln(stderr, line)
}

// baseURLShape says what a base URL looks like.
const baseURLShape = "give http:// or https://, a host and the API's path, such as http://127.0.0.1:8080/v1"

// serverFlags are the flags that name the model server, for run and
// probe, with where each value came from (see source), for messages.
type serverFlags struct {
	baseURL, apiKey       string
	baseSource, keySource string
}

// sources notes where --base-url and --api-key came from.
func (f *serverFlags) sources(fs *pflag.FlagSet) {
	f.baseSource, f.keySource = source(fs, "base-url"), source(fs, "api-key")
}

// options finds the model server: --base-url, else OPENAI_BASE_URL, else
// the default; --api-key, else OPENAI_API_KEY.
func (f *serverFlags) options() (run.HTTPOptions, error) {
	base, baseSource := f.baseURL, f.baseSource
	if base == "" {
		base, baseSource = os.Getenv("OPENAI_BASE_URL"), "OPENAI_BASE_URL"
	}
	if base == "" {
		base, baseSource = run.DefaultBaseURL, "the default base URL"
	}
	if _, err := url.Parse(base); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // it quotes the URL, password and all
		}
		return run.HTTPOptions{}, usage(fmt.Errorf("%s %s is not a base URL (%w): %s", baseSource, run.DisplayURL(base), err, baseURLShape))
	}
	if u, _ := url.Parse(base); (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return run.HTTPOptions{}, usage(fmt.Errorf("%s %s is not a base URL: %s", baseSource, run.DisplayURL(base), baseURLShape))
	}
	key, keySource := f.apiKey, f.keySource
	if key == "" {
		key, keySource = os.Getenv("OPENAI_API_KEY"), "OPENAI_API_KEY"
	}
	if key == "" {
		keySource = "--api-key, TOOLCALL_API_KEY or OPENAI_API_KEY"
	}
	return run.HTTPOptions{BaseURL: base, APIKey: key, KeySource: keySource}, nil
}
