package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/launch"
)

// DefaultMCPTimeout bounds an MCP server's start (initialize and the tool
// list) when its sidecar sets no "timeout".
const DefaultMCPTimeout = 30 * time.Second

// MCPServer is a tool source: an MCP server run as a child process over
// stdio, declared by a sidecar holding "mcp_server" or by --mcp. Its
// tools are Tools like any other, with Server set: a call to one is
// checked, refused, limited and redacted as any call is, and its
// CallToolResult is taken as a tool's MCP-shaped stdout.
//
// The server starts at the first need (its list or a call), once, through
// the launcher tools use (a process group of its own, a scrubbed
// environment plus the names in Env), and Close stops it. An MCPServer is
// safe for concurrent use.
type MCPServer struct {
	// Name says which server this is in messages: the sidecar's file, or
	// the --mcp command.
	Name string
	// File is the sidecar that declared it; "" for --mcp.
	File    string
	Command []string // the program and its arguments; the program is looked up on PATH
	Env     []string // names of environment variables passed through
	Prefix  string   // put before each tool's name
	// Timeout bounds the start (initialize and tools/list);
	// DefaultMCPTimeout when 0.
	Timeout time.Duration
	// Environ is the environment the scrubbed one is taken from;
	// os.Environ() when nil.
	Environ []string

	once    sync.Once
	session *mcp.ClientSession
	err     error
	stop    context.CancelFunc
	exited  chan struct{} // closed when the process has ended
	stderr  *stderrCapture
	toUs    *io.PipeReader // the server's stdout, as the session reads it
}

// ParseMCPServer reads a sidecar that declares an MCP server:
//
//	{"mcp_server": {"command": ["npx", "-y", "pkg"], "env": ["TOKEN"], "prefix": "", "timeout": "30s"}}
//
// ok is false when the sidecar declares no server (it is a tool's).
func ParseMCPServer(file string, data []byte) (s *MCPServer, ok bool, err error) {
	v := gjson.GetBytes(data, "mcp_server")
	if !v.Exists() {
		return nil, false, nil
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, &SidecarError{File: file, Err: fmt.Errorf(format, args...)})
	}
	if !v.IsObject() {
		fail(`"mcp_server" must be an object such as {"command": ["npx", "-y", "@modelcontextprotocol/server-everything"]}`)
		return nil, true, errors.Join(errs...)
	}
	s = &MCPServer{Name: file, File: file}
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
			s.Timeout = timeout(val, fail)
		case "url":
			fail(`"mcp_server.url" (a server over HTTP) is not supported yet; give "command" to run the server over stdio`)
		default:
			fail(`"mcp_server" has an unknown key %q; the keys are command, env, prefix and timeout`, k.Str)
		}
		return true
	})
	if len(s.Command) == 0 && len(errs) == 0 {
		fail(`"mcp_server" needs "command": the program and its arguments, such as ["npx", "-y", "@modelcontextprotocol/server-everything"]`)
	}
	if len(errs) > 0 {
		return nil, true, errors.Join(errs...)
	}
	return s, true, nil
}

// connect starts the server and initializes a session, once.
func (s *MCPServer) connect() (*mcp.ClientSession, error) {
	s.once.Do(func() { s.session, s.err = s.start() })
	return s.session, s.err
}

func (s *MCPServer) start() (*mcp.ClientSession, error) {
	environ := s.Environ
	if environ == nil {
		environ = os.Environ()
	}
	env := Environ(environ, &Tool{Env: s.Env}, "", nil)
	// toolcall's own markers mean nothing to a server.
	env = removeVars(env, "TOOLCALL_TOOL", "TOOLCALL_CALL_ID")

	toChild, fromUs := io.Pipe()
	toUs, fromChild := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	s.stop, s.exited, s.stderr, s.toUs = stop, make(chan struct{}), newStderrCapture(nil), toUs
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

	limit := s.Timeout
	if limit <= 0 {
		limit = DefaultMCPTimeout
	}
	init, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolcall", Version: "1"}, nil)
	type connected struct {
		cs  *mcp.ClientSession
		err error
	}
	done := make(chan connected, 1)
	go func() {
		cs, err := client.Connect(init, &mcp.IOTransport{Reader: toUs, Writer: fromUs}, nil)
		done <- connected{cs, err}
	}()
	var c connected
	select {
	case c = <-done:
	case <-init.Done():
		c.err = init.Err()
	case <-s.exited:
		c.err = errors.New("it exited")
	}
	if c.err != nil {
		s.kill()
		why := c.err.Error()
		if errors.Is(c.err, context.DeadlineExceeded) {
			why = fmt.Sprintf("it did not answer initialize within %v", limit)
		}
		return nil, fmt.Errorf("MCP server %s (%s) could not be started: %s%s", s.Name, strings.Join(s.Command, " "), why, s.stderrNote())
	}
	return c.cs, nil
}

