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
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
)

// DefaultBaseURL is llama-server's address with its OpenAI prefix.
const DefaultBaseURL = "http://127.0.0.1:8080/v1"

const (
	defaultAttempts = 3
	defaultStall    = 60 * time.Second
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
	kind   apiKind
	url    string
	render func([]Message) (string, error)
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
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	if opts.Client == nil {
		opts.Client = defaultClient()
	}
	if opts.Retries <= 0 {
		opts.Retries = defaultAttempts
	}
	if opts.Stall <= 0 {
		opts.Stall = defaultStall
	}
	return &httpBackend{opts: opts, kind: kind, url: strings.TrimRight(opts.BaseURL, "/") + path, render: render}
}

var defaultClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
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
	for n := 1; ; n++ {
		x := exchange{b: b, sink: sink, delay: -1}
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
		}
		if err := b.sleep(ctx, d); err != nil {
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
		add("model", tools.AppendString(nil, req.Model))
	}
	if b.kind == apiCompletions {
		prompt, err := b.render(req.Messages)
		if err != nil {
			return nil, fmt.Errorf("render the prompt for /completions: %w", err)
		}
		add("prompt", tools.AppendString(nil, prompt))
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
			s = tools.AppendString(s, stop)
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
		out = tools.AppendString(out, kv.key)
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
		return nil, fmt.Errorf("the extra request fields must be a JSON object, like {\"top_k\":40}; got %s", truncate(string(extra), 60))
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
		return tools.AppendString(nil, c)
	}
	v := tools.AppendString([]byte(`{"type":"function","function":{"name":`), c)
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
		dst = tools.AppendString(dst, m.Role)
		dst = append(dst, `,"content":`...)
		if m.Content == "" && len(m.ToolCalls) > 0 {
			dst = append(dst, "null"...)
		} else {
			dst = tools.AppendString(dst, m.Content)
		}
		if len(m.ToolCalls) > 0 {
			dst = append(dst, `,"tool_calls":[`...)
			for j, c := range m.ToolCalls {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"id":`...)
				dst = tools.AppendString(dst, c.ID)
				dst = append(dst, `,"type":"function","function":{"name":`...)
				dst = tools.AppendString(dst, c.Name)
				dst = append(dst, `,"arguments":`...)
				args := c.Arguments
				if len(args) == 0 {
					args = []byte("{}")
				}
				dst = tools.AppendBytes(dst, args)
				dst = append(dst, "}}"...)
			}
			dst = append(dst, ']')
		}
		if m.ToolCallID != "" {
			dst = append(dst, `,"tool_call_id":`...)
			dst = tools.AppendString(dst, m.ToolCallID)
		}
		if m.Name != "" {
			dst = append(dst, `,"name":`...)
			dst = tools.AppendString(dst, m.Name)
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
	resp Response
	// delivered is set once the sink has been given anything: from then
	// on the turn cannot be retried without repeating it.
	delivered bool
	retry     bool          // the failure may go away on another attempt
	delay     time.Duration // the server's Retry-After; -1: none
	done      bool          // [DONE] seen
	calls     []nativeCall  // native calls being streamed
	sent      int           // calls given to the sink
}

// nativeCall is a call the server parsed, as its deltas arrive.
type nativeCall struct {
	index    int64
	id, name string
	args     []byte
}

func (x *exchange) run(ctx context.Context, body []byte) (Response, error) {
	b := x.b
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hr, err := http.NewRequestWithContext(rctx, http.MethodPost, b.url, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("model server URL %q: %w; check the base URL", DisplayURL(b.url), withoutURL(err))
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("User-Agent", "toolcall")
	if b.opts.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+b.opts.APIKey)
	}
	if b.opts.Stream {
		hr.Header.Set("Accept", "text/event-stream")
		// A compressed stream arrives in compressor-sized lumps, late.
		hr.Header.Set("Accept-Encoding", "identity")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	res, err := b.opts.Client.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		x.retry = transient(err)
		return Response{}, &ProviderError{Message: connMessage(b.url, err)}
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		x.retry = res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500
		x.delay = retryAfter(res.Header.Get("Retry-After"), time.Now())
		return Response{}, &ProviderError{Status: res.StatusCode, Message: errorMessage(res.StatusCode, msg, b.opts.APIKey, b.opts.KeySource)}
	}
	// A server that does not stream answers with plain JSON.
	if ct, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); b.opts.Stream && ct != "application/json" {
		return x.stream(ctx, rctx, cancel, res)
	}
	return x.whole(ctx, res)
}

// activityReader pushes the stall deadline back whenever bytes arrive.
type activityReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (a *activityReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 {
		a.t.Reset(a.d)
	}
	return n, err
}

// stream reads a streamed reply event by event, handing text to the sink
// as it comes.
func (x *exchange) stream(ctx, rctx context.Context, cancel context.CancelCauseFunc, res *http.Response) (Response, error) {
	stall := x.b.opts.Stall
	timer := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer timer.Stop()
	sse := newSSEReader(&activityReader{r: res.Body, t: timer, d: stall})
	for {
		ev, err := sse.next()
		if err == io.EOF {
			return x.end()
		}
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return x.resp, ctx.Err()
			case errors.Is(context.Cause(rctx), errStalled):
				return x.resp, &ProviderError{Message: fmt.Sprintf("the stream sent nothing for %s: the server stalled", stall)}
			case errors.Is(err, errSSELineTooLong):
				return x.resp, &ProviderError{Message: err.Error()}
			}
			x.retry = true // only if nothing reached the sink yet
			return x.resp, &ProviderError{Message: "the connection broke in the middle of the reply: " + err.Error()}
		}
		stop, err := x.event(ev)
		if err != nil {
			return x.resp, err
		}
		if stop {
			// Close at once: the loop has its call, and every token the
			// model adds now is time lost and text it must not see.
			cancel(errStopped)
			res.Body.Close()
			x.resp.Stopped = true
			return x.resp, nil
		}
		if x.done {
			return x.end()
		}
	}
}

// end finishes a stream that ended.
func (x *exchange) end() (Response, error) {
	if !x.done && x.resp.FinishReason == "" {
		x.retry = true
		return x.resp, &ProviderError{Message: "the server closed the stream before the reply was complete (no finish_reason, no [DONE])"}
	}
	stop, err := x.flushCalls()
	x.resp.Stopped = x.resp.Stopped || stop // it may have stopped at the finish
	return x.resp, err
}

// event handles one event of a stream.
func (x *exchange) event(ev sseEvent) (stop bool, err error) {
	data := bytes.TrimSpace(ev.data)
	if len(data) == 0 {
		return false, nil
	}
	if string(data) == "[DONE]" {
		x.done = true
		return false, nil
	}
	if !gjson.ValidBytes(data) {
		return false, &ProviderError{Message: fmt.Sprintf("malformed JSON in the stream at line %d: %s", ev.line, truncate(string(data), 200))}
	}
	g := gjson.ParseBytes(data)
	if e := g.Get("error"); e.Exists() || ev.name == "error" {
		return false, &ProviderError{Message: "error in the stream: " + truncate(jsonErrorText(g), maxMessage)}
	}
	if m := g.Get("model").String(); m != "" {
		x.resp.Model = m
	}
	if u := g.Get("usage"); u.IsObject() {
		x.resp.Usage = []byte(u.Raw)
	}
	c := g.Get("choices.0")
	if !c.Exists() {
		return false, nil
	}
	if x.b.kind == apiCompletions {
		stop, err = x.text(c.Get("text"))
	} else {
		d := c.Get("delta")
		if err := x.reasoning(d); err != nil {
			return false, err
		}
		if stop, err = x.text(d.Get("content")); stop || err != nil {
			return stop, err
		}
		if x.b.kind == apiNative {
			for _, t := range d.Get("tool_calls").Array() {
				if stop, err = x.callDelta(t); stop || err != nil {
					return stop, err
				}
			}
		}
	}
	if stop || err != nil {
		return stop, err
	}
	if fr := c.Get("finish_reason").String(); fr != "" {
		x.resp.FinishReason = fr
		// The calls are complete; the usage chunk may still follow.
		// The model has finished, so a stop the sink asks for here cuts
		// nothing short: read on to the usage (closing here lost the
		// usage of every streamed native call turn). Calls after the one
		// it stopped at are dropped, as a close would drop them; any text
		// that still came would stop the stream in Text.
		stop, err := x.flushCalls()
		if stop {
			x.sent = len(x.calls)
			x.resp.Stopped = true
		}
		return false, err
	}
	return false, nil
}

func (x *exchange) text(r gjson.Result) (bool, error) {
	if r.Type != gjson.String || r.Str == "" {
		return false, nil
	}
	x.delivered = true
	return x.sink.Text([]byte(r.Str))
}

// reasoning gives the sink what the server split off as reasoning (the
// field is reasoning_content in llama-server and DeepSeek, reasoning in
// vLLM and Ollama).
func (x *exchange) reasoning(m gjson.Result) error {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		if r := m.Get(k); r.Type == gjson.String && r.Str != "" {
			x.delivered = true
			return x.sink.Reasoning([]byte(r.Str))
		}
	}
	return nil
}

// callDelta adds a piece of a streamed native call. A call is complete
// when the next one begins or the reply finishes.
func (x *exchange) callDelta(t gjson.Result) (bool, error) {
	idx, id := t.Get("index"), t.Get("id").String()
	var cur *nativeCall
	if n := len(x.calls); n > x.sent {
		last := &x.calls[n-1]
		if (idx.Exists() && idx.Int() == last.index) || (!idx.Exists() && (id == "" || id == last.id)) {
			cur = last
		}
	}
	if cur == nil {
		if stop, err := x.flushCalls(); stop || err != nil {
			return stop, err
		}
		i := int64(len(x.calls))
		if idx.Exists() {
			i = idx.Int()
		}
		x.calls = append(x.calls, nativeCall{index: i})
		cur = &x.calls[len(x.calls)-1]
	}
	if cur.id == "" {
		cur.id = id
	}
	f := t.Get("function")
	if name := f.Get("name").String(); name != "" && cur.name == "" {
		cur.name = name
	}
	switch a := f.Get("arguments"); {
	case a.Type == gjson.String:
		cur.args = append(cur.args, a.Str...)
	case a.IsObject():
		cur.args = append(cur.args[:0], a.Raw...)
	}
	return false, nil
}

// flushCalls gives the sink the native calls not given yet.
func (x *exchange) flushCalls() (bool, error) {
	for x.sent < len(x.calls) {
		c := &x.calls[x.sent]
		x.sent++
		x.delivered = true
		if stop, err := x.sink.NativeCall(c.id, c.name, callArgs(c.args)); stop || err != nil {
			return stop, err
		}
	}
	return false, nil
}

// callArgs is a call's arguments as JSON: the text the server gave when it
// is JSON, else that text as a JSON string, for the loop to report.
func callArgs(args []byte) []byte {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		return []byte("{}")
	}
	if gjson.ValidBytes(args) {
		return args
	}
	return tools.AppendBytes(nil, args)
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
		return Response{}, &ProviderError{Status: res.StatusCode, Message: "the reply is larger than 32 MiB"}
	}
	if !gjson.ValidBytes(data) {
		return Response{}, &ProviderError{Status: res.StatusCode, Message: "the reply is not JSON: " + truncate(strings.TrimSpace(string(data)), 200)}
	}
	g := gjson.ParseBytes(data)
	if g.Get("error").Exists() {
		return Response{}, &ProviderError{Status: res.StatusCode, Message: truncate(jsonErrorText(g), maxMessage)}
	}
	x.resp.Model = g.Get("model").String()
	if u := g.Get("usage"); u.IsObject() {
		x.resp.Usage = []byte(u.Raw)
	}
	c := g.Get("choices.0")
	x.resp.FinishReason = c.Get("finish_reason").String()
	if x.b.kind == apiCompletions {
		stop, err := x.text(c.Get("text"))
		x.resp.Stopped = stop
		return x.resp, err
	}
	m := c.Get("message")
	if err := x.reasoning(m); err != nil {
		return x.resp, err
	}
	stop, err := x.text(messageContent(m.Get("content")))
	if stop || err != nil {
		x.resp.Stopped = stop
		return x.resp, err
	}
	if x.b.kind == apiNative {
		for i, t := range m.Get("tool_calls").Array() {
			f := t.Get("function")
			args := f.Get("arguments")
			raw := []byte(args.Raw)
			if args.Type == gjson.String {
				raw = []byte(args.Str)
			}
			x.calls = append(x.calls, nativeCall{index: int64(i), id: t.Get("id").String(), name: f.Get("name").String(), args: raw})
		}
		stop, err = x.flushCalls()
		x.resp.Stopped = stop
	}
	return x.resp, err
}

// messageContent is a message's content as one string: a string, or the
// text parts of an array of parts.
func messageContent(r gjson.Result) gjson.Result {
	if !r.IsArray() {
		return r
	}
	var sb strings.Builder
	for _, p := range r.Array() {
		if t := p.Get("type").String(); t == "text" || t == "" {
			sb.WriteString(p.Get("text").String())
		}
	}
	return gjson.Result{Type: gjson.String, Str: sb.String()}
}
