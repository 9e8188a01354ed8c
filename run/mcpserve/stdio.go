package mcpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// maxLine bounds one message read from the client, as the SDK's own
// stdio transport does by default.
const maxLine = mcp.DefaultMaxLineLength

// Stdio is the transport over r and w, one JSON-RPC message a line, that
// answers every request before it reports the end of r: so a client
// may write its requests and close its end at once, as a pipeline does
// ("printf … | toolcall mcp serve"), and still get every answer. A
// request the client cancels needs no answer.
//
// A line longer than the SDK takes (16 MiB) is not passed on, which would
// end the session: it is read to its end without being kept, and its
// request answered with an error, so that the requests after it are
// served.
func Stdio(r io.Reader, w io.Writer) mcp.Transport {
	p := &pending{ids: map[string]bool{}}
	p.idle = sync.NewCond(&p.mu)
	aw := &answerWriter{w: w, p: p}
	return &mcp.IOTransport{
		Reader: &drainReader{r: bufio.NewReaderSize(r, 64<<10), p: p, w: aw},
		Writer: aw,
	}
}

// pending is the set of requests read and not yet answered, by id.
type pending struct {
	mu   sync.Mutex
	idle *sync.Cond
	ids  map[string]bool
}

func (p *pending) add(id string) {
	p.mu.Lock()
	p.ids[id] = true
	p.mu.Unlock()
}

func (p *pending) done(id string) {
	p.mu.Lock()
	delete(p.ids, id)
	if len(p.ids) == 0 {
		p.idle.Broadcast()
	}
	p.mu.Unlock()
}

func (p *pending) wait() {
	p.mu.Lock()
	for len(p.ids) > 0 {
		p.idle.Wait()
	}
	p.mu.Unlock()
}

// drainReader passes the client's lines on, noting each request; at the
// end of its input it waits until every request is answered.
type drainReader struct {
	r    *bufio.Reader
	p    *pending
	w    *answerWriter // answers the requests too long to pass on
	buf  []byte        // the rest of a line not yet read
	line []byte
	err  error
}

