package run

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/toolcall/toolcall/internal/urlcred"
)

// modelClient is the one way toolcall talks to the model server: the
// chat and completions backends, probe's GETs and --template auto's
// /props all build their requests here. It owns the four things each of
// them once did for itself, and one of them got wrong:
//
//   - the URLs: the base URL is kept without its userinfo, so no request
//     URL, and so no message or error that quotes one, holds a password;
//   - the credentials: the API key (or the URL's user and password) are
//     added by authTransport, to requests for the server's own host only;
//   - the headers every request carries;
//   - the words of a failed connection (connMessage).
type modelClient struct {
	base string // the base URL, no trailing slash, no userinfo
	http *http.Client
	// apiKey and keySource are for the hint when the server refuses the
	// key (errorMessage).
	apiKey, keySource string
}

// newModelClient makes the client for the server of opts.
func newModelClient(opts HTTPOptions) *modelClient {
	raw := strings.TrimRight(opts.BaseURL, "/")
	if raw == "" {
		raw = DefaultBaseURL
	}
	base := strings.TrimRight(urlcred.Strip(raw), "/")
	auth := authTransport{apiKey: opts.APIKey}
	if u, err := url.Parse(raw); err == nil {
		auth.scheme, auth.host = u.Scheme, u.Host
		if u.User != nil && opts.APIKey == "" {
			// As net/http does for a URL with userinfo: basic auth. A
			// key, when there is one, is what the server wants instead.
			auth.user = u.User
		}
	}
	hc := opts.Client
	if hc == nil {
		hc = defaultClient()
	}
	auth.next = hc.Transport
	if auth.next == nil {
		auth.next = http.DefaultTransport
	}
	c := *hc // the caller's redirect policy, jar and timeout, our transport
	c.Transport = auth
	return &modelClient{base: base, http: &c, apiKey: opts.APIKey, keySource: opts.KeySource}
}

// url is the address of path (like "/models") under the base URL.
func (c *modelClient) url(path string) string { return c.base + path }

// root is the server's root: the base URL without its "/v1" (where
// llama-server's /props and Ollama's /api are).
func (c *modelClient) root() string { return strings.TrimSuffix(c.base, "/v1") }

// newRequest is a request to target (from url or root) with the headers
// every request to the server carries; accept is the media type wanted.
func (c *modelClient) newRequest(ctx context.Context, method, target string, body io.Reader, accept string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("model server URL %q: %w; check the base URL", DisplayURL(target), withoutURL(err))
	}
	req.Header.Set("User-Agent", "toolcall")
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do sends req. A connection that fails is a *ProviderError in
// connMessage's words, or ctx's error when ctx ended; retry says whether
// another attempt may succeed.
func (c *modelClient) do(ctx context.Context, req *http.Request) (res *http.Response, retry bool, err error) {
	res, err = c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, transient(err), &ProviderError{Message: connMessage(req.URL.String(), err)}
	}
	return res, false, nil
}

// refusal is the message of an error reply of the server, with the hint
// about the key when it was refused.
func (c *modelClient) refusal(status int, contentType string, body []byte) string {
	return errorMessage(status, contentType, body, c.apiKey, c.keySource)
}

// authTransport adds the credentials to each request for the model
// server's host, and to no other: a server that redirects elsewhere (a
// load balancer, a login page, a hostile proxy) does not get the key.
// net/http drops an Authorization header it was given on a redirect to
// another domain, but keeps it for a subdomain, for another port of the
// same host name (another program) and for an https-to-http downgrade;
// adding the credentials here, per request, decides it by exactly the
// host, port and scheme.
type authTransport struct {
	next         http.RoundTripper
	scheme, host string // of the base URL
	apiKey       string
	user         *url.Userinfo // basic auth, when the URL had userinfo and there is no key
}

func (a authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if a.apiKey == "" && a.user == nil {
		return a.next.RoundTrip(req)
	}
	// A RoundTripper must not change the request it is given.
	r := req.Clone(req.Context())
	r.Header.Del("Authorization")
	if a.sameServer(req.URL) {
		if a.apiKey != "" {
			r.Header.Set("Authorization", "Bearer "+a.apiKey)
		} else {
			pw, _ := a.user.Password()
			r.SetBasicAuth(a.user.Username(), pw)
		}
	}
	return a.next.RoundTrip(r)
}

// sameServer reports whether u is on the base URL's host, by a scheme
// that is as safe: http to https is fine, the reverse would send the
// credentials in clear.
func (a authTransport) sameServer(u *url.URL) bool {
	if !strings.EqualFold(u.Host, a.host) {
		return false
	}
	return strings.EqualFold(u.Scheme, a.scheme) || strings.EqualFold(u.Scheme, "https")
}
