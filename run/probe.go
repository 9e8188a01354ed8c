package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
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

// Recommendation is how to run against the server: the "recommendation"
// event that ends a probe.
type Recommendation struct {
	// Usable is false when no endpoint answered.
	Usable bool
	// Args are the flags of toolcall run, Reasons why each was chosen.
	Args    []string
	Reasons []string
}

// Command is the toolcall run line a user can paste, with a placeholder
// for the tools and the prompt.
func (r *Recommendation) Command() string {
	return ShellLine(append(append([]string{"toolcall", "run"}, r.Args...), "--tools", "DIR", "PROMPT"))
}

// AppendJSON appends the event, without a newline.
func (r *Recommendation) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"recommendation","usable":`...)
	dst = strconv.AppendBool(dst, r.Usable)
	dst = append(dst, `,"args":`...)
	dst = appendStrings(dst, r.Args)
	if r.Usable {
		dst = append(dst, `,"command":`...)
		dst = jsonw.AppendString(dst, r.Command())
	}
	dst = append(dst, `,"reasons":`...)
	dst = appendStrings(dst, r.Reasons)
	return append(dst, '}')
}

func appendStrings(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(dst, s)
	}
	return append(dst, ']')
}

// ShellLine joins words into a line for a POSIX shell, quoting those that
// need it.
func ShellLine(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellWord(w)
	}
	return strings.Join(quoted, " ")
}

func shellWord(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-./:=,@+%", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
		redactor: tools.NewRedactor(opts.Environ, nil, Secrets(opts.HTTP)...)}
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
	redactor *tools.Redactor
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

// --- models

func (p *prober) checkModels(ctx context.Context, f *finding) {
	body, err := p.get(ctx, p.client.url("/models"))
	if err != nil {
		f.Status, f.Error = "error", p.failure(ctx, err)
		f.Summary = "GET /models failed"
		if p.model != "" {
			f.setString("model", p.model)
		}
		return
	}
	p.answered = true
	var ids []string
	var owners []string
	gjson.GetBytes(body, "data").ForEach(func(_, m gjson.Result) bool {
		if id := m.Get("id").String(); id != "" {
			ids = append(ids, id)
			owners = append(owners, m.Get("owned_by").String())
		}
		return true
	})
	p.server = serverOf(owners)
	if p.server == "ollama" || len(ids) == 0 {
		// Ollama's own list, beside its /v1: the models it has pulled.
		if tags, err := p.get(ctx, p.client.root()+"/api/tags"); err == nil && gjson.GetBytes(tags, "models").IsArray() {
			p.server = "ollama"
			gjson.GetBytes(tags, "models.#.name").ForEach(func(_, n gjson.Result) bool {
				if !containsString(ids, n.String()) {
					ids = append(ids, n.String())
				}
				return true
			})
		}
	}
	if p.server != "" {
		f.setString("server", p.server)
	}
	f.set("models", appendStrings(nil, ids))
	f.Status = "ok"
	switch {
	case p.model == "" && len(ids) > 0:
		p.model = ids[0]
		f.Summary = fmt.Sprintf("%d model%s; using %s", len(ids), plural(len(ids)), p.model)
	case p.model == "":
		f.Status = "partial"
		f.Summary = "the server lists no models; give one with --model"
	case containsString(ids, p.model):
		f.Summary = fmt.Sprintf("%d model%s; %s is one", len(ids), plural(len(ids)), p.model)
	default:
		f.Status = "partial"
		f.Summary = fmt.Sprintf("%s is not among the %d model%s listed (some servers answer with the one they have all the same)", p.model, len(ids), plural(len(ids)))
	}
	if p.model != "" {
		f.setString("model", p.model)
	}
}

// serverOf guesses the server from the owned_by of its models.
func serverOf(owners []string) string {
	for _, o := range owners {
		switch strings.ToLower(o) {
		case "llamacpp", "llama.cpp":
			return "llama.cpp"
		case "vllm":
			return "vllm"
		case "library", "ollama":
			return "ollama"
		}
	}
	return ""
}

// maxListBody bounds the reply of a GET.
const maxListBody = 4 << 20

// get fetches url with the run's client and key, and returns the body of
// a 2xx JSON reply.
func (p *prober) get(ctx context.Context, url string) ([]byte, error) {
	req, err := p.client.newRequest(ctx, http.MethodGet, url, nil, "application/json")
	if err != nil {
		return nil, err
	}
	res, _, err := p.client.do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	ct, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	body, err := io.ReadAll(io.LimitReader(res.Body, maxListBody))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &ProviderError{Status: res.StatusCode, Message: "the connection broke while reading the reply: " + err.Error()}
	}
	switch {
	case res.StatusCode < 200 || res.StatusCode > 299:
		return nil, &ProviderError{Status: res.StatusCode, Message: p.client.refusal(res.StatusCode, ct, body)}
	case isHTML(ct, body):
		return nil, &ProviderError{Status: res.StatusCode, Message: htmlMessage(body) + "; check the base URL"}
	case !gjson.ValidBytes(body):
		return nil, &ProviderError{Status: res.StatusCode, Message: "the reply is not JSON: " + clip.Head(string(body), 80)}
	}
	return body, nil
}

// --- chat and completions

func (p *prober) checkChat(ctx context.Context, f *finding) {
	p.chatOK = p.checkEndpoint(ctx, f, "/chat/completions", func(stream bool) Backend { return NewChat(p.httpOptions(stream)) })
}

func (p *prober) checkCompletions(ctx context.Context, f *finding) {
	p.completionsOK = p.checkEndpoint(ctx, f, "/completions", func(stream bool) Backend {
		return NewCompletions(p.httpOptions(stream), plainPrompt)
	})
}

// checkEndpoint asks a trivial question, not streamed and then streamed,
// and notes the time to the first token of the stream.
func (p *prober) checkEndpoint(ctx context.Context, f *finding, path string, backend func(stream bool) Backend) bool {
	ask := func(stream bool) (*reply, string) {
		r, err := p.ask(ctx, backend(stream), &Request{
			Messages:  []Message{{Role: "user", Content: "Say OK."}},
			MaxTokens: 16,
		})
		if err != nil {
			return r, p.failure(ctx, err)
		}
		return r, ""
	}
	_, plainErr := ask(false)
	r, streamErr := ask(true)
	f.setString("plain", okOrError(plainErr))
	f.setString("stream", okOrError(streamErr))
	if streamErr == "" && r.firstToken >= 0 {
		f.set("first_token_ms", strconv.AppendInt(nil, r.firstToken.Milliseconds(), 10))
	}
	switch {
	case plainErr == "" && streamErr == "":
		f.Status, f.Summary = "ok", path+" answers, streamed and not"
		if r.firstToken >= 0 {
			f.Summary += fmt.Sprintf("; first token after %d ms", r.firstToken.Milliseconds())
		}
	case plainErr == "" || streamErr == "":
		f.Status = "partial"
		if plainErr == "" {
			f.Summary, f.Error = path+" answers, but not streamed (run with --no-stream)", streamErr
		} else {
			f.Summary, f.Error = path+" answers streamed only", plainErr
		}
	default:
		f.Status, f.Summary, f.Error = "error", path+" does not answer", plainErr
		if streamErr != plainErr {
			f.Error = "not streamed: " + plainErr + "; streamed: " + streamErr
		}
	}
	return plainErr == "" || streamErr == ""
}

// okOrError is "ok" for no error, else "error".
func okOrError(err string) string {
	if err == "" {
		return "ok"
	}
	return "error"
}

// skipped marks f as not run because the endpoint it needs did not
// answer its own check, and reports whether it did.
func (p *prober) skipped(f *finding) bool {
	if p.found[CheckChat] == nil || p.chatOK {
		return false
	}
	f.Status, f.Summary = "skipped", "/chat/completions does not answer (see the chat check)"
	return true
}

// firstError keeps the first error of a check that makes several requests.
func (f *finding) firstError(msg string) {
	if f.Error == "" {
		f.Error = msg
	}
}

// --- native tools

// probeTool is the harmless tool the probe offers: adding two numbers is
// something a model asked to use a tool for will call one for.
var probeTool = &tools.Tool{
	Name:        "add",
	Description: "Add two integers and return their sum.",
	InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
	Safe:        true,
}

const probeQuestion = "What is 1234 + 4321? Use the add tool to work it out."

// probeTools renders the probe's tool in format with style.
func probeTools(format, style string) ([]byte, error) {
	var b bytes.Buffer
	err := catalog.Render(&b, catalog.New([]*tools.Tool{probeTool}), []catalog.Ranked{{Tool: probeTool}}, catalog.RenderOptions{Format: format, Style: style})
	return bytes.TrimSpace(b.Bytes()), err
}

func (p *prober) checkNative(ctx context.Context, f *finding) {
	if p.skipped(f) {
		p.native = f.Status
		return
	}
	toolsJSON, err := probeTools(catalog.FormatOpenAI, "")
	if err != nil {
		f.Status, f.Summary, f.Error = "error", "the probe's tool could not be rendered (a bug)", err.Error()
		return
	}
	r, err := p.ask(ctx, NewNative(p.httpOptions(false)), &Request{
		Messages:   []Message{{Role: "user", Content: probeQuestion}},
		Tools:      toolsJSON,
		ToolChoice: "auto",
		MaxTokens:  512,
	})
	switch {
	case err != nil && rejected(err):
		f.Status, f.Summary, f.Error = "rejected", "the server refuses requests with tools", p.failure(ctx, err)
	case err != nil:
		f.Status, f.Summary, f.Error = "error", "the request with a tool failed", p.failure(ctx, err)
	case len(r.calls) > 0:
		f.Status = "supported"
		f.setString("name", r.calls[0].Name)
		f.Summary = "the server returns native tool_calls"
	default:
		calls, _ := p.parseText(r.text)
		if len(calls) > 0 {
			f.Status = "leaking"
			p.leakFormat = calls[0].format
			f.setString("format", p.leakFormat)
			f.Summary = fmt.Sprintf("the call comes back as text in content (format %s): the server does not parse this model's calls; toolcall parse does", p.leakFormat)
		} else {
			f.Status = "no_tool_use"
			f.Summary = "the model answered in plain text, without a call" + r.cutOff()
		}
		f.setString("content", clip.Head(string(r.text), 200))
	}
	p.native = f.Status
}

// parsedCall is a call parse found in a reply's text.
type parsedCall struct{ name, format string }

// parseText reads text as parse does, and returns the calls it found and
// how many parse errors.
func (p *prober) parseText(text []byte) (calls []parsedCall, errs int) {
	pr, err := parse.NewParser(parse.Options{Formats: p.opts.Formats}, func(e *parse.Event) error {
		switch e.Type {
		case tools.TypeToolCall:
			calls = append(calls, parsedCall{name: e.Call.Name, format: e.Call.Format})
		case event.TypeParseError:
			errs++
		}
		return nil
	})
	if err != nil {
		return nil, 0
	}
	pr.Write(text)
	pr.Close()
	return calls, errs
}

// --- constrain

// The values a constrained reply must hold: no model writes them by
// chance.
const (
	probeEnum    = "toolcall-probe-5417"
	probeGrammar = "toolcall-probe-8093"
)

var probeSchema = []byte(`{"type":"object","properties":{"answer":{"type":"string","enum":["` + probeEnum + `"]}},"required":["answer"],"additionalProperties":false}`)

func (p *prober) checkConstrain(ctx context.Context, f *finding) {
	p.constrained = map[string]string{}
	msgs := []Message{{Role: "user", Content: "Reply with a JSON object that says hello."}}
	honoured := func(text []byte) bool {
		return gjson.GetBytes(bytes.TrimSpace(text), "answer").String() == probeEnum
	}
	try := func(key string, b Backend, req *Request, ok func([]byte) bool) {
		req.Messages, req.MaxTokens = msgs, 64
		r, err := p.ask(ctx, b, req)
		switch {
		case err != nil && rejected(err):
			p.constrained[key] = "rejected"
			f.firstError(key + ": " + p.failure(ctx, err))
		case err != nil:
			p.constrained[key] = "error"
			f.firstError(key + ": " + p.failure(ctx, err))
		case ok(r.text):
			p.constrained[key] = "honoured"
		default:
			p.constrained[key] = "ignored"
		}
		f.setString(key, p.constrained[key])
	}
	skip := func(key string) {
		p.constrained[key] = "skipped"
		f.setString(key, p.constrained[key])
	}
	if p.found[CheckChat] != nil && !p.chatOK {
		skip("response_format")
	} else {
		try("response_format", NewChat(p.httpOptions(false)), &Request{Schema: probeSchema}, honoured)
	}
	if p.found[CheckCompletions] != nil && !p.completionsOK {
		skip("json_schema")
		skip("grammar")
	} else {
		completions := NewCompletions(p.httpOptions(false), plainPrompt)
		try("json_schema", completions, &Request{Schema: probeSchema}, honoured)
		try("grammar", completions, &Request{Extra: []byte(`{"grammar":"root ::= \"` + probeGrammar + `\""}`)}, func(text []byte) bool {
			return string(bytes.TrimSpace(text)) == probeGrammar
		})
	}
	var yes []string
	tried := 0
	for _, k := range []string{"response_format", "json_schema", "grammar"} {
		if p.constrained[k] == "honoured" {
			yes = append(yes, k)
		}
		if p.constrained[k] != "skipped" {
			tried++
		}
	}
	switch {
	case tried == 0:
		f.Status, f.Summary = "skipped", "neither endpoint answers (see the chat and completions checks)"
	case len(yes) > 0:
		f.Status, f.Summary = "ok", "honoured: "+strings.Join(yes, ", ")
	default:
		f.Status, f.Summary = "unsupported", "no constraint was honoured"
	}
}

// --- prompt mode

func (p *prober) checkPromptMode(ctx context.Context, f *finding) {
	p.styles = map[string]string{}
	if p.skipped(f) {
		return
	}
	results := []byte{'{'}
	var worked []string
	for i, style := range catalog.Styles {
		prompt, err := probeTools(catalog.FormatPrompt, style)
		st, _ := catalog.PromptStyle(style) // one of Styles: known
		result := ""
		if err != nil {
			result = "error"
			f.firstError(err.Error())
		} else {
			r, err := p.ask(ctx, NewChat(p.httpOptions(false)), &Request{
				Messages: []Message{
					{Role: "system", Content: DefaultSystem + "\n\n" + string(prompt)},
					{Role: "user", Content: probeQuestion},
				},
				Stop:      st.Stops(),
				MaxTokens: 512,
			})
			if err != nil {
				result = "error"
				f.firstError(p.failure(ctx, err))
			} else {
				calls, errs := p.parseText(r.text)
				switch {
				case len(calls) > 0:
					result = "call"
					p.styles[style] = calls[0].format
					worked = append(worked, style+" ("+calls[0].format+")")
				case errs > 0:
					result = "parse_error"
				default:
					result = "no_call"
					if c := r.cutOff(); c != "" {
						f.firstError(style + ": no call" + c)
					}
				}
			}
		}
		if i > 0 {
			results = append(results, ',')
		}
		results = jsonw.AppendString(results, style)
		results = append(results, `:{"result":`...)
		results = jsonw.AppendString(results, result)
		if format := p.styles[style]; format != "" {
			results = append(results, `,"format":`...)
			results = jsonw.AppendString(results, format)
		}
		results = append(results, '}')
	}
	f.set("styles", append(results, '}'))
	if len(worked) > 0 {
		f.Status, f.Summary = "ok", "parse reads the model's call with --style "+strings.Join(worked, ", ")
	} else {
		f.Status, f.Summary = "unsupported", "with toolcall's prompt the model wrote no call parse reads, in any style"
	}
}

// --- the recommendation

// recommend turns the findings into the flags of toolcall run.
func (p *prober) recommend() Recommendation {
	rec := Recommendation{Usable: p.answered}
	if !p.answered {
		rec.Reasons = append(rec.Reasons, "no request got an answer: check --base-url and that the server is running")
		return rec
	}
	add := func(reason string, args ...string) {
		rec.Args = append(rec.Args, args...)
		rec.Reasons = append(rec.Reasons, ShellLine(args)+": "+reason)
	}
	if base := p.opts.HTTP.BaseURL; base != "" && strings.TrimRight(base, "/") != DefaultBaseURL {
		add("the server probed", "--base-url", DisplayURL(base))
	}
	if p.model != "" {
		add("the model the checks used", "--model", p.model)
	}
	chat := p.chatOK || p.found[CheckChat] == nil
	style, format := p.bestStyle()
	switch {
	case p.native == "supported":
		add("the server parses this model's calls itself and returns native tool_calls", "--api", APINative)
		return rec
	case chat:
		reason := "/chat/completions answers"
		if p.found[CheckChat] == nil {
			reason = "the default (the chat check did not run)"
		}
		if p.native == "leaking" {
			reason += fmt.Sprintf("; native tool calling leaks calls into content (format %s), so toolcall's prompt and parse do better", p.leakFormat)
		}
		add(reason, "--api", "chat")
	case p.completionsOK:
		tmpl := guessTemplate(p.model)
		add("only /completions answers", "--api", "completions")
		add("the chat template, guessed from the model's name: check it against the model card", "--template", tmpl)
	default:
		rec.Usable = false
		rec.Reasons = append(rec.Reasons, "neither /chat/completions nor /completions answers")
		return rec
	}
	if style != "" {
		add(fmt.Sprintf("with --style %s the model wrote a call that parse read (format %s)", style, format), "--style", style)
	}
	key := "response_format"
	if !chat {
		key = "json_schema"
	}
	if p.constrained[key] == "honoured" && (style == "" || style == catalog.StyleJSONL) {
		add(fmt.Sprintf("the server honours %s, so the protocol can be enforced", key), "--constrain")
	}
	return rec
}

// bestStyle is the style of the prompt_mode check that worked, in the
// order of catalog.Styles (jsonl first: it is the one --constrain can
// enforce), or "" when none did or the check did not run.
func (p *prober) bestStyle() (style, format string) {
	for _, s := range catalog.Styles {
		if f := p.styles[s]; f != "" {
			return s, f
		}
	}
	return "", ""
}

// guessTemplate picks a built-in template by the model's name.
func guessTemplate(model string) string {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "llama-3"), strings.Contains(m, "llama3"):
		return "llama3"
	case strings.Contains(m, "mistral"), strings.Contains(m, "mixtral"):
		return "mistral"
	case strings.Contains(m, "gemma"):
		return "gemma"
	}
	return "chatml"
}
