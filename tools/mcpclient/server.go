// Package mcpclient is toolcall's MCP client: an MCP server as a source
// of tools (Server), declared by a sidecar holding "mcp_server"
// (ParseSidecar) or by --mcp. Its tools are tools.Tools with Server set,
// which the executor checks, limits and redacts as any; a call goes to
// the server through the tools.Server interface, so tools knows nothing
// of MCP. An MCP server that offers such tools to its own clients (mcp
// serve) hears what they say while they run through a Relay.
package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/launch"
	"github.com/toolcall/toolcall/internal/loopback"
	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/redact"
)

// DefaultTimeout bounds an MCP server's start (initialize and the tool
// list) when its sidecar sets no "timeout".
const DefaultTimeout = 30 * time.Second

// Server is a tool source: an MCP server, declared by a sidecar
// holding "mcp_server" or by --mcp, that toolcall either runs as a child
// process over stdio (Command) or reaches over streamable HTTP on this
// machine (URL). Its tools are Tools like any other, with Server set: a
// call to one is checked, refused, limited and redacted as any call is,
// and its CallToolResult is taken as a tool's MCP-shaped stdout.
//
// The server is started (or reached) at the first need (its list or a
// call), once; a command runs through the launcher tools use (a process
// group of its own, a scrubbed environment plus the names in Env), and
// Close stops it. An Server is safe for concurrent use.
type Server struct {
	// Name says which server this is in messages: the sidecar's file, or
	// the --mcp argument.
	Name string
	// File is the sidecar that declared it; "" for --mcp.
	File string
	// Exactly one of Command and URL is set.
	Command []string // the program and its arguments; the program is looked up on PATH
	// Unchecked lets Command run code toolcall cannot find (sh -c,
	// python3 -m): the sidecar's "unchecked_command" (CheckCommand).
	Unchecked bool
	// URL is the streamable HTTP endpoint of a server already running,
	// on a loopback address (CheckURL). It may carry a user and
	// password; messages never show them.
	URL string
	// Dial opens the connection to URL. Nothing in tools opens a network
	// connection itself: the caller that may gives it (run.DialMCP keeps
	// to loopback). A URL server without Dial cannot be reached.
	Dial   Dialer
	Env    []string // names of environment variables passed through to Command
	Prefix string   // put before each tool's name
	// Timeout bounds the start (initialize and tools/list);
	// DefaultTimeout when 0.
	Timeout time.Duration
	// Environ is the environment the scrubbed one is taken from;
	// os.Environ() when nil.
	Environ []string
	// OnListChanged, when set, is called when the server says its tools
	// changed (notifications/tools/list_changed); the next Tools lists
	// them again. It must not block. Set it before the first use.
	OnListChanged func()

	once    sync.Once
	session *mcp.ClientSession
	err     error
	stop    context.CancelFunc
	exited  chan struct{} // closed when the process has ended; nil for a URL server
	stderr  *stderrTail
	toUs    *io.PipeReader // the server's stdout, as the session reads it

	relays relays // the calls whose progress and log messages are passed on

	changes   atomic.Int64 // list_changed notifications heard
	listMu    sync.Mutex   // serializes tools/list
	listed    bool         // tools holds a list
	listedAt  int64        // the value of changes when it was asked for
	listTools []*tools.Tool
}

// Dialer opens the connection to the MCP server at endpoint (a URL
// CheckURL accepted) over MCP's streamable HTTP transport.
type Dialer func(endpoint string) (mcp.Transport, error)

