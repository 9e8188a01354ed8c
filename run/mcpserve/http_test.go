package mcpserve

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/catalog"
)

const testToken = "0123456789abcdef0123456789abcdef"

// newServer is a server of the tools in dir, loaded with lopts, that does
// not poll the directory.
func newServer(t *testing.T, dir string, lopts catalog.LoadOptions, opts Options) *Server {
	t.Helper()
	c, err := catalog.Load([]string{dir}, lopts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Catalog, opts.Poll = c, -1
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// listen serves a server of dir over HTTP on a loopback port with lo,
// until the test ends, and gives its base URL.
func listen(t *testing.T, dir string, opts Options, lo ListenOptions) string {
	t.Helper()
	s := newServer(t, dir, catalog.LoadOptions{}, opts)
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	lo.Addr = "127.0.0.1:0"
	lo.Ready = func(a net.Addr) error { addr <- a; return nil }
	go func() { done <- s.Listen(ctx, lo) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		s.Close()
	})
	select {
	case a := <-addr:
		return "http://" + a.String()
	case err := <-done:
		t.Fatal(err)
	}
	return ""
}

// withHeader is an HTTP client that adds one header to every request.
func withHeader(key, value string) *http.Client {
	return &http.Client{Transport: headerTransport{key, value}}
}

type headerTransport struct{ key, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.key, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// connect is an SDK client session over HTTP to url, with client's
// requests.
func connect(t *testing.T, url string, client *http.Client) (*mcp.ClientSession, error) {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: client}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// startSession initializes a session with the headers given as "Key:
// value", and gives its id.
func startSession(t *testing.T, url string, headers ...string) string {
	t.Helper()
	code, _, h := send(t, url, initialize, headers...)
	id := h.Get("Mcp-Session-Id")
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", code, id)
	}
	return id
}

// post sends one JSON-RPC body as a client would, with the headers given
// as "Key: value", and returns the status and body.
func post(t *testing.T, url, body string, headers ...string) (int, string) {
	t.Helper()
	code, b, _ := send(t, url, body, headers...)
	return code, b
}

// send is post that gives the response's headers too.
func send(t *testing.T, url, body string, headers ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

func TestListenOverHTTP(t *testing.T) {
	url := listen(t, toolsDir(t), Options{}, ListenOptions{Token: testToken})
	cs, err := connect(t, url, withHeader("Authorization", "Bearer "+testToken))
	if err != nil {
		t.Fatal(err)
	}
	if r := call(t, cs, "echo", map[string]any{"text": "over http"}); text(r) != `{"text":"over http"}` {
		t.Errorf("echo over HTTP: %q", text(r))
	}
}

// Another local account that can reach the port, but has not the token,
// can neither start a session nor use one it learnt the id of.
func TestListenWantsTheToken(t *testing.T) {
	url := listen(t, toolsDir(t), Options{}, ListenOptions{Token: testToken})
	for _, c := range []struct{ name, header string }{
		{"no header", ""},
		{"another token", "Authorization: Bearer " + strings.Repeat("f", len(testToken))},
		{"a prefix of the token", "Authorization: Bearer " + testToken[:8]},
		{"the token with more", "Authorization: Bearer " + testToken + "0"},
		{"another scheme", "Authorization: Basic " + testToken},
	} {
		var headers []string
		if c.header != "" {
			headers = append(headers, c.header)
		}
		if code, body := post(t, url, initialize, headers...); code != http.StatusUnauthorized || !strings.Contains(body, "bearer token") {
			t.Errorf("%s: %d %s, want 401 saying a bearer token is wanted", c.name, code, body)
		}
	}
	if _, err := connect(t, url, nil); err == nil {
		t.Error("an SDK client without the token connected")
	}

	// A session started with the token is no use without it.
	id := startSession(t, url, "Authorization: bearer "+testToken) // the scheme in any case
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
	if code, _ := post(t, url, call, "Mcp-Session-Id: "+id); code != http.StatusUnauthorized {
		t.Errorf("a call in a session, without the token: %d, want 401", code)
	}
}

func TestListenWithoutAuthIsAChoice(t *testing.T) {
	c, _ := catalog.Load([]string{toolsDir(t)}, catalog.LoadOptions{})
	s, err := New(Options{Catalog: c, Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(context.Background(), ListenOptions{Addr: "127.0.0.1:0"}); err == nil {
		t.Fatal("Listen without a token or NoAuth served")
	}
	url := listen(t, toolsDir(t), Options{}, ListenOptions{NoAuth: true})
	cs, err := connect(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := call(t, cs, "echo", map[string]any{"text": "open"}); text(r) != `{"text":"open"}` {
		t.Errorf("echo with NoAuth: %q", text(r))
	}
}

// A session that sends nothing for SessionTimeout is closed: its id is
// then unknown (404), and the client must start again.
func TestListenSessionsExpire(t *testing.T) {
	url := listen(t, toolsDir(t), Options{}, ListenOptions{Token: testToken, SessionTimeout: time.Millisecond})
	auth := "Authorization: Bearer " + testToken
	id := startSession(t, url, auth)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _ := post(t, url, ping, auth, "Mcp-Session-Id: "+id)
		if code == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session still answers (%d)", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A client that sends part of a request and then nothing more loses its
// connection: headers or body, it cannot hold one open for ever.
func TestListenDropsSlowClients(t *testing.T) {
	url := listen(t, toolsDir(t), Options{}, ListenOptions{Token: testToken, ReadTimeout: 50 * time.Millisecond})
	host := strings.TrimPrefix(url, "http://")
	for name, partial := range map[string]string{
		"headers": "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n",
		"body": "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			"Authorization: Bearer " + testToken + "\r\nContent-Length: 1000\r\n\r\n" + initialize[:20],
	} {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, partial); err != nil {
			t.Fatal(err)
		}
		// A failsafe only: the server is expected to hang up long before.
		conn.SetReadDeadline(time.Now().Add(time.Minute))
		r := bufio.NewReader(conn)
		_, err = io.Copy(io.Discard, r)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("%s sent in part: the server kept the connection open", name)
		}
		conn.Close()
	}
}

// A page on another site cannot drive the server through a browser: a
// request whose Origin is not on loopback, nor allowed by name, gets 403,
// on initialize and in a session; clients that send no Origin, and pages
// on this machine, are served.
func TestListenChecksTheOrigin(t *testing.T) {
	url := listen(t, toolsDir(t), Options{}, ListenOptions{Token: testToken, AllowOrigins: []string{"https://App.example:8443"}})
	auth := "Authorization: Bearer " + testToken
	for _, c := range []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"http://localhost:5173", http.StatusOK},
		{"http://127.0.0.1:6274", http.StatusOK},
		{"http://[::1]", http.StatusOK},
		{"https://app.example:8443", http.StatusOK},
		{"http://evil.example", http.StatusForbidden},
		{"https://app.example:8444", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		headers := []string{auth}
		if c.origin != "" {
			headers = append(headers, "Origin: "+c.origin)
		}
		if code, body := post(t, url, initialize, headers...); code != c.want {
			t.Errorf("initialize from Origin %q: %d %s, want %d", c.origin, code, body, c.want)
		}
	}
	id := startSession(t, url, auth)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
	if code, _ := post(t, url, call, auth, "Mcp-Session-Id: "+id, "Origin: http://evil.example"); code != http.StatusForbidden {
		t.Errorf("a call in a session from a foreign Origin: %d, want 403", code)
	}
	// Without the token too: the page is refused for where it is from.
	if code, _ := post(t, url, initialize, "Origin: http://evil.example"); code != http.StatusForbidden {
		t.Errorf("a foreign Origin without the token: %d, want 403", code)
	}
}

// A request that is not initialize, sent without a session id, gets 400
// (the SDK would start a session for it that was never initialized); an
// initialize, and any request of the sessionless protocol, go through.
func TestListenWantsASession(t *testing.T) {
	url := listen(t, toolsDir(t), Options{}, ListenOptions{Token: testToken})
	auth := "Authorization: Bearer " + testToken
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
	for _, headers := range [][]string{{auth}, {auth, "Mcp-Protocol-Version: 2025-06-18"}, {auth, "Mcp-Protocol-Version: 2025-11-25"}} {
		if code, body := post(t, url, call, headers...); code != http.StatusBadRequest || !strings.Contains(body, "Mcp-Session-Id") {
			t.Errorf("tools/call without a session (%v): %d %s, want 400 naming Mcp-Session-Id", headers[1:], code, body)
		}
	}
	if code, body := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, auth); code != http.StatusBadRequest {
		t.Errorf("a notification without a session: %d %s, want 400", code, body)
	}
	id := startSession(t, url, auth)
	if code, body := post(t, url, call, auth, "Mcp-Session-Id: "+id); code != http.StatusOK || !strings.Contains(body, `{\"text\":\"x\"}`) {
		t.Errorf("tools/call in the session: %d %s", code, body)
	}
}

// An event stream starts with a priming event, an id and no data, from
// protocol 2025-11-25 on, so that a client whose stream breaks can take
// it up again (Last-Event-ID).
func TestListenPrimesEventStreams(t *testing.T) {
	url := listen(t, toolsDir(t), Options{}, ListenOptions{Token: testToken})
	init := strings.Replace(initialize, "2025-06-18", "2025-11-25", 1)
	code, body := post(t, url, init, "Authorization: Bearer "+testToken)
	if code != http.StatusOK {
		t.Fatalf("initialize: %d %s", code, body)
	}
	first, _, _ := strings.Cut(body, "\n\n")
	if !strings.Contains(first, "id: ") || strings.Contains(first, `"jsonrpc"`) {
		t.Errorf("the first event is not a priming event (an id, no message):\n%s", body)
	}
	if !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("no initialize result after the priming event:\n%s", body)
	}
}
