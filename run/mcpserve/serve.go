// Package mcpserve offers a tools catalog to MCP clients: tools/list in
// the form catalog --format mcp renders, and tools/call through the same
// checks, policy, limits and redaction as toolcall exec (tools.Caller).
// The protocol itself is the official Go SDK's.
package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/mcpclient"
)

// DefaultPoll is how often the tools directories are looked at for
// changes when Options.Poll is 0.
const DefaultPoll = 2 * time.Second

// Options configures a Server.
type Options struct {
	// Catalog is the tools as loaded at start; Reload loads them again when
	// a file in Dirs changed (nil: the tools never change).
	Catalog *catalog.Catalog
	Reload  func() (*catalog.Catalog, error)
	// Dirs are the tools directories (or definition files) watched for
	// changes.
	Dirs []string
	// Policy and Tags choose the tools offered, as they choose what
	// catalog shows. A call is checked against Policy as exec checks it, so
	// an unsafe tool is refused with exec's words, not reported unknown.
	Policy tools.Policy
	Tags   []string
	// Exec are the limits, redaction and environment of every call; its
	// Policy is replaced by Policy above.
	Exec tools.ExecOptions
	// PageSize is how many tools one tools/list page holds; 0: all.
	PageSize int
	// Poll is how often Dirs are checked for changes; 0 means DefaultPoll,
	// a negative value never.
	Poll time.Duration
	// Version is the server version told to clients.
	Version string
	// Logger hears about the server's activity and problems (stderr in
	// the CLI; never the protocol stream). nil: nothing is logged.
	Logger *slog.Logger
}

// Server is an MCP server of one tools catalog, for any number of
// sessions.
type Server struct {
	opts Options
	sdk  *mcp.Server
	log  *slog.Logger
	cur  atomic.Pointer[offer]

	mu    sync.Mutex // serializes reloads
	stamp string     // the fingerprint of Dirs the current offer was loaded from
}

// offer is the tools on offer at one time; a reload replaces it whole, so
// a request sees one consistent catalog.
type offer struct {
	cat    *catalog.Catalog
	picked []catalog.Ranked // what tools/list shows, in order
	caller *tools.Caller
	forms  map[string][]byte // each listed tool's MCP form, to see which changed
}

// New makes the server of opts.Catalog.
func New(opts Options) (*Server, error) {
	if opts.Catalog == nil {
		return nil, errors.New("mcpserve: no catalog")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log}
	s.sdk = mcp.NewServer(&mcp.Implementation{Name: "toolcall", Version: opts.Version}, &mcp.ServerOptions{
		// The SDK tells of every session's start and end: only its
		// warnings and errors are worth a line.
		Logger: slog.New(atLeast{log.Handler(), slog.LevelWarn}),
		// Tools; list_changed is sent when the directories change.
		// Logging, for the log messages of the MCP servers whose tools
		// are passed on (sent while a call of theirs runs).
		//lint:ignore SA1019 logging is deprecated from 2026-07-28 (SEP-2577), not before
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Logging: &mcp.LoggingCapabilities{}},
	})
	s.sdk.AddReceivingMiddleware(s.middleware)
	s.stamp = fingerprint(opts.Dirs, opts.Catalog)
	o, err := s.makeOffer(opts.Catalog)
	if err != nil {
		return nil, err
	}
	s.install(o)
	return s, nil
}

// Run serves one session over t (stdio, in the CLI) until the client
// hangs up or ctx is done, watching the directories meanwhile.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(ctx)
	err := s.sdk.Run(ctx, t)
	if errors.Is(err, io.EOF) || (err != nil && ctx.Err() != nil) {
		return nil
	}
	return err
}

// Close stops the MCP servers the tools on offer come from.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur.Load().cat.Close()
}

// SDK is the SDK's server, for transports Run does not cover (streamable
// HTTP) and for tests.
func (s *Server) SDK() *mcp.Server { return s.sdk }

// makeOffer picks from c what is offered and callable.
func (s *Server) makeOffer(c *catalog.Catalog) (*offer, error) {
	picked, err := c.Select(context.Background(), catalog.Selection{Policy: s.opts.Policy, Tags: s.opts.Tags})
	if err != nil {
		return nil, err
	}
	// Calls may reach every tool exec could call (so that policy refuses
	// with exec's words), except those --tag leaves out.
	callable := c
	if len(s.opts.Tags) > 0 {
		var ts []*tools.Tool
		for _, t := range c.All() {
			if slices.ContainsFunc(s.opts.Tags, func(tag string) bool { return slices.Contains(t.Tags, tag) }) {
				ts = append(ts, t)
			}
		}
		callable = c.Part(ts) // the others stay protected
	}
	xopts := s.opts.Exec
	xopts.Policy = s.opts.Policy
	o := &offer{cat: c, picked: picked, caller: tools.NewCaller(callable, xopts), forms: map[string][]byte{}}
	for _, r := range picked {
		var b bytes.Buffer
		if err := catalog.Render(&b, c, []catalog.Ranked{r}, catalog.RenderOptions{Format: catalog.FormatMCP}); err != nil {
			return nil, err
		}
		o.forms[r.Tool.Name] = b.Bytes()
	}
	return o, nil
}

