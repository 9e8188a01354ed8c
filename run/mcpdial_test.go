package run

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/mcpclient"
)

// httpUpstream is an MCP server over streamable HTTP on a loopback port,
// in this process: the kind of server a "url" sidecar points to.
type httpUpstream struct {
	sdk *mcp.Server
	srv *httptest.Server
}

func newHTTPUpstream(t testing.TB, wrap func(http.Handler) http.Handler) *httpUpstream {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	object := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echo text.", InputSchema: object, Annotations: readOnly},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + gjson.GetBytes(r.Params.Arguments, "text").Str}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "slow", Description: "Wait for ever.", InputSchema: map[string]any{"type": "object"}, Annotations: readOnly},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	if wrap != nil {
		h = wrap(h)
	}
	u := &httpUpstream{sdk: s, srv: httptest.NewServer(h)}
	t.Cleanup(u.stop)
	return u
}

// stop ends the server, its open event streams included.
func (u *httpUpstream) stop() {
	u.srv.CloseClientConnections()
	u.srv.Close()
}

// urlSidecar writes a tools directory holding one mcp_server sidecar of
// the server at url.
func urlSidecar(t *testing.T, url, prefix string) string {
	t.Helper()
	dir := t.TempDir()
	side, _ := json.Marshal(map[string]any{"mcp_server": map[string]any{"url": url, "prefix": prefix, "timeout": "5s"}})
	if err := os.WriteFile(filepath.Join(dir, "upstream.json"), side, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// loadURL loads dir as the CLI does, and gathers the warnings.
func loadURL(t *testing.T, dir string) (*catalog.Catalog, *warnings) {
	t.Helper()
	w := &warnings{}
	c, err := catalog.Load([]string{dir}, catalog.LoadOptions{Warn: w.add, MCPDialer: DialMCP})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, w
}

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.list = append(w.list, s); w.mu.Unlock() }
func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.list, "\n")
}

func TestURLServerListAndCall(t *testing.T) {
	up := newHTTPUpstream(t, nil)
	c, w := loadURL(t, urlSidecar(t, up.srv.URL+"/mcp", "h_"))
	if got := strings.Join(c.Names(), " "); got != "h_echo h_slow" {
		t.Fatalf("tools %q, want h_echo h_slow; warnings: %s", got, w)
	}
	caller := tools.NewCaller(c, tools.ExecOptions{Timeout: 300 * time.Millisecond, Environ: []string{}})
	if o := caller.Call(context.Background(), "1", "h_echo", []byte(`{"text":"hi"}`)); o.IsError || o.Content != "echo: hi" {
		t.Errorf("h_echo: %+v", o)
	}
	if o := caller.Call(context.Background(), "2", "h_echo", []byte(`{"txt":"hi"}`)); o.Error == nil || o.Error.Kind != tools.KindValidation {
		t.Errorf("h_echo without text reached the server: %+v", o)
	}
	if o := caller.Call(context.Background(), "3", "h_slow", nil); o.Error == nil || o.Error.Kind != tools.KindTimeout {
		t.Errorf("h_slow past the timeout: %+v", o)
	}
	// The session outlives a call that timed out.
	if o := caller.Call(context.Background(), "4", "h_echo", []byte(`{"text":"again"}`)); o.IsError || o.Content != "echo: again" {
		t.Errorf("h_echo after a timeout: %+v", o)
	}
}

func TestURLServerDown(t *testing.T) {
	up := newHTTPUpstream(t, nil)
	url := strings.Replace(up.srv.URL, "http://", "http://me:s3cret@", 1) + "/mcp"
	up.stop()
	c, w := loadURL(t, urlSidecar(t, url, ""))
	if len(c.All()) != 0 {
		t.Errorf("tools of a server that is down: %v", c.Names())
	}
	msg := w.String()
	t.Log(msg)
	if !strings.Contains(msg, "could not be reached") || !strings.Contains(msg, strings.TrimPrefix(up.srv.URL, "http://")) {
		t.Errorf("warning %q: want the server named, with its address, as not reached", msg)
	}
	if strings.Contains(msg, "s3cret") || strings.Contains(msg, "me:") {
		t.Errorf("warning shows the URL's credentials: %q", msg)
	}
}

func TestURLServerGoesDown(t *testing.T) {
	up := newHTTPUpstream(t, nil)
	c, w := loadURL(t, urlSidecar(t, up.srv.URL+"/mcp", ""))
	if len(c.All()) != 2 {
		t.Fatalf("tools %v; warnings: %s", c.Names(), w)
	}
	up.stop()
	o := tools.NewCaller(c, tools.ExecOptions{Environ: []string{}}).Call(context.Background(), "1", "echo", []byte(`{"text":"hi"}`))
	t.Log(o.Content)
	if o.Error == nil || o.Error.Kind != tools.KindExecution || !strings.Contains(o.Content, "could not be reached") {
		t.Errorf("a call to a server gone: %+v", o)
	}
}