func (d *drainReader) Read(b []byte) (int, error) {
	for len(d.buf) == 0 {
		if d.err != nil {
			if d.err == io.EOF {
				d.p.wait()
			}
			return 0, d.err
		}
		d.line, d.err = d.readLine()
		d.note(d.line)
		d.buf = d.line
	}
	n := copy(b, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}

// readLine reads one line, newline included. A line past maxLine is read
// to its end in pieces that are not kept, and answered here; the line
// after it is read in its place.
func (d *drainReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine {
			return d.skipLine(line, chunk, err)
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// skipLine reads the rest of a line too long to take, looking in it for
// the request's id as it goes (head and chunk are its start), answers the
// request with an error, and reads the next line.
func (d *drainReader) skipLine(head, chunk []byte, err error) ([]byte, error) {
	var sc topLevel
	sc.scan(head)
	sc.scan(chunk)
	n := int64(len(head) + len(chunk))
	for err == bufio.ErrBufferFull {
		chunk, err = d.r.ReadSlice('\n')
		sc.scan(chunk)
		n += int64(len(chunk))
	}
	if sc.hasMethod && sc.id == nil {
		return d.readLineAfter(err) // a notification: nobody waits for an answer
	}
	id := sc.id
	if id == nil {
		id = []byte("null") // as JSON-RPC answers a request whose id cannot be read
	}
	msg := fmt.Sprintf("a message of %d bytes is over the %d bytes (16 MiB) a line may hold, and was not read: send less in one request", n, maxLine)
	reply, _ := json.Marshal(map[string]any{"code": jsonrpc.CodeInvalidRequest, "message": msg})
	line := append(append(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"error":`...), reply...), "}\n"...)
	if _, werr := d.w.Write(line); werr != nil {
		return nil, werr
	}
	return d.readLineAfter(err)
}

// readLineAfter reads the line after one skipped, unless the input ended
// with it.
func (d *drainReader) readLineAfter(err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return d.readLine()
}

// topLevel finds, in a JSON object read piece by piece and never kept
// whole, the value of its "id" member and whether it has a "method".
type topLevel struct {
	depth     int
	inString  bool
	escaped   bool
	key       []byte // the string being read, when it may be a key of the top object (at most maxKey bytes)
	keyLong   bool
	lastKey   string // the last key of the top object, until its value ends
	inValue   bool   // after the colon of a key of the top object
	value     []byte // the "id" value as read so far
	id        []byte
	hasMethod bool
}

// maxKey and maxID bound what topLevel keeps: the keys it looks for are
// short, and an id longer than maxID is taken as none.
const (
	maxKey = 16
	maxID  = 256
)

func (t *topLevel) scan(b []byte) {
	for _, c := range b {
		if !t.inString && t.depth == 1 && (c == ',' || c == '}') {
			t.endValue()
		}
		if t.inValue && t.lastKey == "id" && len(t.value) <= maxID {
			t.value = append(t.value, c)
		}
		if t.inString {
			t.scanString(c)
			continue
		}
		switch c {
		case '"':
			t.inString, t.key, t.keyLong = true, t.key[:0], false
		case '{', '[':
			t.depth++
		case '}', ']':
			t.depth--
		case ':':
			t.inValue = t.inValue || t.depth == 1
		}
	}
}

// scanString takes one byte inside a string, keeping what may be a key of
// the top object.
func (t *topLevel) scanString(c byte) {
	isKey := t.depth == 1 && !t.inValue
	switch {
	case t.escaped:
		t.escaped = false
	case c == '\\':
		t.escaped = true
	case c == '"':
		t.inString = false
		if isKey && !t.keyLong {
			t.lastKey = string(t.key)
			t.hasMethod = t.hasMethod || t.lastKey == "method"
		}
		return
	}
	if isKey {
		if len(t.key) < maxKey {
			t.key = append(t.key, c)
		} else {
			t.keyLong = true
		}
	}
}

// endValue closes a member of the top object: an "id" member's value is
// kept when it is a JSON-RPC id (a string, a number, or null).
func (t *topLevel) endValue() {
	if t.inValue && t.lastKey == "id" {
		v := bytes.TrimSpace(t.value)
		if len(v) > 0 && len(v) <= maxID && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Valid(v) {
			t.id = v
		}
	}
	t.inValue, t.lastKey, t.value = false, "", t.value[:0]
}

// note records a request (it has a method and an id) and forgets one the
// client cancels.
func (d *drainReader) note(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 || len(line) > maxLine {
		return
	}
	msg := gjson.ParseBytes(line)
	method := msg.Get("method")
	if !method.Exists() {
		return
	}
	if id := msg.Get("id"); id.Exists() {
		d.p.add(idKey(id))
		return
	}
	if method.Str == "notifications/cancelled" {
		if id := msg.Get("params.requestId"); id.Exists() {
			d.p.done(idKey(id))
		}
	}
}

// answerWriter writes the server's messages, crossing off each request
// answered.
type answerWriter struct {
	mu sync.Mutex // the SDK's writes, and the answers to lines too long for it
	w  io.Writer
	p  *pending
}

func (a *answerWriter) Write(b []byte) (int, error) {
	a.mu.Lock()
	n, err := a.w.Write(b)
	a.mu.Unlock()
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		msg := gjson.ParseBytes(line)
		if id := msg.Get("id"); id.Exists() && !msg.Get("method").Exists() {
			a.p.done(idKey(id))
		}
	}
	return n, err
}

func (a *answerWriter) Close() error { return nil }

// idKey is a request id as a map key: 7, 7.0 and "7" apart, 7 and 7.0 not.
func idKey(id gjson.Result) string {
	if id.Type == gjson.Number {
		return strconv.FormatFloat(id.Num, 'g', -1, 64)
	}
	return id.Type.String() + ":" + id.Str
}

func (d *drainReader) Close() error { return nil }