// CheckURL reports whether raw may be an MCP server's URL: http or
// https, on a loopback host (127.0.0.0/8, ::1 or localhost), since
// nothing is fetched from the network but the model server. The error
// shows raw without its credentials.
func CheckURL(raw string) error {
	shown := urlcred.Strip(raw)
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password
		}
		return fmt.Errorf("%q is not a URL: %v; give one such as http://127.0.0.1:8000/mcp", shown, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: want an http:// or https:// URL (MCP's streamable HTTP), such as http://127.0.0.1:8000/mcp", shown)
	}
	if u.Host == "" {
		return fmt.Errorf("%q has no host; give one such as http://127.0.0.1:8000/mcp", shown)
	}
	if !loopback.Host(u.Hostname()) {
		return fmt.Errorf("%q: loopback only: the host must be 127.0.0.1, ::1 or localhost, since toolcall fetches nothing from the network but the model server; run the server on this machine (or tunnel it to a local port)", shown)
	}
	return nil
}

// ParseSidecar reads a sidecar that declares an MCP server, one to run
// or one running on this machine:
//
//	{"mcp_server": {"command": ["npx", "-y", "pkg"], "env": ["TOKEN"], "prefix": "", "timeout": "30s"}}
//	{"mcp_server": {"url": "http://127.0.0.1:8000/mcp", "prefix": "", "timeout": "30s"}}
//
// ok is false when the sidecar declares no server (it is a tool's).
func ParseSidecar(file string, data []byte) (s *Server, ok bool, err error) {
	v := gjson.GetBytes(data, "mcp_server")
	if !v.Exists() {
		return nil, false, nil
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, &tools.SidecarError{File: file, Err: fmt.Errorf(format, args...)})
	}
	if !v.IsObject() {
		fail(`"mcp_server" must be an object such as {"command": ["npx", "-y", "@modelcontextprotocol/server-everything"]} or {"url": "http://127.0.0.1:8000/mcp"}`)
		return nil, true, errors.Join(errs...)
	}
	s = &Server{Name: file, File: file}
	v.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "command", "env":
			if !val.IsArray() {
				fail(`"mcp_server.%s" must be an array of strings`, k.Str)
				return true
			}
			var list []string
			for _, e := range val.Array() {
				if e.Type != gjson.String || e.Str == "" {
					fail(`"mcp_server.%s" must hold only non-empty strings, found %s`, k.Str, e.Raw)
					return true
				}
				list = append(list, e.Str)
			}
			if k.Str == "command" {
				s.Command = list
			} else {
				s.Env = list
			}
		case "prefix":
			if val.Type != gjson.String {
				fail(`"mcp_server.prefix" must be a string`)
			}
			s.Prefix = val.Str
		case "timeout":
			s.Timeout = readTimeout(val, fail)
		case "unchecked_command":
			if val.Type != gjson.True && val.Type != gjson.False {
				fail(`"mcp_server.unchecked_command" must be true or false`)
			}
			s.Unchecked = val.Type == gjson.True
		case "url":
			if val.Type != gjson.String {
				fail(`"mcp_server.url" must be a string, such as "http://127.0.0.1:8000/mcp"`)
				return true
			}
			if err := CheckURL(val.Str); err != nil {
				fail(`"mcp_server.url" %w`, err)
				return true
			}
			s.URL = val.Str
		default:
			fail(`"mcp_server" has an unknown key %q; the keys are command, url, env, prefix, timeout and unchecked_command`, k.Str)
		}
		return true
	})
	hasURL := v.Get("url").Exists()
	switch {
	case len(errs) > 0:
	case len(s.Command) > 0 && hasURL:
		fail(`"mcp_server" has both "command" and "url": give "command" for a server toolcall starts, or "url" for one already running`)
	case len(s.Command) == 0 && !hasURL:
		fail(`"mcp_server" needs "command" (the program and its arguments, such as ["npx", "-y", "@modelcontextprotocol/server-everything"]) or "url" (a server running on this machine, such as "http://127.0.0.1:8000/mcp")`)
	case hasURL && v.Get("env").Exists():
		fail(`"mcp_server.env" names variables passed to a server toolcall starts; a "url" server is already running with an environment of its own, so remove "env"`)
	case hasURL && s.Unchecked:
		fail(`"mcp_server.unchecked_command" is about a server toolcall starts; a "url" server runs no command of toolcall's, so remove it`)
	case len(s.Command) > 0:
		// Every file the command runs is taken from beside the sidecar.
		cmd, err := CheckCommand(s.Command, filepath.Dir(file), s.Unchecked)
		if err != nil {
			fail(`"mcp_server.command" %w`, err)
		}
		s.Command = cmd
	}
	if len(errs) > 0 {
		return nil, true, errors.Join(errs...)
	}
	return s, true, nil
}