// stderrNote is the end of the server's stderr, for an error message.
func (s *MCPServer) stderrNote() string {
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
// of it end.
func (s *MCPServer) kill() {
	s.toUs.Close()
	s.stop()
	<-s.exited
}

// Close ends the session, which closes the server's stdin; a server that
// does not exit then is stopped as a tool is (SIGTERM, then SIGKILL).
func (s *MCPServer) Close() {
	s.once.Do(func() { s.err = errors.New("closed") }) // never start now
	if s.session == nil {
		return
	}
	s.session.Close()
	select {
	case <-s.exited:
	case <-time.After(time.Second):
	}
	s.kill()
}

// Tools starts the server if need be and returns its tools, read as a
// sidecar in the MCP dialect is read (annotations give safe and the
// network tag), named Prefix + their name.
func (s *MCPServer) Tools() ([]*Tool, []string, error) {
	cs, err := s.connect()
	if err != nil {
		return nil, nil, err
	}
	limit := s.Timeout
	if limit <= 0 {
		limit = DefaultMCPTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var ts []*Tool
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
		t, w, err := ParseSidecar(file, def)
		warns = append(warns, w...)
		if err != nil {
			warns = append(warns, fmt.Sprintf("MCP server %s: tool %q is left out: %v", s.Name, mt.Name, err))
			continue
		}
		t.Name = s.Prefix + mt.Name
		if !ValidName(t.Name) {
			warns = append(warns, fmt.Sprintf("MCP server %s: tool %q is left out: its name is not 1-128 of A-Z a-z 0-9 _ . -", s.Name, t.Name))
			continue
		}
		t.Server, t.ServerTool, t.Command, t.File = s, mt.Name, "", s.File
		ts = append(ts, t)
	}
	return ts, warns, nil
}

// call runs one call of the server's tool name with the arguments in
// spec.Stdin, and gives the CallToolResult as a tool's stdout would be
// given: within MaxOutput, the whole saved to SaveTo.
func (s *MCPServer) call(ctx context.Context, name string, spec ProcessSpec) ProcessResult {
	start := time.Now()
	res := ProcessResult{Result: launch.Result{ExitCode: -1}}
	cs, err := s.connect()
	if err != nil {
		res.StartErr = err
		return res
	}
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(spec.Stdin)})
	res.Duration = time.Since(start)
	switch {
	case ctx.Err() != nil:
		res.Interrupted = true
		return res
	case cctx.Err() != nil:
		res.TimedOut = true
		return res
	case err != nil:
		select {
		case <-s.exited:
			res.StartErr = fmt.Errorf("its MCP server %s stopped: %v%s", s.Name, err, s.stderrNote())
		default:
			res.StartErr = fmt.Errorf("its MCP server %s refused the call: %v", s.Name, err)
		}
		return res
	}
	// Only what a tool's MCP-shaped stdout holds: a result of the newer
	// protocol carries _meta and resultType, which are not the tool's.
	out, err := json.Marshal(struct {
		Content           []mcp.Content `json:"content"`
		StructuredContent any           `json:"structuredContent,omitempty"`
		IsError           bool          `json:"isError,omitempty"`
	}{r.Content, r.StructuredContent, r.IsError})
	if err != nil {
		res.StartErr = fmt.Errorf("its MCP server %s sent a result that cannot be read: %v", s.Name, err)
		return res
	}
	capture := newOutputCapture(spec.MaxOutput, spec.SaveTo)
	capture.Write(out)
	capture.result(&res)
	res.ExitCode = 0
	return res
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
