package mcpserve

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"sync"

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
func Stdio(r io.Reader, w io.Writer) mcp.Transport {
	p := &pending{ids: map[string]bool{}}
	p.idle = sync.NewCond(&p.mu)
	return &mcp.IOTransport{
		Reader: &drainReader{r: bufio.NewReaderSize(r, 64<<10), p: p},
		Writer: &answerWriter{w: w, p: p},
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
	buf  []byte // the rest of a line not yet read
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

// readLine reads one line, newline included; a line past maxLine is
// passed on as it is, for the SDK to refuse.
func (d *drainReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := d.r.ReadSlice('\n')
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull || len(line) > maxLine {
			return line, err
		}
	}
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
	w io.Writer
	p *pending
}

func (a *answerWriter) Write(b []byte) (int, error) {
	n, err := a.w.Write(b)
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