// install makes o the offer and tells the SDK which tools changed, which
// makes it send notifications/tools/list_changed to the sessions (once
// for changes close together). The SDK's own list holds placeholders:
// tools/list and tools/call are answered by middleware, from o.
func (s *Server) install(o *offer) {
	old := s.cur.Swap(o)
	var gone []string
	if old != nil {
		for name := range old.forms {
			if _, ok := o.forms[name]; !ok {
				gone = append(gone, name)
			}
		}
	}
	if len(gone) > 0 {
		s.sdk.RemoveTools(gone...)
	}
	for _, r := range o.picked {
		name := r.Tool.Name
		if old != nil && bytes.Equal(old.forms[name], o.forms[name]) {
			continue
		}
		s.sdk.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, placeholder)
	}
}

// placeholder is never called: the middleware answers every tools/call.
func placeholder(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("mcpserve: tools/call reached the SDK's handler")
}

// middleware answers tools/list and tools/call from the current offer.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			var cursor string
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil {
				cursor = p.Cursor
			}
			return s.list(cursor)
		case "tools/call":
			p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if !ok || p == nil {
				return nil, invalidParams("tools/call without params: give the name of a tool tools/list gives, and its arguments")
			}
			if p.Name == "" {
				return nil, invalidParams("tools/call without a tool name: give params.name, one of the names tools/list gives")
			}
			if args := bytes.TrimSpace(p.Arguments); len(args) > 0 && args[0] != '{' && string(args) != "null" {
				return nil, invalidParams(fmt.Sprintf("tools/call %q: params.arguments is %s, not an object: give the tool's parameters as an object, {\"name\": value, ...}", p.Name, jsonKind(args)))
			}
			return s.call(mcpclient.WithRelay(ctx, relay(ctx, req, p)), p.Name, p.Arguments)
		}
		return next(ctx, method, req)
	}
}

// list renders one page of the tools on offer, as catalog --format mcp
// renders it with the same page size and cursor.
func (s *Server) list(cursor string) (mcp.Result, error) {
	o := s.cur.Load()
	var b bytes.Buffer
	err := catalog.Render(&b, o.cat, o.picked, catalog.RenderOptions{Format: catalog.FormatMCP, PageSize: s.opts.PageSize, Cursor: cursor})
	if errors.Is(err, catalog.ErrBadCursor) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if err != nil {
		return nil, err
	}
	return &listResult{raw: bytes.TrimSpace(b.Bytes())}, nil
}

// listResult is a tools/list result already rendered as JSON.
type listResult struct {
	mcp.ResultBase
	raw []byte // {"tools":[...],"nextCursor"?}
}

