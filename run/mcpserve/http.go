package mcpserve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/internal/loopback"
)

// ErrNotLoopback is the error of a listen address that other machines
// could reach, given without the consent to that: the one of
// internal/loopback, as for run.DialMCP.
var ErrNotLoopback = loopback.ErrNotLoopback

// CheckListen reports whether addr (host:port) may be listened on: a
// loopback host (127.0.0.1, ::1, localhost) always; any other, including
// an empty host (every interface), only with anyHost.
func CheckListen(addr string, anyHost bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: want host:port, such as 127.0.0.1:8765", addr)
	}
	if anyHost || loopback.Host(host) {
		return nil
	}
	return fmt.Errorf("%q: %w: the tools would be reachable from other machines; use 127.0.0.1:PORT, or add --listen-any if that is what you want", addr, ErrNotLoopback)
}

// Listen limits, beyond which a connection or session is dropped.
const (
	// DefaultSessionTimeout is how long a session may go without a
	// request before it is closed (a request in progress keeps it).
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultReadTimeout bounds the reading of one request, headers and
	// body: a client that sends slowly or stops halfway does not hold a
	// connection for longer.
	DefaultReadTimeout = 30 * time.Second
	// readHeaderTimeout bounds the headers alone.
	readHeaderTimeout = 10 * time.Second
	// idleTimeout is how long a kept-alive connection may wait for its
	// next request.
	idleTimeout = 2 * time.Minute
)

// ListenOptions says where and how the server listens.
type ListenOptions struct {
	// Addr is host:port; AnyHost allows a host other machines can reach.
	Addr    string
	AnyHost bool
	// Token is the bearer token every request must carry. NoAuth serves
	// without one instead: anyone who can reach Addr may call the tools.
	// One of the two is required.
	Token  string
	NoAuth bool
	// AllowOrigins are the browser origins (scheme://host:port) taken
	// beside those on loopback; a request with any other Origin gets 403.
	AllowOrigins []string
	// SessionTimeout closes a session idle this long: 0 means
	// DefaultSessionTimeout, a negative value never.
	SessionTimeout time.Duration
	// ReadTimeout bounds the reading of one request: 0 means
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// Ready, when set, hears the address listened on (the port chosen,
	// for port 0) before the first request is taken; an error from it
	// ends Listen.
	Ready func(net.Addr) error
}

// Listen serves the same tools over MCP's streamable HTTP transport until
// ctx is done. The SDK refuses requests to a loopback address that name
// another host, against DNS rebinding; a request from a browser page must
// come from this machine or AllowOrigins; and every request must carry
// the bearer token, unless NoAuth.
func (s *Server) Listen(ctx context.Context, lo ListenOptions) error {
	if err := CheckListen(lo.Addr, lo.AnyHost); err != nil {
		return err
	}
	h, err := s.Handler(lo)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", lo.Addr)
	if err != nil {
		return err
	}
	if lo.Ready != nil {
		if err := lo.Ready(ln.Addr()); err != nil {
			ln.Close()
			return err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(ctx)
	read := lo.ReadTimeout
	if read == 0 {
		read = DefaultReadTimeout
	}
	// ReadTimeout holds until a request's body is read: net/http lifts the
	// deadline then, so a long call or a standing event stream is not cut.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: min(readHeaderTimeout, read), ReadTimeout: read, IdleTimeout: idleTimeout}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// Close, not Shutdown: the requests' contexts end, so running tools
	// are killed rather than waited for.
	srv.Close()
	return nil
}

// Handler is the HTTP handler Listen serves, with its checks in front of
// the SDK's streamable transport.
func (s *Server) Handler(lo ListenOptions) (http.Handler, error) {
	if lo.Token == "" && !lo.NoAuth {
		return nil, errNoToken
	}
	idle := lo.SessionTimeout
	switch {
	case idle == 0:
		idle = DefaultSessionTimeout
	case idle < 0:
		idle = 0 // the SDK's "never"
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.sdk }, &mcp.StreamableHTTPOptions{
		Logger:         s.log,
		SessionTimeout: idle,
		// With an event store the SDK sends each event stream's priming
		// event (an id and no data) and lets a client that lost a stream
		// take it up again from the last id it saw. The store keeps at
		// most 10 MiB of events, the oldest dropped first.
		EventStore: mcp.NewMemoryEventStore(nil),
	})
	h = needSession(h)
	if !lo.NoAuth {
		h = bearer(lo.Token, h)
	}
	// The origin first: a foreign page learns nothing of the token check.
	return originCheck(lo.AllowOrigins, h), nil
}
