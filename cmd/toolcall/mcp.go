package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/run/mcpserve"
	"github.com/toolcall/toolcall/tools"
)

const mcpLong = `Commands that speak the Model Context Protocol (MCP).`

const mcpServeLong = `Serve offers the tools of the --tools directories to any MCP client: it is
an MCP server on standard input and output (JSON-RPC, one message a line),
or over streamable HTTP with --listen. Standard output carries protocol
messages only; warnings and errors go to standard error, and with
--verbose a line for each call and each reload. Started at a terminal, it
says on standard error what it reads.

tools/list gives the tools catalog --format mcp shows with the same flags
(name, title, description, inputSchema, outputSchema, annotations), in
pages of --page-size tools with a nextCursor.

tools/call runs a call exactly as toolcall exec does, with exec's policy
and limit flags: the arguments are checked against the schema first, the
policy applies (a tool marked "safe": false runs only with --allow-unsafe
or --approve), and the tool runs under --timeout, --max-output, --scratch,
--env and --redact, between the hooks of --before-call and --after-call,
and again after a failure as --retries and its sidecar say (see toolcall
exec --help). The answer is a CallToolResult: the text the model
would read (or the tool's own MCP content), structuredContent when the
tool printed one, and isError for any failure, a refused or invalid call
included, with the words exec gives the model. A structured result that
does not match the tool's outputSchema is not sent: the answer is then
isError, saying what does not match. A call of a tool that is not there,
without a name, or with arguments that are not an object is answered
with the JSON-RPC error -32602 (invalid params). Nobody is asked at a
terminal: a call that needs consent is refused. When the client cancels a
call (notifications/cancelled), the tool's process group is killed.

The tools of MCP servers (mcp_server sidecars, --mcp) are offered too, so
toolcall can put its checks and limits between a client and a server.
What such a server says while a call runs, progress and log messages,
is passed on to the client that made the call (redacted), and a call the
client cancels is cancelled there.
When such a server says its tools changed, they are listed again and the
clients get notifications/tools/list_changed, whatever --poll says.

While serving, the directories are looked at every --poll; when a sidecar
or an executable is added, removed or changed, the tools are loaded again
and the clients get notifications/tools/list_changed.

--listen 127.0.0.1:PORT serves over streamable HTTP instead, at any path;
an address other machines could reach is refused unless --listen-any is
given. Every request must carry a bearer token (Authorization: Bearer
TOKEN), or it is answered 401: a new one is made at start and written,
mode 0600, to $XDG_RUNTIME_DIR/toolcall/mcp-serve-PORT.token (or under the
user's cache directory), whose name is said on standard error and which
is removed when the server stops; --token-file FILE uses the token in
FILE instead (a file of yours that only you may read). --no-auth serves without a token, so that every local
account can call the tools: it says so on standard error. A request from
a browser page (an Origin header) is answered 403 unless the page is on
this machine (localhost, 127.0.0.1, [::1]) or --allow-origin names it. A session
that sends no request for --session-timeout is closed, and one request's
headers and body must arrive within 30 seconds.

The server runs until it is stopped (SIGINT or SIGTERM), or, on
standard input, until the client closes it.`

const mcpServeExample = `  # the tools of ./tools, for an MCP client that starts servers itself
  toolcall mcp serve --tools ./tools

  # with a look from the MCP Inspector
  npx @modelcontextprotocol/inspector toolcall mcp serve --tools ./tools

  # over HTTP, on this machine only, for clients that have the token
  toolcall mcp serve --tools ./tools --listen 127.0.0.1:8765
  npx @modelcontextprotocol/inspector --cli http://127.0.0.1:8765/mcp --transport http \
    --header "Authorization: Bearer $(cat "$XDG_RUNTIME_DIR/toolcall/mcp-serve-8765.token")" --method tools/list`

func newMCPCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Speak the Model Context Protocol: serve tools to MCP clients",
		Long:  mcpLong,
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(cmd.ErrOrStderr(), cmd.UsageString())
			return &usageError{err: errors.New("missing command: name one of the commands above")}
		},
	}
	cmd.AddCommand(newMCPServeCmd(stdin, stdout, stderr))
	return cmd
}

type mcpServeOptions struct {
	exec       execOptions
	tags       []string
	pageSize   int
	poll       time.Duration
	listen     string
	listenAny  bool
	tokenFile  string
	noAuth     bool
	origins    []string
	idle       time.Duration
	verbose    bool
	cleanup    func()               // removes the token file written, if any
	isTerminal func(io.Reader) bool // tests replace it
}

func newMCPServeCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := mcpServeOptions{isTerminal: isTerminal}
	o.exec.maxOutput = tools.DefaultMaxOutput
	o.exec.maxSaved = tools.DefaultMaxScratch
	cmd := &cobra.Command{
		Use:     "serve",
		Short:   "Offer the tools to MCP clients; calls run as exec runs them",
		Long:    mcpServeLong,
		Example: mcpServeExample,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.verbose = isVerbose(cmd)
			return o.run(cmd.Context(), stdin, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	o.exec.tools.addDirs(fs)
	o.exec.tools.addPolicy(fs)
	fs.StringSliceVar(&o.tags, "tag", nil, "only tools with one of these `tags` (repeatable, comma-separated)")
	o.exec.addCallFlags(fs)
	o.exec.addLimitFlags(fs)
	fs.IntVar(&o.pageSize, "page-size", 0, "list at most `n` tools a page, with a nextCursor for the rest (0: all at once)")
	durationVar(fs, &o.poll, "poll", mcpserve.DefaultPoll, "look for changed tools this often (0: never)")
	fs.StringVar(&o.listen, "listen", "", "serve streamable HTTP on `host:port` (loopback only, unless --listen-any) instead of stdio")
	fs.BoolVar(&o.listenAny, "listen-any", false, "let --listen use an address other machines can reach")
	fs.StringVar(&o.tokenFile, "token-file", "", "with --listen: the bearer token clients must send is the one in `file` (yours, mode 0600), not a new one")
	fs.BoolVar(&o.noAuth, "no-auth", false, "with --listen: take requests without a bearer token (anyone who can reach the port may call the tools)")
	fs.StringSliceVar(&o.origins, "allow-origin", nil, "with --listen: take requests from browser pages of these `origins` (scheme://host:port; repeatable, comma-separated) beside those on loopback")
	durationVar(fs, &o.idle, "session-timeout", mcpserve.DefaultSessionTimeout, "with --listen: close a session that sent no request for this long (0: never)")
	o.exec.tools.registerCompletions(cmd, true)
	must(cmd.MarkFlagDirname("scratch"))
	must(cmd.MarkFlagDirname("workdir"))
	return cmd
}

func (o *mcpServeOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.pageSize < 0 {
		return usage(fmt.Errorf("--page-size %d: want 0 (all at once) or more", o.pageSize))
	}
	if o.poll < 0 {
		return usage(fmt.Errorf("--poll %v: want 0 (never) or more", o.poll))
	}
	lo, err := o.listenOptions(stderr)
	if err != nil {
		return err
	}
	xopts, c, err := o.exec.prepare(stderr)
	if err != nil {
		return err
	}
	// A tool's daemon (setsid, a double fork) dies when the calls end, as
	// under exec, rather than run on after the call.
	adoptOrphans()
	poll := o.poll
	if poll == 0 {
		poll = -1 // the package's "never"
	}
	min := slog.LevelWarn
	if o.verbose {
		min = slog.LevelInfo
	}
	log := slog.New(&lineHandler{w: stderr, min: min, mu: new(sync.Mutex)})
	s, err := mcpserve.New(mcpserve.Options{
		Catalog: c,
		Reload: func() (*catalog.Catalog, error) {
			return catalog.Load(o.exec.tools.dirs, o.exec.tools.loadOptions(stderr))
		},
		Dirs:     o.exec.tools.dirs,
		Policy:   xopts.Policy,
		Tags:     o.tags,
		Exec:     xopts,
		PageSize: o.pageSize,
		Poll:     poll,
		Version:  versionString(),
		Logger:   log,
	})
	if err != nil {
		c.Close()
		return err
	}
	defer s.Close()

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	caught, release := catchSignals(stop)
	defer release()
	if o.listen != "" {
		err = s.Listen(ctx, lo)
		if o.cleanup != nil {
			o.cleanup()
		}
	} else {
		if o.isTerminal(stdin) {
			// An MCP client starts the server itself, on pipes; a person
			// who ran it at a terminal should not be left waiting.
			fmt.Fprintln(stderr, "toolcall: mcp serve: reading MCP JSON-RPC messages from stdin, one a line, as an MCP client sends them when it starts this command (Ctrl-D ends); to serve over HTTP, add --listen 127.0.0.1:PORT")
		}
		err = s.Run(ctx, mcpserve.Stdio(stdin, stdout))
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		fmt.Fprintf(stderr, "toolcall: mcp serve: %v: stopped\n", sig)
		return &signalExit{code: signalCode(sig)}
	}
	return err
}

// listenOptions checks the --listen flags and makes the bearer token:
// the one in --token-file, or a new one, written to a private file when
// the port is known (and removed again by cleanup). The token itself is
// never printed: only where it is.
func (o *mcpServeOptions) listenOptions(stderr io.Writer) (mcpserve.ListenOptions, error) {
	lo := mcpserve.ListenOptions{Addr: o.listen, AnyHost: o.listenAny, NoAuth: o.noAuth, AllowOrigins: o.origins, SessionTimeout: o.idle}
	if o.idle == 0 {
		lo.SessionTimeout = -1 // the package's "never"
	}
	if o.idle < 0 {
		return lo, usage(fmt.Errorf("--session-timeout %v: want 0 (never) or more", o.idle))
	}
	if o.listen == "" {
		if o.tokenFile != "" || o.noAuth || len(o.origins) > 0 {
			return lo, usage(errors.New("--token-file, --no-auth and --allow-origin apply to --listen only: on stdio, only the process that started the server can write to it"))
		}
		return lo, nil
	}
	for _, origin := range o.origins {
		if err := mcpserve.CheckOrigin(origin); err != nil {
			return lo, usage(fmt.Errorf("--allow-origin %w", err))
		}
	}
	if err := mcpserve.CheckListen(o.listen, o.listenAny); err != nil {
		return lo, usage(fmt.Errorf("--listen %w", err))
	}
	listening := func(a net.Addr) {
		fmt.Fprintf(stderr, "toolcall: mcp serve: listening on http://%s/\n", a)
	}
	switch {
	case o.noAuth && o.tokenFile != "":
		return lo, usage(errors.New("--no-auth and --token-file: choose one"))
	case o.noAuth:
		lo.Ready = func(a net.Addr) error {
			listening(a)
			fmt.Fprintf(stderr, "toolcall: mcp serve: WARNING: --no-auth: no bearer token is asked for; every account and every process on this machine that can reach %s can call these tools with your rights\n", a)
			return nil
		}
	case o.tokenFile != "":
		tok, err := mcpserve.ReadToken(o.tokenFile)
		if err != nil {
			if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
				return lo, fileFlagError("--token-file", err)
			}
			return lo, usage(fmt.Errorf("--token-file %w", err))
		}
		lo.Token = tok
		lo.Ready = func(a net.Addr) error {
			listening(a)
			fmt.Fprintf(stderr, "toolcall: mcp serve: clients must send the bearer token in %s (Authorization: Bearer TOKEN)\n", o.tokenFile)
			return nil
		}
	default:
		tok, err := mcpserve.NewToken()
		if err != nil {
			return lo, err
		}
		dir, err := mcpserve.TokenDir()
		if err != nil {
			return lo, err
		}
		lo.Token = tok
		lo.Ready = func(a net.Addr) error {
			_, port, _ := net.SplitHostPort(a.String())
			path, err := mcpserve.WriteToken(dir, "mcp-serve-"+port+".token", tok)
			if err != nil {
				return fmt.Errorf("%w; or give a token with --token-file", err)
			}
			o.cleanup = func() { os.Remove(path) }
			listening(a)
			fmt.Fprintf(stderr, "toolcall: mcp serve: clients must send the bearer token in %s (Authorization: Bearer TOKEN); it is removed when the server stops\n", path)
			return nil
		}
	}
	return lo, nil
}

// lineHandler writes log records as toolcall's stderr lines:
// "toolcall: mcp serve: [warning: ]message key=value ...", one write each.
type lineHandler struct {
	w     io.Writer
	min   slog.Level
	attrs []slog.Attr
	mu    *sync.Mutex
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("toolcall: mcp serve: ")
	if r.Level >= slog.LevelError {
		b.WriteString("error: ")
	} else if r.Level >= slog.LevelWarn {
		b.WriteString("warning: ")
	}
	b.WriteString(termsafe.Line(strings.ReplaceAll(r.Message, "\n", "; "))) // one line a record
	write := func(a slog.Attr) bool {
		v := a.Value.Resolve().String()
		if v == "" || strings.ContainsAny(v, " \t\n\"=") || termsafe.Line(v) != v {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + a.Key + "=" + v)
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

// WithGroup is not needed by what logs here: groups are flattened.
func (h *lineHandler) WithGroup(string) slog.Handler { return h }
