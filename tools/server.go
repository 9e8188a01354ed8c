package tools

import (
	"context"
	"errors"
	"time"

	"github.com/toolcall/toolcall/internal/launch"
	"github.com/toolcall/toolcall/tools/redact"
)

// A Server runs the tools of an MCP server (Tool.Server):
// tools/mcpclient's Server, which lists them and reaches the server. A
// call to one is checked, refused, limited and redacted as any call is;
// the server only runs it, and its result is taken as a tool's
// MCP-shaped stdout.
type Server interface {
	// Call calls the server's tool named tool with args, a JSON object,
	// within timeout once the server is up, and returns the
	// CallToolResult as a JSON object. What the server says while the
	// call runs (progress, log messages), and passes on to a relay, is
	// redacted with r first. When the call was cut short, the error is
	// ctx's, or context.DeadlineExceeded for the timeout.
	Call(ctx context.Context, tool string, args []byte, timeout time.Duration, r *redact.Redactor) ([]byte, error)
	// String names the server in messages, with its command or its URL,
	// without credentials.
	String() string
	// Files are the sidecar that declared the server and the files its
	// command runs: their directories are protected as tools' are
	// (toolsDirsEnv).
	Files() []string
	// Secrets are what no output may show: the password of its URL, as
	// written and decoded.
	Secrets() []string
}

// callServer runs one call of t, a tool of an MCP server, with the
// arguments in spec.Stdin, and gives the result as a tool's stdout would
// be given: within MaxOutput, the whole saved to SaveTo.
func (x *executor) callServer(ctx context.Context, t *Tool, spec processSpec) processResult {
	start := time.Now()
	res := processResult{Result: launch.Result{ExitCode: -1}}
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	out, err := t.Server.Call(ctx, t.ServerTool, spec.Stdin, timeout, x.redactor)
	res.Duration = time.Since(start)
	switch {
	case ctx.Err() != nil:
		res.Interrupted = true
		return res
	case errors.Is(err, context.DeadlineExceeded):
		res.TimedOut = true
		return res
	case err != nil:
		res.StartErr = err
		return res
	}
	capture := newOutputCapture(spec.MaxOutput, spec.SaveTo)
	capture.wholeMax = max(capture.wholeMax, len(out)) // in memory already: cut in its text, whatever its size
	capture.Write(out)
	capture.result(&res)
	res.ExitCode = 0
	return res
}