// connect starts (or reaches) the server and initializes a session,
// once.
func (s *Server) connect() (*mcp.ClientSession, error) {
	s.once.Do(func() { s.session, s.err = s.start() })
	return s.session, s.err
}

// String names the server in messages, with its command or its URL
// (without credentials).
func (s *Server) String() string {
	if s.URL != "" {
		shown := urlcred.Strip(s.URL)
		if strings.Contains(s.Name, shown) { // --mcp URL
			return "MCP server " + s.Name
		}
		return fmt.Sprintf("MCP server %s at %s", s.Name, shown)
	}
	return fmt.Sprintf("MCP server %s (%s)", s.Name, strings.Join(s.Command, " "))
}

func (s *Server) start() (*mcp.ClientSession, error) {
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	var t mcp.Transport
	if s.URL != "" {
		if s.Dial == nil {
			stop()
			return nil, fmt.Errorf("%s cannot be reached: no connection to it was provided (a program using toolcall's packages sets catalog.LoadOptions.MCPDialer, or Server.Dial, to run.DialMCP)", s.String())
		}
		var err error
		if t, err = s.Dial(s.URL); err != nil {
			stop()
			return nil, fmt.Errorf("%s cannot be reached: %w", s.String(), err)
		}
	} else {
		t = s.launch(ctx)
	}

	limit := s.Timeout
	if limit <= 0 {
		limit = DefaultTimeout
	}
	init, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolcall", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.changes.Add(1)
			if s.OnListChanged != nil {
				s.OnListChanged()
			}
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { s.relays.progress(r.Params) },
		//lint:ignore SA1019 logging is deprecated from 2026-07-28 (SEP-2577), not before
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { s.relays.log(r.Params) },
	})
	type connected struct {
		cs  *mcp.ClientSession
		err error
	}
	done := make(chan connected, 1)
	go func() {
		cs, err := client.Connect(init, t, nil)
		done <- connected{cs, err}
	}()
	var c connected
	answered := false
	select {
	case c = <-done:
		answered = true
	case <-init.Done():
		c.err = init.Err()
	case <-s.exited: // nil, never ready, for a URL server
		c.err = errors.New("it exited")
	}
	if c.err != nil {
		if !answered {
			// Connect may yet succeed, too late: close what it made.
			go func() {
				if late := <-done; late.cs != nil {
					late.cs.Close()
				}
			}()
		}
		s.kill()
		why := c.err.Error()
		if errors.Is(c.err, context.DeadlineExceeded) {
			why = fmt.Sprintf("it did not answer initialize within %v", limit)
		}
		verb := "started"
		if s.URL != "" {
			verb = "reached"
		}
		return nil, fmt.Errorf("%s could not be %s: %s%s", s.String(), verb, why, s.stderrNote())
	}
	return c.cs, nil
}

// launch runs the server's command until ctx is done, and returns the
// transport over its stdin and stdout.
func (s *Server) launch(ctx context.Context) mcp.Transport {
	environ := s.Environ
	if environ == nil {
		environ = os.Environ()
	}
	env := tools.Environ(environ, &tools.Tool{Env: s.Env}, "", nil)
	// toolcall's own markers mean nothing to a server.
	env = removeVars(env, "TOOLCALL_TOOL", "TOOLCALL_CALL_ID")

	toChild, fromUs := io.Pipe()
	toUs, fromChild := io.Pipe()
	s.exited, s.stderr, s.toUs = make(chan struct{}), &stderrTail{}, toUs
	go func() {
		defer close(s.exited)
		launch.Run(ctx, launch.Spec{
			Path:      s.Command[0],
			Args:      s.Command[1:],
			LookPath:  true,
			Env:       env,
			StdinFrom: toChild,
			Stdout:    fromChild,
			Stderr:    s.stderr,
		})
		// The server is gone: the session reads an end of file.
		fromChild.Close()
	}()
	return &mcp.IOTransport{Reader: toUs, Writer: fromUs}
}

