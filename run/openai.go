package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/parse"
)

// DefaultBaseURL is llama-server's address with its OpenAI prefix.
const DefaultBaseURL = "http://127.0.0.1:8080/v1"

// DefaultAttempts is how many times a request is tried in all, first try
// included, unless HTTPOptions.Retries says otherwise.
const DefaultAttempts = 3

// DefaultStall is how long a reply may send nothing before the request
// counts as failed (HTTPOptions.Stall): long, because a CPU-bound local
// server (llama.cpp on a laptop) can read a long prompt for minutes
// before its first token; run's --stall-timeout defaults to it.
const DefaultStall = 5 * time.Minute

const (
	// maxReplyBody bounds a reply that is not streamed.
	maxReplyBody = 32 << 20
)

// HTTPOptions configure the backends that speak the OpenAI HTTP API
// (llama-server, vLLM, Ollama, LM Studio, mlx_lm.server, …).
type HTTPOptions struct {
	BaseURL string // "": DefaultBaseURL
	APIKey  string // sent as "Authorization: Bearer" when set
	// KeySource names where APIKey came from ("--api-key"), or where one
	// can be given when it is empty, for the hint when the server refuses.
	KeySource string
	// Client nil: a client with connect and TLS timeouts but no overall
	// timeout, since a stream lasts as long as the model talks; the
	// context bounds a turn.
	Client *http.Client
	Stream bool
	// Retries is how many times a request is tried in all (0: 3).
	Retries int
	// Sleep replaces the wait between attempts (tests); nil: a real wait
	// that ends early when the context does.
	Sleep func(time.Duration)
	// Stall is how long a stream may send nothing before it counts as a
	// failure of the server (0: 60s). It runs from the response headers
	// on: a server may think about a long prompt before it answers, and
	// that wait is bounded by the context.
	Stall time.Duration
}

type apiKind int

const (
	apiChat apiKind = iota
	apiCompletions
	apiNative
)

type httpBackend struct {
	opts   HTTPOptions
	client *modelClient
	kind   apiKind
	url    string
	render func([]Message) (string, error)
	// gate is shared by every request through this backend: a
	// Retry-After from the server holds back the others too.
	gate *gate
}

// NewChat is the chat backend: POST {base}/chat/completions with the
// messages.
func NewChat(opts HTTPOptions) Backend {
	return newHTTP(opts, apiChat, "/chat/completions", nil)
}

// NewCompletions is the completions backend: POST {base}/completions with
// the messages rendered into one prompt by render (a chat template).
func NewCompletions(opts HTTPOptions, render func([]Message) (prompt string, err error)) Backend {
	return newHTTP(opts, apiCompletions, "/completions", render)
}

// NewNative is the chat backend with the server's own function calling:
// Request.Tools and ToolChoice are sent, the calls the server parsed come
// back through Sink.NativeCall.
func NewNative(opts HTTPOptions) Backend {
	return newHTTP(opts, apiNative, "/chat/completions", nil)
}

func newHTTP(opts HTTPOptions, kind apiKind, path string, render func([]Message) (string, error)) *httpBackend {
	if opts.Retries <= 0 {
		opts.Retries = DefaultAttempts
	}
	if opts.Stall <= 0 {
		opts.Stall = DefaultStall
	}
	c := newModelClient(opts)
	return &httpBackend{opts: opts, client: c, kind: kind, url: c.url(path), render: render, gate: &gate{}}
}

var defaultClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	// run --batch --jobs N keeps N requests to the one model server
	// in flight: keep their connections for the next turn rather than
	// the default two.
	t.MaxIdleConnsPerHost = 16
	// No ResponseHeaderTimeout: a reply that is not streamed has its
	// headers only when the whole answer is written.
	return &http.Client{Transport: t}
})

// Complete asks for one turn, retrying what a retry can fix, and never
// once the sink has been given anything (that would repeat it).
func (b *httpBackend) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	body, err := b.body(req)
	if err != nil {
		return Response{}, err
	}
	// A new request waits while the server has asked another to.
	if err := b.gate.wait(ctx, b.sleep); err != nil {
		return Response{}, err
	}
	for n := 1; ; n++ {
		x := exchange{b: b, sink: sink, delay: -1, maxArgs: req.MaxReplyBytes}
		resp, err := x.run(ctx, body)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, ctx.Err()
		}
		var pe *ProviderError
		if !errors.As(err, &pe) {
			return resp, err // the sink's own error
		}
		pe.Attempts = n
		if !x.retry || x.delivered || n >= b.opts.Retries {
			return resp, pe
		}
		d := x.delay
		if d < 0 {
			d = backoff(n)
		} else {
			b.gate.hold(d)
		}
		// A retry keeps its own backoff, and waits out another
		// request's Retry-After too.
		if err := b.sleep(ctx, max(d, b.gate.remaining())); err != nil {
			return Response{}, err
		}
	}
}

