package run

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/redact"
)

// The checks of Probe, in the order they run: each one after the first
// uses what the ones before it learned (the model; whether the endpoint
// answers at all).
const (
	CheckModels      = "models"       // GET /models (and Ollama's /api/tags): the models, and the one to use
	CheckChat        = "chat"         // /chat/completions answers, streamed and not
	CheckCompletions = "completions"  // /completions answers, streamed and not
	CheckNativeTools = "native_tools" // a request with a tool: native calls, leaked calls, or none
	CheckConstrain   = "constrain"    // response_format, and llama.cpp's json_schema and grammar
	CheckPromptMode  = "prompt_mode"  // toolcall's own prompt, in each style: does parse read the call
)

// ProbeChecks are the checks in the order they run.
var ProbeChecks = []string{CheckModels, CheckChat, CheckCompletions, CheckNativeTools, CheckConstrain, CheckPromptMode}

// DefaultProbeTimeout bounds each check of a probe.
const DefaultProbeTimeout = 30 * time.Second

// ProbeOptions configure Probe.
type ProbeOptions struct {
	HTTP  HTTPOptions // the server; Stream, Retries and Stall are set by Probe
	Model string      // "": the server's first model
	// Checks are the checks to run, a subset of ProbeChecks; nil: all.
	Checks []string
	// Timeout bounds each check, whatever the server does (0:
	// DefaultProbeTimeout).
	Timeout time.Duration
	// Environ is the environment, for redaction: values of secret-looking
	// variables never reach an event.
	Environ []string
	// Formats are families from format files, read in the replies besides
	// the built-in ones (parse.Options.Formats).
	Formats []*parse.Spec
}

// finding is what one check found: a "probe" event.
type finding struct {
	Check string
	// Status is the outcome: "ok", "partial" (some of it works),
	// "unsupported", "error", or for native_tools "supported",
	// "leaking", "no_tool_use" and "rejected".
	Status string
	// Summary is one line for a person.
	Summary string
	// Error is what went wrong, when something did.
	Error    string
	Duration time.Duration
	fields   []bodyField // what the check learned, in a fixed order
}

// set adds a field of the event; val is raw JSON.
func (f *finding) set(key string, val []byte) { f.fields = append(f.fields, bodyField{key, val}) }

func (f *finding) setString(key, val string) { f.set(key, jsonw.AppendString(nil, val)) }

