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

// Listen serves the same tools over MCP's streamable HTTP transport on
// addr until ctx is done; ready, when set, hears the address listened on
// (the port chosen, for port 0). The SDK refuses requests to a loopback
// address that name another host, against DNS rebinding.
func (s *Server) Listen(ctx context.Context, addr string, anyHost bool, ready func(net.Addr)) error {
	if err := CheckListen(addr, anyHost); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(ctx)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.sdk }, &mcp.StreamableHTTPOptions{Logger: s.log})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