// bodyField is one key of the request body; a slice keeps their order
// fixed, so the same request is the same bytes.
type bodyField struct {
	key string
	val []byte
}

// body is the JSON request body.
func (b *httpBackend) body(req *Request) ([]byte, error) {
	var f []bodyField
	add := func(k string, v []byte) { f = append(f, bodyField{k, v}) }
	if req.Model != "" {
		add("model", jsonw.AppendString(nil, req.Model))
	}
	if b.kind == apiCompletions {
		prompt, err := b.render(req.Messages)
		if err != nil {
			return nil, fmt.Errorf("render the prompt for /completions: %w", err)
		}
		add("prompt", jsonw.AppendString(nil, prompt))
	} else {
		add("messages", appendMessages(nil, req.Messages))
	}
	if b.kind == apiNative {
		if len(req.Tools) > 0 {
			if !gjson.ValidBytes(req.Tools) || !gjson.ParseBytes(req.Tools).IsArray() {
				return nil, errors.New("the tools for the server are not a JSON array (a bug in toolcall: please report it)")
			}
			add("tools", req.Tools)
		}
		if req.ToolChoice != "" {
			add("tool_choice", toolChoice(req.ToolChoice))
		}
	}
	if req.MaxTokens > 0 {
		add("max_tokens", strconv.AppendInt(nil, int64(req.MaxTokens), 10))
	}
	if t := req.Temperature; t != nil {
		if math.IsNaN(*t) || math.IsInf(*t, 0) {
			return nil, fmt.Errorf("temperature %v is not a number: give one like 0.2", *t)
		}
		add("temperature", strconv.AppendFloat(nil, *t, 'f', -1, 64))
	}
	if len(req.Stop) > 0 {
		s := []byte{'['}
		for i, stop := range req.Stop {
			if i > 0 {
				s = append(s, ',')
			}
			s = jsonw.AppendString(s, stop)
		}
		add("stop", append(s, ']'))
	}
	if len(req.Schema) > 0 {
		if !gjson.ValidBytes(req.Schema) {
			return nil, errors.New("the schema for constrained decoding is not valid JSON (a bug in toolcall: please report it)")
		}
		if b.kind == apiCompletions {
			// llama-server reads json_schema on /completions and ignores
			// response_format there; other servers name it otherwise
			// (vLLM guided_json, Ollama format): pass those in Extra.
			add("json_schema", req.Schema)
		} else {
			v := append([]byte(`{"type":"json_schema","json_schema":{"name":"toolcall","schema":`), req.Schema...)
			add("response_format", append(v, `,"strict":true}}`...))
		}
	}
	if b.opts.Stream {
		add("stream", []byte("true"))
		// Servers send usage in a stream only when asked.
		add("stream_options", []byte(`{"include_usage":true}`))
	}
	if len(req.Extra) > 0 {
		var err error
		if f, err = mergeExtra(f, req.Extra); err != nil {
			return nil, err
		}
	}
	out := []byte{'{'}
	for i, kv := range f {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonw.AppendString(out, kv.key)
		out = append(out, ':')
		out = append(out, kv.val...)
	}
	return append(out, '}'), nil
}

// mergeExtra puts the keys of extra into the body: a key we set is
// replaced where it stands, a new key goes at the end, and null removes
// the key (for a server that rejects one we send, like stream_options).
func mergeExtra(f []bodyField, extra []byte) ([]bodyField, error) {
	if !gjson.ValidBytes(extra) || !gjson.ParseBytes(extra).IsObject() {
		return nil, fmt.Errorf("the extra request fields must be a JSON object, like {\"top_k\":40}; got %s", clip.Head(string(extra), 60))
	}
	gjson.ParseBytes(extra).ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		i := 0
		for i < len(f) && f[i].key != key {
			i++
		}
		switch {
		case v.Type == gjson.Null:
			if i < len(f) {
				f = append(f[:i], f[i+1:]...)
			}
		case i < len(f):
			f[i].val = []byte(v.Raw)
		default:
			f = append(f, bodyField{key, []byte(v.Raw)})
		}
		return true
	})
	return f, nil
}

