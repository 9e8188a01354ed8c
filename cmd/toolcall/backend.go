package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/run"
)

// backendFlags are the flags that choose the model and how it is asked:
// the server and its API, or a model command, the prompt template and
// style, and what every request carries. They are a group of their own so
// that every command that asks a model (run; an evaluation) registers the
// same flags, with the same help, and builds the backend the same way.
type backendFlags struct {
	api            choice
	server         serverFlags
	model          string
	temperature    float64
	temperatureSet bool // --temperature given: else the server's default
	extra          string
	constrain      bool
	template       string
	modelCmd       string
	style          choice
	stall          time.Duration
	maxTokens      int
	noStream       bool
}

// serverOnlyFlags are the flags that only a model server reads; the last
// is not idle with --replay, which --api native replays natively.
var serverOnlyFlags = []string{"base-url", "api-key", "model", "temperature", "extra", "constrain", "template", "max-tokens", "no-stream", "stall-timeout", "api"}

// register defines the group's flags on cmd, with their defaults and
// completions.
func (b *backendFlags) register(cmd *cobra.Command) {
	b.api = choice{value: "chat", choices: []string{"chat", "completions", "native"}}
	b.style = choice{value: catalog.StyleJSONL, choices: catalog.Styles}
	fs := cmd.Flags()
	fs.Var(&b.api, "api", "how to talk to the model server: chat, completions or native (model servers only)")
	fs.StringVar(&b.server.baseURL, "base-url", "", "the model server's OpenAI-compatible `url` (default $OPENAI_BASE_URL, else http://127.0.0.1:8080/v1)")
	fs.StringVar(&b.server.apiKey, "api-key", "", "the server's API `key` (default $OPENAI_API_KEY)")
	fs.StringVar(&b.model, "model", "", "the model `name` to ask for (model servers only)")
	fs.Float64Var(&b.temperature, "temperature", 0, "sampling temperature (default: the server's) (model servers only)")
	fs.StringVar(&b.extra, "extra", "", "a `JSON` object merged into every request body, e.g. '{\"top_k\": 20}' (model servers only)")
	fs.BoolVar(&b.constrain, "constrain", false, "ask the server for schema-constrained decoding of the protocol (style jsonl) (model servers only)")
	fs.StringVar(&b.template, "template", "chatml", "with --api completions, the prompt `template`: chatml, llama3, mistral, gemma, plain, auto (the server's), or a file: the model's chat template (.jinja, tokenizer_config.json, model directory, .gguf) or a Go text/template")
	fs.StringVar(&b.modelCmd, "model-cmd", "", "run this `command` as the model (no shell: words split on spaces)")
	fs.Var(&b.style, "style", "how the model is told to write calls: jsonl, xml or markdown")
	durationVar(fs, &b.stall, "stall-timeout", run.DefaultStall, "fail a request when the server sends nothing for this long (a local server can read a long prompt for minutes before its first token) (model servers only)")
	fs.IntVar(&b.maxTokens, "max-tokens", 0, "at most this many tokens per model turn (default: the server's) (model servers only)")
	fs.BoolVar(&b.noStream, "no-stream", false, "ask for the whole reply at once instead of streaming it (model servers only)")
	must(cmd.RegisterFlagCompletionFunc("api", b.api.complete))
	must(cmd.RegisterFlagCompletionFunc("style", b.style.complete))
}

// given notes what the command line (or the environment) set, once the
// flags are parsed.
func (b *backendFlags) given(fs *pflag.FlagSet) {
	b.server.sources(fs)
	b.temperatureSet = fs.Changed("temperature")
}

// native reports whether the run uses the server's own tool calling:
// with --api native and a model server (a replay decides for itself, in
// run.Recording.Setup).
func (b *backendFlags) native() bool {
	return b.api.value == "native" && b.modelCmd == ""
}

// modelBackend is the model backend the flags ask for, with what goes
// with it.
type modelBackend struct {
	backend         run.Backend
	observationRole string   // how it wants observations back
	secrets         []string // the key and the URL's password
	stop            []string // the prompt template's stop sequences
}

// build makes the model backend the flags ask for; timeout bounds a
// model command's turn.
func (b *backendFlags) build(ctx context.Context, timeout time.Duration) (modelBackend, error) {
	if b.modelCmd != "" {
		argv := strings.Fields(b.modelCmd)
		if err := findProgram("--model-cmd", "as the model", argv); err != nil {
			return modelBackend{}, err
		}
		return modelBackend{backend: run.NewModelCmd(argv, timeout), observationRole: run.RoleTool}, nil
	}
	hopts, err := b.server.options()
	if err != nil {
		return modelBackend{}, err
	}
	hopts.Stream = !b.noStream
	hopts.Stall = b.stall
	secrets := run.Secrets(hopts)
	switch b.api.value {
	case "completions":
		var tmpl *run.PromptTemplate
		var err error
		if b.template == "auto" {
			if tmpl, err = run.ServerTemplate(ctx, hopts); err != nil {
				return modelBackend{}, err
			}
		} else if tmpl, err = run.Template(b.template); err != nil {
			return modelBackend{}, usage(fmt.Errorf("--template: %w", err))
		}
		return modelBackend{backend: run.NewCompletions(hopts, tmpl.Render), observationRole: run.RoleTool, secrets: secrets, stop: tmpl.Stop()}, nil
	case "native":
		return modelBackend{backend: run.NewNative(hopts), observationRole: run.RoleTool, secrets: secrets}, nil
	}
	return modelBackend{backend: run.NewChat(hopts), observationRole: run.RoleUser, secrets: secrets}, nil
}

// apply sets the loop's options for the model: m, built by build (empty
// for a replay, which sets up its own), and what every request carries.
func (b *backendFlags) apply(lopts *run.Options, m modelBackend) error {
	var extra []byte
	if b.extra != "" {
		if !gjson.Valid(b.extra) || !gjson.Parse(b.extra).IsObject() {
			return usage(fmt.Errorf("--extra %q is not a JSON object", b.extra))
		}
		extra = []byte(b.extra)
	}
	var temperature *float64
	if b.temperatureSet {
		temperature = &b.temperature
	}
	lopts.Backend = m.backend
	lopts.Model = b.model
	lopts.ObservationRole = m.observationRole
	lopts.Native = b.native()
	lopts.Style = b.style.value
	lopts.MaxTokens = b.maxTokens
	lopts.Temperature = temperature
	lopts.Extra = extra
	lopts.Constrain = b.constrain
	lopts.Stop = m.stop
	return nil
}

// check refuses the group's values that are out of bounds.
func (b *backendFlags) check() error {
	if b.stall <= 0 {
		return usage(errors.New("--stall-timeout 0: want more than 0, such as 5m"))
	}
	return nil
}
