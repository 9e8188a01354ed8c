package tools

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/internal/unsafestr"
	"github.com/toolcall/toolcall/tools/redact"
)

// stderrHold bounds what a stderrCopy holds back waiting for a line's end
// (or a private key's END line): past it, it writes as Copy would.
const stderrHold = 64 << 10

// stderrCopy is a tool's stderr on its way to toolcall's own (exec
// --stderr): written a whole line at a time, as lines come, with secrets
// replaced. A private key's block is held back from its BEGIN line until
// its END line, so that it is replaced whole, not line by line. Close
// writes what is left. Each call gets its own stderrCopy; the lines of
// calls running at once are written whole, one Write each, to out, which
// they share under mu.
type stderrCopy struct {
	out io.Writer
	mu  *sync.Mutex
	r   *redact.Redactor
	buf []byte
	err error
}

// newStderrCopy returns a stderrCopy to out, which writes under mu when
// mu is not nil.
func newStderrCopy(out io.Writer, mu *sync.Mutex, r *redact.Redactor) *stderrCopy {
	return &stderrCopy{out: out, mu: mu, r: r}
}

// Write takes p and writes the lines it completes. It never fails: a
// copy that cannot be written is given up, since the tool must not stop
// for it.
func (c *stderrCopy) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	// Only a line end, or a line too long to hold, lets anything out:
	// looking for them in p alone keeps a tool that writes a byte at a
	// time linear.
	if bytes.IndexByte(p, '\n') >= 0 || len(c.buf) >= c.limit() {
		c.flush(false)
	}
	return len(p), nil
}

// overlap is how much of a long line is kept for the next round, as in
// redact.Redactor.Copy.
func (c *stderrCopy) overlap() int {
	return c.r.Overlap()
}

// limit is how much may be held back before a long line is written in
// parts.
func (c *stderrCopy) limit() int { return max(stderrHold, 2*c.overlap()) }

// Close writes what is held, a last line without its end included.
func (c *stderrCopy) Close() error {
	c.flush(true)
	return c.err
}

func (c *stderrCopy) flush(final bool) {
	s := unsafestr.String(c.buf)
	cut := len(s)
	if !final {
		cut = strings.LastIndexByte(s, '\n') + 1
		if b := strings.LastIndex(s[:cut], "-----BEGIN"); b >= 0 && !strings.Contains(s[b:cut], "-----END") {
			cut = strings.LastIndexByte(s[:b], '\n') + 1
		}
		if len(s)-cut >= c.limit() {
			cut = c.r.Cut(s)
		}
	}
	if cut == 0 {
		return
	}
	// A tool's stderr is outside text: its lines pass, its control
	// bytes are shown escaped (see termsafe).
	out := []byte(termsafe.Text(string(c.r.Bytes(c.buf[:cut]))))
	if c.err == nil {
		if c.mu != nil {
			c.mu.Lock()
		}
		_, c.err = c.out.Write(out)
		if c.mu != nil {
			c.mu.Unlock()
		}
	}
	c.buf = c.buf[:copy(c.buf, c.buf[cut:])]
}
