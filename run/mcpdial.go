package run

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/internal/loopback"
	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools/mcpclient"
)

// ErrNotLoopback is the error of a connection to an MCP server that would
// leave this machine: the one of internal/loopback, as for mcp serve's
// listen address.
var ErrNotLoopback = loopback.ErrNotLoopback

// DialMCP is the mcpclient.Dialer of toolcall: it connects to the MCP
// server at endpoint over streamable HTTP, on this machine only. The
// address a name resolves to is checked when the connection is made (a
// "localhost" that /etc/hosts sends elsewhere is refused), redirects are
// followed only to loopback hosts, no proxy is used, and connecting is
// bounded by ten seconds; each request is bounded by its caller's context
// (the server's start timeout, a call's --timeout). A user and password
// in the URL are sent as basic authentication, never shown in errors.
func DialMCP(endpoint string) (mcp.Transport, error) {
	if err := mcpclient.CheckURL(endpoint); err != nil {
		return nil, err
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err // mcpclient.CheckURL parsed it already
	}
	var rt http.RoundTripper = mcpHTTPTransport()
	if u.User != nil {
		rt = basicAuth{next: rt, host: u.Host, user: u.User}
		u.User = nil
	}
	client := &http.Client{Transport: rt, CheckRedirect: loopbackRedirect}
	return &mcp.StreamableClientTransport{Endpoint: u.String(), HTTPClient: client}, nil
}

// mcpHTTPTransport is shared by every MCP server's client, so their
// connections are kept and reused.
var mcpHTTPTransport = sync.OnceValue(func() *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, ControlContext: loopbackOnly}
	return &http.Transport{
		Proxy:               nil, // the server is on this machine: HTTP_PROXY has no say
		DialContext:         d.DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
		// No ResponseHeaderTimeout: a call's answer may come only when the
		// tool is done; the call's own timeout bounds it.
	}
})

// loopbackOnly refuses, just before connecting, any address not of this
// machine: what a host name resolved to is known only here.
func loopbackOnly(_ context.Context, _, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	if loopback.Addr(host) {
		return nil
	}
	return fmt.Errorf("connecting to %s: %w: toolcall reaches MCP servers on this machine only (check the URL, and what its host name resolves to)", address, ErrNotLoopback)
}

// loopbackRedirect follows a redirect only to a loopback host, and at most
// a few.
func loopbackRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	if err := mcpclient.CheckURL(req.URL.String()); err != nil {
		return fmt.Errorf("redirected to %s: %w: toolcall reaches MCP servers on this machine only", urlcred.Strip(req.URL.Redacted()), ErrNotLoopback)
	}
	return nil
}

// basicAuth sends the user and password of an MCP server's URL to its
// host, and to no other a redirect leads to.
type basicAuth struct {
	next http.RoundTripper
	host string
	user *url.Userinfo
}

func (b basicAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != b.host || req.Header.Get("Authorization") != "" {
		return b.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	pw, _ := b.user.Password()
	req.SetBasicAuth(b.user.Username(), pw)
	return b.next.RoundTrip(req)
}
