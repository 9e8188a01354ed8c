//lint:file-ignore SA1019 MCP logging is deprecated from protocol 2026-07-28 (SEP-2577), but the versions before it still have it, and issue 27 asks for it to be passed on.

package mcpclient

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/tools/redact"
)

// Relay hears what an MCP server says about a call of one of its tools
// while the call runs: progress (the server was given a progress token
// for the call) and log messages. An MCP server that offers such tools to
// its own clients (mcp serve) passes them on, redacted as the call's
// result is (Server.Call).
type Relay struct {
	Progress func(p *mcp.ProgressNotificationParams)
	Log      func(p *mcp.LoggingMessageParams)
}

type relayKey struct{}

// WithRelay gives r to the MCP server calls made with ctx.
func WithRelay(ctx context.Context, r *Relay) context.Context {
	return context.WithValue(ctx, relayKey{}, r)
}

func relayOf(ctx context.Context) *Relay {
	r, _ := ctx.Value(relayKey{}).(*Relay)
	return r
}

// relays are the calls of one server that have a Relay, by the
// progress token each was given.
type relays struct {
	mu       sync.Mutex
	next     int64
	byToken  map[string]*Relay
	logAsked bool // the server was asked for its log messages (at the first relayed call)
}

// follow registers r for one call and gives the call's progress token.
func (rs *relays) follow(r *Relay) string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.next++
	tok := "toolcall-" + strconv.FormatInt(rs.next, 10)
	if rs.byToken == nil {
		rs.byToken = map[string]*Relay{}
	}
	rs.byToken[tok] = r
	return tok
}

func (rs *relays) unfollow(tok string) {
	rs.mu.Lock()
	delete(rs.byToken, tok)
	rs.mu.Unlock()
}

// progress passes a progress notification on to the call it is about.
func (rs *relays) progress(p *mcp.ProgressNotificationParams) {
	var tok string
	switch t := p.ProgressToken.(type) {
	case string:
		tok = t
	default:
		return // not a token toolcall gave
	}
	rs.mu.Lock()
	r := rs.byToken[tok]
	rs.mu.Unlock()
	if r != nil && r.Progress != nil {
		r.Progress(p)
	}
}

// log passes a log message on to every call running with a relay: a
// message is about the server, not one call, and those calls' clients are
// the ones using it now.
func (rs *relays) log(p *mcp.LoggingMessageParams) {
	rs.mu.Lock()
	var to []*Relay
	for _, r := range rs.byToken {
		if r.Log != nil {
			to = append(to, r)
		}
	}
	rs.mu.Unlock()
	for _, r := range to {
		r.Log(p)
	}
}

// relayed starts following a call made with ctx, when ctx has a relay,
// which hears what the server says redacted with red: it sets the progress token in params, asks the server for its log
// messages the first time, and returns the function that stops following.
func (s *Server) relayed(ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams, red *redact.Redactor) func() {
	r := relayOf(ctx)
	if r == nil {
		return func() {}
	}
	tok := s.relays.follow(redactRelay(red, r))
	// The log level goes with the call too: from protocol 2026-07-28 on,
	// a server takes it from each request, not from logging/setLevel.
	params.Meta = mcp.Meta{"progressToken": tok, mcp.MetaKeyLogLevel: "debug"}
	s.askForLogs(ctx, cs)
	return func() { s.relays.unfollow(tok) }
}

// askForLogs asks the server, once, for its log messages of every level,
// if it sends any: each client of mcp serve has its own level, which its
// session applies to what it passes on.
func (s *Server) askForLogs(ctx context.Context, cs *mcp.ClientSession) {
	s.relays.mu.Lock()
	asked := s.relays.logAsked
	s.relays.logAsked = true
	s.relays.mu.Unlock()
	if asked {
		return
	}
	if init := cs.InitializeResult(); init == nil || init.Capabilities == nil || init.Capabilities.Logging == nil {
		return
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		s.relays.mu.Lock()
		s.relays.logAsked = false // asked again at the next call
		s.relays.mu.Unlock()
	}
}

// redactRelay is in, with what it hears redacted by r first: a progress
// message, and a log message's logger and data.
func redactRelay(r *redact.Redactor, in *Relay) *Relay {
	out := &Relay{}
	if in.Progress != nil {
		out.Progress = func(p *mcp.ProgressNotificationParams) {
			c := *p
			c.Message = r.String(c.Message)
			in.Progress(&c)
		}
	}
	if in.Log != nil {
		out.Log = func(p *mcp.LoggingMessageParams) {
			c := *p
			c.Logger = r.String(c.Logger)
			if raw, err := json.Marshal(c.Data); err == nil {
				c.Data = json.RawMessage(r.JSON(raw))
			} else {
				c.Data = nil
			}
			in.Log(&c)
		}
	}
	return out
}