// stderrNote is the end of the server's stderr, for an error message.
func (s *Server) stderrNote() string {
	if s.stderr == nil {
		return ""
	}
	tail := strings.TrimSpace(strings.ToValidUTF8(string(s.stderr.bytes()), "\uFFFD"))
	if tail == "" {
		return ""
	}
	if len(tail) > 500 {
		tail = "…" + tail[len(tail)-500:]
	}
	return "; its stderr ends: " + tail
}

// kill stops the server's process group and waits for it. Nobody reads
// the server's stdout any more: closing our end lets the launcher's copy
// of it end. A URL server has no process: nothing is left to stop.
func (s *Server) kill() {
	if s.toUs != nil {
		s.toUs.Close()
	}
	s.stop()
	if s.exited != nil {
		<-s.exited
	}
}

// Close ends the session, which closes the server's stdin (or, over
// HTTP, ends the session on the server); a server that does not exit
// then is stopped as a tool is (SIGTERM, then SIGKILL).
func (s *Server) Close() {
	s.once.Do(func() { s.err = errors.New("closed") }) // never start now
	if s.session == nil {
		return
	}
	s.session.Close()
	if s.exited != nil {
		select {
		case <-s.exited:
		case <-time.After(time.Second):
		}
	}
	s.kill()
}

// Tools starts the server if need be and returns its tools, read as a
// sidecar in the MCP dialect is read (annotations give safe and the
// network tag), named Prefix + their name. The list is asked for once,
// and again only after the server said it changed; warnings come with
// the list that caused them.
func (s *Server) Tools() ([]*tools.Tool, []string, error) {
	cs, err := s.connect()
	if err != nil {
		return nil, nil, err
	}
	s.listMu.Lock()
	defer s.listMu.Unlock()
	asked := s.changes.Load()
	if s.listed && s.listedAt == asked {
		return s.listTools, nil, nil
	}
	ts, warns, err := s.list(cs)
	if err != nil {
		return nil, warns, err
	}
	s.listed, s.listedAt, s.listTools = true, asked, ts
	return ts, warns, nil
}

// Changes counts the times the server said its tools changed: a list
// taken after reading it is as new as that count, or newer.
func (s *Server) Changes() int64 { return s.changes.Load() }

// list asks the server for its tools.
func (s *Server) list(cs *mcp.ClientSession) ([]*tools.Tool, []string, error) {
	limit := s.Timeout
	if limit <= 0 {
		limit = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var ts []*tools.Tool
	var warns []string
	for mt, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, warns, fmt.Errorf("MCP server %s: tools/list: %w", s.Name, err)
		}
		def, err := json.Marshal(mt)
		if err != nil {
			return nil, warns, fmt.Errorf("MCP server %s: tool %q: %w", s.Name, mt.Name, err)
		}
		file := s.Name + "#" + mt.Name
		t, w, err := tools.ParseSidecar(file, def)
		warns = append(warns, w...)
		if err != nil {
			warns = append(warns, fmt.Sprintf("MCP server %s: tool %q is left out: %v", s.Name, mt.Name, err))
			continue
		}
		t.Name = s.Prefix + mt.Name
		if !tools.ValidName(t.Name) {
			warns = append(warns, fmt.Sprintf("MCP server %s: tool %q is left out: its name is not 1-128 of A-Z a-z 0-9 _ . -", s.Name, t.Name))
			continue
		}
		t.Server, t.ServerTool, t.Command, t.File = s, mt.Name, "", s.File
		ts = append(ts, t)
	}
	return ts, warns, nil
}

