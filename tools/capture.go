package tools

import (
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/toolcall/toolcall/tools/redact"
)

// DefaultMaxOutput is how much of a tool's stdout is kept in memory when
// processSpec.MaxOutput is not set (--max-output's default).
const DefaultMaxOutput = 16 << 10

// stderrKeep is how much of the end of a tool's stderr is kept: enough for
// an error message and a stack trace's last frames, small enough to show.
const stderrKeep = 4 << 10

// stderrSlack is how much stderr is kept before the stderrKeep bytes that
// are shown: a secret that starts before the shown window and ends inside
// it is seen whole there, and replaced, rather than showing its end (see
// redact.Redactor.Tail). A private key in PEM, the longest format, fits.
const stderrSlack = redact.Window

// outputCapture keeps the head and the tail of a stream of any length in
// bounded memory: the first headMax bytes, then the last tailMax bytes in a
// ring. Nothing in it grows with the stream, so a tool writing gigabytes
// costs us headMax+tailMax bytes.
type outputCapture struct {
	head    []byte
	headMax int
	tail    ring
	total   int64

	// save receives every byte as it arrives (the scratch file); after its
	// first error it is dropped and saveErr says why, so a full disk never
	// stalls the tool.
	save    io.Writer
	saveErr error

	// whole is the stream kept whole while it may be an MCP result (it
	// starts with '{') and is at most wholeMax bytes, so that a result
	// past the limit is cut in its text (cutMCPText); nil otherwise.
	whole    []byte
	wholeMax int
	maxOut   int
}

func newOutputCapture(maxOutput int, save io.Writer) *outputCapture {
	if maxOutput <= 0 {
		maxOutput = DefaultMaxOutput
	}
	headMax := maxOutput / 2
	return &outputCapture{headMax: headMax, tail: ring{max: maxOutput - headMax}, save: save, wholeMax: wholeMCPKeep, maxOut: maxOutput}
}

// Write never fails: the stream must be drained whatever happens to the copy.
func (c *outputCapture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if c.save != nil {
		if _, err := c.save.Write(p); err != nil {
			c.saveErr, c.save = err, nil
		}
	}
	c.keepWhole(p)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail.write(p)
	return n, nil
}

// keepWhole adds p to whole while the stream may still be an MCP result
// within wholeMax.
func (c *outputCapture) keepWhole(p []byte) {
	if c.wholeMax < 0 {
		return
	}
	if len(bytes.TrimSpace(c.whole)) == 0 {
		if rest := bytes.TrimLeft(p, " \t\r\n"); len(rest) > 0 && rest[0] != '{' {
			c.whole, c.wholeMax = nil, -1 // not a JSON object
			return
		}
	}
	if c.total > int64(c.wholeMax) {
		c.whole, c.wholeMax = nil, -1
		return
	}
	c.whole = append(c.whole, p...)
}

// truncated reports whether bytes were dropped between head and tail.
func (c *outputCapture) truncated() bool {
	return c.total > int64(len(c.head))+int64(c.tail.len())
}

// result fills r's stdout fields. When nothing was dropped Stdout is the
// stream byte for byte; otherwise it is the head, a marker saying how much
// was cut, and the tail, each cut moved to a character boundary so that the
// cut does not itself make invalid UTF-8.
func (c *outputCapture) result(r *processResult) {
	r.TotalBytes = c.total
	r.SaveErr = c.saveErr
	if !c.truncated() {
		r.Stdout = append(append(make([]byte, 0, len(c.head)+c.tail.len()), c.head...), c.tail.appendTo(nil)...)
		return
	}
	head := trimPartialRuneEnd(c.head)
	tail := trimPartialRuneStart(c.tail.appendTo(nil))
	r.Truncated = true
	r.Head, r.Tail = head, tail
	if c.whole != nil {
		// An MCP result is cut in its text and stays one, which
		// interpretOutput reads as such: the JSON cut as text never
		// parses, for the marker stands in it.
		if cut, wasCut, ok := cutMCPText(c.whole, c.maxOut); ok {
			r.Stdout, r.Truncated = cut, wasCut
			return
		}
	}
	r.Stdout = appendCutMarker(append([]byte(nil), head...), c.total, len(head), len(tail))
	r.Stdout = append(r.Stdout, tail...)
}

// appendCutMarker appends the line that stands where output was cut. It says
// how much was cut and how much there was, so that a model knows that the
// middle is missing and that asking for less (or for the ref) gets it.
func appendCutMarker(dst []byte, total int64, head, tail int) []byte {
	cut := total - int64(head) - int64(tail)
	dst = append(dst, "\n[... "...)
	dst = strconv.AppendInt(dst, cut, 10)
	dst = append(dst, " bytes cut here: the output was "...)
	dst = strconv.AppendInt(dst, total, 10)
	dst = append(dst, " bytes; only its first "...)
	dst = strconv.AppendInt(dst, int64(head), 10)
	dst = append(dst, " and last "...)
	dst = strconv.AppendInt(dst, int64(tail), 10)
	dst = append(dst, " are shown ...]\n"...)
	return dst
}

// ring keeps the last max bytes written to it.
type ring struct {
	buf  []byte // grows to max, then wraps
	max  int
	next int  // where the next byte goes once buf is full
	lost bool // bytes were overwritten: the kept ones start mid-stream
}

func (r *ring) write(p []byte) {
	if r.max <= 0 || len(p) == 0 {
		return
	}
	if len(p) >= r.max {
		// Only the last max bytes can survive this write.
		r.lost = r.lost || len(r.buf) > 0 || len(p) > r.max
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		r.next = 0
		return
	}
	if room := r.max - len(r.buf); room > 0 {
		k := min(room, len(p))
		r.buf = append(r.buf, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		r.lost = true
		k := copy(r.buf[r.next:], p)
		p = p[k:]
		r.next = (r.next + k) % r.max
	}
}

func (r *ring) len() int { return len(r.buf) }

// appendTo appends the kept bytes, oldest first.
func (r *ring) appendTo(dst []byte) []byte {
	if len(r.buf) < r.max {
		return append(dst, r.buf...)
	}
	dst = append(dst, r.buf[r.next:]...)
	return append(dst, r.buf[:r.next]...)
}

// stderrCapture keeps the last stderrKeep+stderrSlack bytes of stderr and copies every
// byte to tee (--stderr) while tee works.
type stderrCapture struct {
	tail ring
	tee  io.Writer
}

func newStderrCapture(tee io.Writer) *stderrCapture {
	return &stderrCapture{tail: ring{max: stderrKeep + stderrSlack}, tee: tee}
}

func (c *stderrCapture) Write(p []byte) (int, error) {
	if c.tee != nil {
		if _, err := c.tee.Write(p); err != nil {
			c.tee = nil // a debugging aid must not stop the tool
		}
	}
	c.tail.write(p)
	return len(p), nil
}

// bytes returns the kept tail, starting at a character boundary when the
// ring has wrapped.
func (c *stderrCapture) bytes() []byte {
	b := c.tail.appendTo(nil)
	if c.tail.lost {
		b = trimPartialRuneStart(b)
	}
	return b
}

// trimPartialRuneEnd drops a UTF-8 sequence cut short at the end of b.
func trimPartialRuneEnd(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b // ASCII: nothing is cut
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// trimPartialRuneStart drops the continuation bytes of a UTF-8 sequence
// whose start was cut off, at most utf8.UTFMax-1 of them.
func trimPartialRuneStart(b []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b[min(len(b), utf8.UTFMax-1):]
}