func TestURLServerBasicAuth(t *testing.T) {
	up := newHTTPUpstream(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "me" || p != "s3cret" {
				http.Error(w, "who are you?", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	url := strings.Replace(up.srv.URL, "http://", "http://me:s3cret@", 1) + "/mcp"
	c, w := loadURL(t, urlSidecar(t, url, ""))
	if len(c.All()) != 2 {
		t.Fatalf("tools %v; warnings: %s", c.Names(), w)
	}
}

func TestURLServerHangs(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	s := &mcpclient.Server{Name: "hang", URL: hang.URL + "/mcp", Dial: DialMCP, Timeout: 300 * time.Millisecond}
	defer s.Close()
	if _, _, err := s.Tools(); err == nil || !strings.Contains(err.Error(), "did not answer initialize within 300ms") {
		t.Errorf("Tools of a server that never answers: %v", err)
	}
}

func TestDialMCPStaysOnThisMachine(t *testing.T) {
	if _, err := DialMCP("http://192.0.2.1:8000/mcp"); err == nil || !strings.Contains(err.Error(), "loopback only") {
		t.Errorf("DialMCP of another machine: %v", err)
	}
	for addr, ok := range map[string]bool{
		"127.0.0.1:80": true, "127.9.9.9:1": true, "[::1]:8000": true, "[::ffff:127.0.0.1]:1": true,
		"192.0.2.1:80": false, "[2001:db8::1]:443": false, "0.0.0.0:80": false,
	} {
		err := loopbackOnly(context.Background(), "tcp", addr, nil)
		if ok != (err == nil) || (err != nil && !errors.Is(err, ErrNotLoopback)) {
			t.Errorf("loopbackOnly(%s) = %v", addr, err)
		}
	}
	// A loopback server that sends the client elsewhere is not followed.
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.0.2.1:9/mcp", http.StatusTemporaryRedirect)
	}))
	defer away.Close()
	s := &mcpclient.Server{Name: "away", URL: away.URL + "/mcp", Dial: DialMCP, Timeout: 5 * time.Second}
	defer s.Close()
	_, _, err := s.Tools()
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("Tools of a server that redirects off the machine: %v", err)
	}
}

// TestURLServerListChanged: a server that adds a tool says so over its
// event stream, and the catalog listed again has it.
func TestURLServerListChanged(t *testing.T) {
	up := newHTTPUpstream(t, nil)
	c, w := loadURL(t, urlSidecar(t, up.srv.URL+"/mcp", ""))
	if len(c.All()) != 2 {
		t.Fatalf("tools %v; warnings: %s", c.Names(), w)
	}
	up.sdk.AddTool(&mcp.Tool{Name: "added", Description: "New.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil
		})
	<-c.Changed()
	n := c.Relist()
	if got := strings.Join(n.Names(), " "); got != "added echo slow" {
		t.Fatalf("after list_changed: %q", got)
	}
	if o := tools.NewCaller(n, tools.ExecOptions{Environ: []string{}}).Call(context.Background(), "1", "added", nil); o.IsError || o.Content != "new" {
		t.Errorf("the added tool: %+v", o)
	}
	// exec, as the CLI runs it, checks calls against the tools as they
	// are when the call comes.
	var out strings.Builder
	in := `{"type":"tool_call","id":"2","name":"added","arguments":{}}` + "\n"
	if _, err := tools.Exec(context.Background(), strings.NewReader(in), &out, catalog.NewLive(c), tools.ExecOptions{Environ: []string{}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if o := gjson.Parse(lines[len(lines)-1]); o.Get("type").Str != "tool_observation" || o.Get("is_error").Bool() || o.Get("content").Str != "new" {
		t.Errorf("exec of the added tool: %s", out.String())
	}
}

// BenchmarkURLToolExec is one call of a url MCP server's tool through
// exec (checks, observation, redaction), over loopback HTTP; compare it
// with BenchmarkURLToolDirect, the same call with the SDK's client alone,
// for what toolcall adds.
func BenchmarkURLToolExec(b *testing.B) {
	up := newHTTPUpstream(b, nil)
	s := &mcpclient.Server{Name: "bench", URL: up.srv.URL + "/mcp", Dial: DialMCP}
	b.Cleanup(s.Close)
	ts, _, err := s.Tools()
	if err != nil {
		b.Fatal(err)
	}
	c := catalog.New(ts)
	in := `{"type":"tool_call","id":"1","name":"echo","arguments":{"text":"hi"}}` + "\n"
	opts := tools.ExecOptions{Environ: []string{"PATH=/usr/bin:/bin", "API_KEY=abcdefabcdef"}}
	for b.Loop() {
		var out strings.Builder
		if _, err := tools.Exec(context.Background(), strings.NewReader(in), &out, c, opts); err != nil || !strings.Contains(out.String(), `"content":"echo: hi"`) {
			b.Fatalf("%v: %s", err, out.String())
		}
	}
}

// BenchmarkURLToolDirect is the server's own time for the call of
// BenchmarkURLToolExec: the SDK's client over the same transport.
func BenchmarkURLToolDirect(b *testing.B) {
	up := newHTTPUpstream(b, nil)
	t, err := DialMCP(up.srv.URL + "/mcp")
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}
	for b.Loop() {
		if r, err := cs.CallTool(context.Background(), params); err != nil || r.IsError {
			b.Fatal(err)
		}
	}
}
