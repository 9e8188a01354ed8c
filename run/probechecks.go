package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// The checks of Probe (probe.go), a method of prober each, in the order
// they run; each fills in its finding.

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
	f.set("models", jsonw.AppendStrings(nil, ids))
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