// AppendJSON appends the event, without a newline.
func (f *finding) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"probe","check":`...)
	dst = jsonw.AppendString(dst, f.Check)
	dst = append(dst, `,"status":`...)
	dst = jsonw.AppendString(dst, f.Status)
	for _, kv := range f.fields {
		dst = append(dst, ',')
		dst = jsonw.AppendString(dst, kv.key)
		dst = append(dst, ':')
		dst = append(dst, kv.val...)
	}
	dst = append(dst, `,"summary":`...)
	dst = jsonw.AppendString(dst, f.Summary)
	if f.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = jsonw.AppendString(dst, f.Error)
	}
	dst = append(dst, `,"duration_ms":`...)
	dst = strconv.AppendInt(dst, f.Duration.Milliseconds(), 10)
	return append(dst, '}')
}

// CheckNames validates a list of check names, for --checks.
func CheckNames(names []string) error {
	for _, n := range names {
		if !containsString(ProbeChecks, n) {
			return fmt.Errorf("unknown check %q: choose from %s", n, strings.Join(ProbeChecks, ", "))
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Probe asks the model server of opts what it supports, one check at a
// time, and hands each finding to emit as it is made; then it returns how
// to run against the server. A check that fails is a finding, not an
// error: Probe fails only when emit does or ctx ends. Every event is
// redacted of the key and other secrets before emit sees it.
//
// Each check is bounded by opts.Timeout and sends short requests: a
// trivial prompt, a tool the model would want to call, a fixed value
// only a constraint could make the model write.
func Probe(ctx context.Context, opts ProbeOptions, emit func(event []byte) error) (Recommendation, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultProbeTimeout
	}
	if err := CheckNames(opts.Checks); err != nil {
		return Recommendation{}, err
	}
	p := &prober{opts: opts, model: opts.Model, found: map[string]*finding{}, client: newModelClient(opts.HTTP),
		redactor: redact.New(opts.Environ, nil, Secrets(opts.HTTP)...)}
	for _, name := range ProbeChecks {
		if opts.Checks != nil && !containsString(opts.Checks, name) {
			continue
		}
		f := finding{Check: name}
		cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		start := time.Now()
		p.run(cctx, name, &f)
		cancel()
		f.Duration = time.Since(start)
		if ctx.Err() != nil {
			return Recommendation{}, ctx.Err()
		}
		p.found[name] = &f
		if err := emit(p.redactor.JSON(f.AppendJSON(nil))); err != nil {
			return Recommendation{}, err
		}
	}
	rec := p.recommend()
	return rec, emit(p.redactor.JSON(rec.AppendJSON(nil)))
}

// prober holds what the checks learned so far.
type prober struct {
	opts     ProbeOptions
	client   *modelClient // for the GETs; the backends make their own
	redactor *redact.Redactor
	model    string              // the model to ask for, once known
	server   string              // "llama.cpp", "vllm", "ollama", or "" when unknown
	answered bool                // some request got a reply
	found    map[string]*finding // the checks that ran

	// What the recommendation is made of.
	chatOK, completionsOK bool
	native                string            // native_tools' status
	leakFormat            string            // the format of a leaked call
	constrained           map[string]string // constrain: mechanism -> outcome
	styles                map[string]string // prompt_mode: style -> format of the call read ("" when none)
}

// run runs the check called name.
func (p *prober) run(ctx context.Context, name string, f *finding) {
	switch name {
	case CheckModels:
		p.checkModels(ctx, f)
	case CheckChat:
		p.checkChat(ctx, f)
	case CheckCompletions:
		p.checkCompletions(ctx, f)
	case CheckNativeTools:
		p.checkNative(ctx, f)
	case CheckConstrain:
		p.checkConstrain(ctx, f)
	case CheckPromptMode:
		p.checkPromptMode(ctx, f)
	}
}

// httpOptions are the options of one request of a check: no retries (a
// probe reports what it saw), and a stall bound that is the check's.
func (p *prober) httpOptions(stream bool) HTTPOptions {
	o := p.opts.HTTP
	o.Stream = stream
	o.Retries = 1
	o.Stall = p.opts.Timeout
	return o
}

// failure says what went wrong with a request in a finding's words: no
// answer in time, or what the server or the connection said.
func (p *prober) failure(ctx context.Context, err error) string {
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return fmt.Sprintf("no answer within %s (raise --timeout for a slow model)", p.opts.Timeout)
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		if pe.Status != 0 {
			return fmt.Sprintf("HTTP %d: %s", pe.Status, pe.Message)
		}
		return pe.Message
	}
	return err.Error()
}

// rejected reports whether err is the server refusing the request as
// such (HTTP 4xx other than auth and rate limits), rather than failing.
func rejected(err error) bool {
	var pe *ProviderError
	return errors.As(err, &pe) && pe.Status >= 400 && pe.Status < 500 &&
		pe.Status != http.StatusUnauthorized && pe.Status != http.StatusForbidden && pe.Status != http.StatusTooManyRequests
}

// reply is what a request of a probe got back.
type reply struct {
	start      time.Time
	firstToken time.Duration // -1 until something arrived
	text       []byte
	calls      []tools.Call
	finish     string // the finish reason
}

// cutOff says so when the reply ended at the token limit: a thinking
// model can spend the probe's budget before it gets to the call.
func (r *reply) cutOff() string {
	if r.finish == "length" {
		return " (the reply reached the probe's token limit first, as a long reasoning does)"
	}
	return ""
}

// maxProbeText bounds what a probe keeps of a reply; the requests ask
// for short answers, and a server that goes on is cut off.
const maxProbeText = 64 << 10

func (r *reply) mark() {
	if r.firstToken < 0 {
		r.firstToken = time.Since(r.start)
	}
}

func (r *reply) Text(b []byte) (bool, error) {
	r.mark()
	r.text = append(r.text, b...)
	return len(r.text) > maxProbeText, nil
}

func (r *reply) Reasoning(b []byte) error {
	r.mark() // reasoning is a first token too; what it says is not needed
	return nil
}

func (r *reply) NativeCall(id, name string, args []byte) (bool, error) {
	r.mark()
	r.calls = append(r.calls, tools.Call{ID: id, Name: name, Arguments: args})
	return false, nil
}

// ask sends one request through backend b and collects the reply.
func (p *prober) ask(ctx context.Context, b Backend, req *Request) (*reply, error) {
	r := &reply{start: time.Now(), firstToken: -1}
	if req.Model == "" {
		req.Model = p.model
	}
	if req.Temperature == nil {
		zero := 0.0
		req.Temperature = &zero
	}
	resp, err := b.Complete(ctx, req, r)
	r.finish = resp.FinishReason
	if err == nil {
		p.answered = true
	}
	return r, err
}

// plainPrompt renders messages for /completions the simplest way: the
// probe's prompts need no chat template to be answered.
func plainPrompt(msgs []Message) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case "system":
			b.WriteString(m.Content + "\n\n")
		default:
			b.WriteString("User: " + m.Content + "\n")
		}
	}
	b.WriteString("Assistant:")
	return b.String(), nil
}