// Call runs one call of the server's tool named tool with args, within
// timeout once the server is up, and gives the CallToolResult as a tool's
// MCP-shaped stdout would be: content, structuredContent and isError (see
// tools.Server). What the server says about the call while it runs goes
// to the relay of ctx (WithRelay), redacted with r.
func (s *Server) Call(ctx context.Context, tool string, args []byte, timeout time.Duration, r *redact.Redactor) ([]byte, error) {
	cs, err := s.connect()
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}
	defer s.relayed(cctx, cs, params, r)()
	res, err := cs.CallTool(cctx, params)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case cctx.Err() != nil:
		return nil, context.DeadlineExceeded
	case err != nil:
		select {
		case <-s.exited: // never ready for a URL server
			return nil, fmt.Errorf("its MCP server %s stopped: %v%s", s.Name, err, s.stderrNote())
		default:
			if s.URL != "" && unanswered(err) {
				return nil, fmt.Errorf("its %s could not be reached: %v", s, err)
			}
			return nil, fmt.Errorf("its MCP server %s refused the call: %v", s.Name, err)
		}
	}
	// Only what a tool's MCP-shaped stdout holds: a result of the newer
	// protocol carries _meta and resultType, which are not the tool's.
	out, err := json.Marshal(struct {
		Content           []mcp.Content `json:"content"`
		StructuredContent any           `json:"structuredContent,omitempty"`
		IsError           bool          `json:"isError,omitempty"`
	}{res.Content, res.StructuredContent, res.IsError})
	if err != nil {
		return nil, fmt.Errorf("its MCP server %s sent a result that cannot be read: %v", s.Name, err)
	}
	return out, nil
}

// Files are the sidecar that declared the server and the files its
// command runs (commandFiles).
func (s *Server) Files() []string {
	var out []string
	if s.File != "" {
		out = append(out, s.File)
	}
	return append(out, commandFiles(s.Command)...)
}

// Secrets are the passwords in the server's URL, as written and decoded:
// a server that echoes its URL, or a tool that reads it, must not show
// them.
func (s *Server) Secrets() []string {
	if s.URL == "" {
		return nil
	}
	return urlcred.Passwords(s.URL)
}

// stderrKeep is how much of the end of a server's stderr is kept for its
// error messages, which show the last 500 bytes.
const stderrKeep = 4 << 10

// stderrTail keeps the last stderrKeep bytes or more of what is written
// to it: a server's stderr, read for messages while the server runs.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*stderrKeep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrKeep:]...)
	}
	return len(p), nil
}

func (t *stderrTail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}

// readTimeout reads "mcp_server.timeout": a duration ("30s") or a
// number of seconds; 0 when it is not given.
func readTimeout(v gjson.Result, fail func(string, ...any)) time.Duration {
	var d time.Duration
	switch v.Type {
	case gjson.Null:
		return 0
	case gjson.Number:
		d = time.Duration(v.Num * float64(time.Second))
	case gjson.String:
		var err error
		if d, err = time.ParseDuration(v.Str); err != nil {
			fail(`"mcp_server.timeout" %q is not a duration; write it like "30s" or "2m", or as a number of seconds`, v.Str)
			return 0
		}
	default:
		fail(`"mcp_server.timeout" must be a duration like "30s" or a number of seconds, found %s`, v.Raw)
		return 0
	}
	if d < 0 {
		fail(`"mcp_server.timeout" %s is negative; give a positive duration, or leave it out for the default`, v.Raw)
		return 0
	}
	return d
}

// rejectedByTransport is the code of the SDK's error for a message its
// transport could not deliver, as opposed to an error the server sent.
const rejectedByTransport = -32005

// unanswered reports whether err is not the server's answer: the request
// never reached it, or the connection failed.
func unanswered(err error) bool {
	var we *jsonrpc.Error
	return !errors.As(err, &we) || we.Code == rejectedByTransport
}

// removeVars drops the variables named from env.
func removeVars(env []string, names ...string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			if k == n {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// The executor calls a Server's tools through tools.Server.
var _ tools.Server = (*Server)(nil)