// MarshalJSON writes the rendered result, with the _meta the SDK may have
// set first.
func (r *listResult) MarshalJSON() ([]byte, error) {
	if len(r.Meta) == 0 {
		return r.raw, nil
	}
	meta, err := json.Marshal(map[string]any(r.Meta))
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"_meta":`), meta...)
	out = append(out, ',')
	return append(out, r.raw[1:]...), nil
}

// relay passes on to the client of req what an MCP server whose tool it
// calls says meanwhile: progress, under the client's own progress token
// (when it gave one), and log messages, which its session sends at the
// level the client set. Cancellation goes the other way by itself: the
// call's context ends, and the SDK tells the server.
func relay(ctx context.Context, req mcp.Request, p *mcp.CallToolParamsRaw) *mcpclient.Relay {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok {
		return nil
	}
	//lint:ignore SA1019 logging is deprecated from 2026-07-28 (SEP-2577), not before
	r := &mcpclient.Relay{Log: func(m *mcp.LoggingMessageParams) { ss.Log(ctx, m) }}
	if tok := p.GetProgressToken(); tok != nil {
		r.Progress = func(n *mcp.ProgressNotificationParams) {
			c := *n
			c.ProgressToken = tok
			ss.NotifyProgress(ctx, &c)
		}
	}
	return r
}

// jsonKind names the kind of a JSON value that is not an object, by its
// first byte, for a message.
func jsonKind(v []byte) string {
	switch v[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// invalidParams is the JSON-RPC error of a request the spec calls
// invalid, with a message that says what to give instead.
func invalidParams(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// call runs one call and answers it as a CallToolResult: the observation's
// text (or the tool's own MCP content, when it printed a result with
// images or resources), its structuredContent, and isError for any
// failure, refusals included, worded as exec words them for the model.
// A tool that is not there is a protocol error (invalid params), as the
// spec lists it; arguments that fail the schema stay an isError result,
// which a model can act on.
func (s *Server) call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	start := time.Now()
	offer := s.cur.Load()
	o, normalized := offer.caller.CallNormalized(ctx, "", name, args)
	if o.Error != nil && o.Error.Kind == tools.KindUnknownTool {
		s.log.Info("tools/call", "tool", name, "error", string(o.Error.Kind))
		return nil, invalidParams(o.Content)
	}
	res := &mcp.CallToolResult{IsError: o.IsError}
	if len(o.Parts) > 0 {
		var parts mcp.CallToolResult
		raw := append(append([]byte(`{"content":`), o.Parts...), '}')
		if err := json.Unmarshal(raw, &parts); err == nil {
			res.Content = parts.Content
		}
	}
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: o.Content}}
	}
	if why := conform(offer.cat, name, &o, res); why != "" {
		res.IsError = true
		res.Content = append([]mcp.Content{&mcp.TextContent{Text: why}}, res.Content...)
	}
	attrs := []any{"tool", name, "id", o.ID, "ms", time.Since(start).Milliseconds()}
	if len(normalized) > 0 {
		res.Meta = mcp.Meta{MetaNormalized: normalizedMeta(normalized)}
		attrs = append(attrs, "normalized", len(normalized))
	}
	if o.Error != nil {
		attrs = append(attrs, "error", string(o.Error.Kind), "message", o.Error.Message)
	}
	s.log.Info("tools/call", attrs...)
	return res, nil
}

// conform sets res's structuredContent from o, only if it matches the
// outputSchema the tool was listed with: a client checks it against that
// schema, error or not, and throws away a result that breaks it, with the
// explanation in it. It gives the explanation of a result that breaks the
// schema (or lacks the structured part it promises) when o's text does
// not say it already; "" when there is nothing to explain.
func conform(c *catalog.Catalog, name string, o *tools.Observation, res *mcp.CallToolResult) string {
	t, _ := c.Lookup(name)
	if t == nil || t.OutputSchema == nil {
		if len(o.Structured) > 0 {
			res.StructuredContent = json.RawMessage(o.Structured)
		}
		return ""
	}
	if len(o.Structured) > 0 {
		if err := t.CheckOutput(o.Structured); err != nil {
			return fmt.Sprintf("tool %q returned a structured result that does not match its output schema, so it is left out: %v", name, err)
		}
		res.StructuredContent = json.RawMessage(o.Structured)
		return ""
	}
	if o.IsError && o.Error != nil && !strings.Contains(o.Content, o.Error.Message) {
		return o.Error.Message
	}
	return ""
}

// Watch looks at the directories every Poll until ctx is done, and
// reloads the tools when a file was added, removed or changed; and it
// lists an MCP server's tools again when the server says they changed.
func (s *Server) Watch(ctx context.Context) {
	every := s.opts.Poll
	if every == 0 {
		every = DefaultPoll
	}
	var tick <-chan time.Time
	if every > 0 && s.opts.Reload != nil {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for {
		// A reload replaces the catalog, and with it what to listen to.
		changed := s.cur.Load().cat.Changed()
		if tick == nil && changed == nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
			s.Check()
		case <-changed:
			s.Relist()
		}
	}
}

// Relist takes the tools of the MCP servers on offer as they are now,
// after one said its tools changed (notifications/tools/list_changed),
// and tells the clients when what they are offered changed. The servers
// keep their sessions; the directories are not read again.
func (s *Server) Relist() {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.cur.Load()
	n, err := s.makeOffer(o.cat.Relist())
	if err != nil {
		s.log.Warn(fmt.Sprintf("an MCP server's tools changed, but could not be offered: %v", err))
		return
	}
	s.install(n)
	s.log.Info("an MCP server's tools changed", "tools", len(n.picked))
}

// Check reloads the tools if the directories changed since the last load,
// and reports whether it did. A reload that fails keeps the tools as they
// were, and says why in the log.
func (s *Server) Check() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.cur.Load()
	stamp := fingerprint(s.opts.Dirs, o.cat)
	if stamp == s.stamp {
		return false
	}
	s.stamp = stamp
	c, err := s.opts.Reload()
	if err != nil {
		s.log.Warn(fmt.Sprintf("the tools changed, but could not be loaded again; still offering them as they were: %v", err))
		return false
	}
	// A reload may see files written after the stamp was taken; the next
	// look then sees a new stamp and loads again.
	n, err := s.makeOffer(c)
	if err != nil {
		s.log.Warn(fmt.Sprintf("the tools changed, but could not be offered: %v", err))
		return false
	}
	s.install(n)
	// Calls in flight keep the old offer, whose MCP servers are stopped
	// now: such a call is answered with the error of a stopped server.
	o.cat.Close()
	s.log.Info("the tools changed; clients were told", "tools", len(n.picked))
	// Every file changed may be a changed executable whose tool's listing
	// did not: tell the clients all the same.
	if o != nil && sameForms(o.forms, n.forms) {
		s.touch(n)
	}
	return true
}

// touch makes the SDK notify the sessions though no listing changed.
func (s *Server) touch(o *offer) {
	if len(o.picked) > 0 {
		name := o.picked[0].Tool.Name
		s.sdk.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, placeholder)
	}
}

func sameForms(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// atLeast passes on the records of level min and above.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(as []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(as), h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.min}
}