// toolChoice is the OpenAI tool_choice for a mode or a tool's name.
func toolChoice(c string) []byte {
	switch c {
	case "auto", "required", "none":
		return jsonw.AppendString(nil, c)
	}
	v := jsonw.AppendString([]byte(`{"type":"function","function":{"name":`), c)
	return append(v, "}}"...)
}

// appendMessages writes the messages in the OpenAI shape; an assistant's
// calls go as tool_calls with the arguments as a JSON string, as the API
// wants them.
func appendMessages(dst []byte, msgs []Message) []byte {
	dst = append(dst, '[')
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":`...)
		dst = jsonw.AppendString(dst, m.Role)
		dst = append(dst, `,"content":`...)
		if m.Content == "" && len(m.ToolCalls) > 0 {
			dst = append(dst, "null"...)
		} else {
			dst = jsonw.AppendString(dst, m.Content)
		}
		if len(m.ToolCalls) > 0 {
			dst = append(dst, `,"tool_calls":[`...)
			for j, c := range m.ToolCalls {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"id":`...)
				dst = jsonw.AppendString(dst, c.ID)
				dst = append(dst, `,"type":"function","function":{"name":`...)
				dst = jsonw.AppendString(dst, c.Name)
				dst = append(dst, `,"arguments":`...)
				args := c.Arguments
				if len(args) == 0 {
					args = []byte("{}")
				}
				dst = jsonw.AppendBytes(dst, args)
				dst = append(dst, "}}"...)
			}
			dst = append(dst, ']')
		}
		if m.ToolCallID != "" {
			dst = append(dst, `,"tool_call_id":`...)
			dst = jsonw.AppendString(dst, m.ToolCallID)
		}
		if m.Name != "" {
			dst = append(dst, `,"name":`...)
			dst = jsonw.AppendString(dst, m.Name)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

var (
	errStalled = errors.New("stalled")
	errStopped = errors.New("stopped by the sink")
)

// exchange is one attempt of a request.
type exchange struct {
	b    *httpBackend
	sink Sink
	// delivered is set once the sink has been given anything: from then
	// on the turn cannot be retried without repeating it.
	delivered bool
	sinkErr   error         // what the sink itself failed with, if it did
	retry     bool          // the failure may go away on another attempt
	maxArgs   int           // bound of a native call's streamed arguments
	delay     time.Duration // the server's Retry-After; -1: none
}

func (x *exchange) run(ctx context.Context, body []byte) (Response, error) {
	b := x.b
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	accept := "application/json"
	if b.opts.Stream {
		accept = "text/event-stream"
	}
	hr, err := b.client.newRequest(rctx, http.MethodPost, b.url, bytes.NewReader(body), accept)
	if err != nil {
		return Response{}, err
	}
	if b.opts.Stream {
		// A compressed stream arrives in compressor-sized lumps, late.
		hr.Header.Set("Accept-Encoding", "identity")
	}
	res, retry, err := b.client.do(ctx, hr)
	if err != nil {
		x.retry = retry
		return Response{}, err
	}
	defer res.Body.Close()
	ct, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		x.retry = res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500
		x.delay = retryAfter(res.Header.Get("Retry-After"), time.Now())
		return Response{}, &ProviderError{Status: res.StatusCode, Message: b.client.refusal(res.StatusCode, ct, msg)}
	}
	if isHTML(ct, nil) {
		// A captive portal, or a web UI on the port: asking again
		// gets the same page.
		page, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		return Response{}, &ProviderError{Status: res.StatusCode, Message: htmlMessage(page) + "; check the base URL"}
	}
	// A server that does not stream answers with plain JSON.
	if b.opts.Stream && ct != "application/json" {
		return x.stream(ctx, rctx, cancel, res)
	}
	return x.whole(ctx, res)
}

// bodyReader reads a reply's body: it pushes the stall deadline back
// whenever bytes arrive, and keeps the failure of the connection apart
// from what the decoder makes of the bytes.
type bodyReader struct {
	r   io.Reader
	t   *time.Timer // nil: no stall deadline
	d   time.Duration
	err error // the first read error other than io.EOF
}

func (a *bodyReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 && a.t != nil {
		a.t.Reset(a.d)
	}
	if err != nil && err != io.EOF && a.err == nil {
		a.err = err
	}
	return n, err
}

// The exchange is the decoder's receiver: it passes everything on to the
// sink, noting that the turn can no longer be retried.

func (x *exchange) Text(p []byte) (bool, error) {
	x.delivered = true
	stop, err := x.sink.Text(p)
	x.sinkErr = err
	return stop, err
}

func (x *exchange) Reasoning(p []byte) error {
	x.delivered = true
	x.sinkErr = x.sink.Reasoning(p)
	return x.sinkErr
}

func (x *exchange) NativeCall(id, name string, args []byte) (bool, error) {
	x.delivered = true
	stop, err := x.sink.NativeCall(id, name, args)
	x.sinkErr = err
	return stop, err
}

// decode reads the reply in body with parse's decoder, and says what went
// wrong in the words of HTTP. complete is whether the reply marked its
// own end.
func (x *exchange) decode(ctx, rctx context.Context, body *bodyReader, status int) (resp Response, complete bool, err error) {
	resp, err = parse.DecodeReplyMax(body, x, x.maxArgs)
	if err == nil {
		return resp, resp.Complete(), nil
	}
	return resp, false, x.failure(ctx, rctx, body, status, err)
}

// failure is the error of a reply that could not be read to its end.
func (x *exchange) failure(ctx, rctx context.Context, body *bodyReader, status int, err error) error {
	var se *parse.ServerError
	switch {
	case x.sinkErr != nil && errors.Is(err, x.sinkErr):
		return err
	case errors.Is(err, parse.ErrArgumentsTooLarge):
		// The model's own doing, as too much text is: no retry.
		return fmt.Errorf("%w: %w", errReplyTooLarge, err)
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(context.Cause(rctx), errStalled):
		return &ProviderError{Status: status, Message: fmt.Sprintf("the stream sent nothing for %s: the server stalled", x.b.opts.Stall)}
	case body.err != nil:
		x.retry = true // only if nothing reached the sink yet
		return &ProviderError{Status: status, Message: "the connection broke in the middle of the reply: " + body.err.Error()}
	case errors.As(err, &se):
		msg := clip.Head(se.Message, maxMessage)
		if se.Code != "" {
			msg += " (" + se.Code + ")"
		}
		if body.t != nil {
			msg = "error in the stream: " + msg
		}
		return &ProviderError{Status: status, Message: msg}
	}
	return &ProviderError{Status: status, Message: "the reply could not be read: " + err.Error()}
}

// stream reads a streamed reply, handing text to the sink as it comes.
func (x *exchange) stream(ctx, rctx context.Context, cancel context.CancelCauseFunc, res *http.Response) (Response, error) {
	stall := x.b.opts.Stall
	timer := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer timer.Stop()
	// Failures of a stream that began are not the status's: it said 200.
	resp, complete, err := x.decode(ctx, rctx, &bodyReader{r: res.Body, t: timer, d: stall}, 0)
	if resp.Stopped {
		// Close at once: the loop has its call, and every token the
		// model adds now is time lost and text it must not see.
		cancel(errStopped)
		res.Body.Close()
	}
	if err != nil || resp.Stopped {
		return resp, err
	}
	if !complete {
		x.retry = true
		return resp, &ProviderError{Message: "the server closed the stream before the reply was complete (no finish_reason, no [DONE])"}
	}
	return resp, nil
}

// whole reads a reply that is not streamed.
func (x *exchange) whole(ctx context.Context, res *http.Response) (Response, error) {
	data, err := io.ReadAll(io.LimitReader(res.Body, maxReplyBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		x.retry = transient(err)
		return Response{}, &ProviderError{Status: res.StatusCode, Message: "the connection broke while reading the reply: " + err.Error()}
	}
	if len(data) > maxReplyBody {
		return Response{}, &ProviderError{Status: res.StatusCode, Message: fmt.Sprintf("the reply is larger than %d MiB", maxReplyBody>>20)}
	}
	resp, _, err := x.decode(ctx, ctx, &bodyReader{r: bytes.NewReader(data)}, res.StatusCode)
	return resp, err
}
