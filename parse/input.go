package parse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// modelOutput receives what unpack finds, in order.
//
// As with io.Writer, p is only valid during the call and must not be
// modified: it may point into unpack's read buffer. args is the callee's to
// keep.
type modelOutput interface {
	Write(p []byte) (int, error)                   // model text to parse for calls (content deltas, message.content, raw text)
	WriteReasoning(p []byte) error                 // reasoning the server already separated out
	NativeCall(id, name string, args []byte) error // a call the server parsed; args is the raw JSON value: an object, or a JSON string holding the encoded object (OpenAI), possibly empty
}

const (
	// inputBufSize is the read buffer, and the size of each Write on the
	// raw path: large enough that a 1 GB input costs few calls.
	inputBufSize = 64 << 10
	// maxInputValue bounds one JSON value, SSE line or SSE event. A
	// response larger than this is not something a server sends; past it
	// a JSON object is taken for model text and an SSE line is an error.
	maxInputValue = 64 << 20
	// maxSSEReplay bounds what is kept of an input that starts like an
	// event stream until it proves to be one, so that it can be replayed
	// as model text if it is not.
	maxSSEReplay = 1 << 20
)

// unpack reads r, works out what kind of input it is, and feeds out.
//
// It recognises, by peeking at the start of r rather than reading it all:
//
//   - an event stream as curl -N prints it (a first line starting with
//     "data:", "event:", "id:", "retry:", "error:" or ":"), whose data
//     events are the chunks below;
//   - one JSON object, or several one after another (Ollama's NDJSON), that
//     is an OpenAI chat/completions or completions response or chunk, an
//     Ollama /api/chat or /api/generate response, an Anthropic messages
//     response or stream event, an OpenAI Responses API response or
//     event, a llama.cpp /completion response, or an error payload;
//   - anything else, including a JSON object of no known shape (a model may
//     answer with a bare JSON tool call), is model text and goes to
//     out.Write byte for byte, in chunks of at most 64 KiB, with memory
//     bounded whatever its size.
//
// Content, reasoning and calls reach out in the order they appear in the
// stream; within one non-streamed message, reasoning comes first, then
// content, then tool calls. A streamed call's arguments arrive in pieces:
// unpack joins them and passes the call once the stream has moved on (a
// later call starts, content resumes, a finish reason or [DONE] arrives,
// or the input ends), as a JSON string holding the joined text, the same
// shape OpenAI uses for a whole call. Only choice 0 of a response with
// several (n>1) is read: the others are alternatives to it, not more of
// it.
//
// An error payload from the server ends unpack with an error quoting the
// server's message; so does a data line that is not valid JSON, naming its
// line. Everything before either has already been passed to out.
func unpack(r io.Reader, out modelOutput) error {
	return newUnpacker(r, out).unpack()
}

func newUnpacker(r io.Reader, out modelOutput) *unpacker {
	return &unpacker{br: bufio.NewReaderSize(r, inputBufSize), out: out}
}

func (u *unpacker) unpack() error {
	err := u.run()
	if u.outErr == nil {
		// Calls still open when the input ended, or when it failed, are
		// as complete as they will get: pass them on rather than lose
		// them.
		if ferr := u.flushCalls(); err == nil {
			err = ferr
		}
	}
	return err
}

// ServerError is an error the model server sent instead of output: an
// error payload in a response or in an event stream.
type ServerError struct {
	Message string
	Code    string // "code 503", "type invalid_request_error", …, when the server gave one
}

func (e *ServerError) Error() string {
	s := "server error: " + strconv.Quote(e.Message)
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	return s
}

// pendingCall is a native tool call whose pieces are still arriving.
type pendingCall struct {
	index    int
	id, name string
	args     []byte // argument fragments joined
	whole    []byte // the whole arguments value, when the server sent one
}

type unpacker struct {
	br     *bufio.Reader
	out    modelOutput
	outErr error // the first error out returned: nothing more is sent after it
	// reply, set by DecodeReply, collects what the reply says besides its
	// content, and makes input that is no API reply an error rather than
	// model text.
	reply *Reply

	line     int    // lines read so far, for messages
	lineBase int    // lines of HTTP head skipped before the body
	evLine   int    // line of the value or event being handled
	long     []byte // a line longer than the read buffer

	calls []pendingCall // open calls, by ascending index
	done  int           // highest call index passed on since calls last restarted at 0

	// Event stream state.
	errorEvent bool   // the event being read is named "error"
	data       []byte // data lines of the event being read, joined by \n
	hasData    bool
	recording  bool   // still keeping rec, to replay it as text if this is not an event stream
	rec        []byte // every byte read while recording
	sawJSON    bool   // a data line held JSON
	recognised bool   // a data line held a chunk of a known shape
	firstJSON  int    // line of the first JSON data line
}

func (u *unpacker) run() error {
	u.done = -1
	return u.body()
}

// body detects what the input is, from the current position, and reads it.
func (u *unpacker) body() error {
	start, err := u.firstSignificant()
	if err != nil {
		return err
	}
	if start < 0 {
		return u.notReply(nil)
	}
	buf, _ := u.br.Peek(start + 1)
	switch buf[start] {
	case '{':
		return u.jsonInput(start)
	case 'H':
		// curl -i prints the response head before the body.
		n, err := u.httpHead(start)
		if err != nil {
			return err
		}
		if n > 0 {
			head, _ := u.br.Peek(n)
			u.lineBase += bytes.Count(head, []byte{'\n'})
			u.br.Discard(n)
			return u.body()
		}
	}
	sse, err := u.startsWith(start, sseFields)
	if err != nil {
		return err
	}
	if sse {
		return u.sse()
	}
	return u.notReply(nil)
}

// httpHead returns the length of the HTTP response head (status line,
// header lines, blank line) at offset p of the input, or 0 if there is
// none there. It consumes nothing.
func (u *unpacker) httpHead(p int) (int, error) {
	// Text that merely starts with H is not held up waiting for a line
	// end; only text starting "HTTP/" is.
	if ok, err := u.startsWith(p, []string{"HTTP/"}); !ok || err != nil {
		return 0, err
	}
	i := p
	for n := 0; ; n++ {
		buf, err := u.peekMore(i + 1)
		j := bytes.IndexByte(buf[i:], '\n')
		for j < 0 && err == nil {
			buf, err = u.peekMore(len(buf) + 1)
			j = bytes.IndexByte(buf[i:], '\n')
		}
		if j < 0 {
			if err == io.EOF || err == bufio.ErrBufferFull {
				return 0, nil
			}
			return 0, readError(err)
		}
		line := bytes.TrimSuffix(buf[i:i+j], []byte{'\r'})
		i += j + 1
		switch {
		case len(line) == 0 && n > 0:
			return i, nil
		case n == 0 && !isStatusLine(line), n > 0 && !isHeaderLine(line):
			return 0, nil
		}
	}
}

// isStatusLine matches "HTTP/1.1 200 OK" and "HTTP/2 200".
func isStatusLine(b []byte) bool {
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/"))
	if !ok {
		return false
	}
	v, code, _ := bytes.Cut(rest, []byte{' '})
	if len(v) == 0 || len(code) < 3 {
		return false
	}
	for _, c := range v {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	for _, c := range code[:3] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(code) == 3 || code[3] == ' '
}

// isHeaderLine matches "Name: value".
func isHeaderLine(b []byte) bool {
	name, _, ok := bytes.Cut(b, []byte{':'})
	if !ok || len(name) == 0 {
		return false
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// readError wraps a failure of the input itself.
func readError(err error) error {
	return fmt.Errorf("reading input: %w", err)
}

// peekMore returns at least n buffered bytes, or all there are before the
// input ends (err is then io.EOF) or fails, or the whole buffer if n is
// more than it holds (err is then bufio.ErrBufferFull). It reads only
// when fewer than n bytes are buffered, so that detection never waits for
// input it does not need.
func (u *unpacker) peekMore(n int) ([]byte, error) {
	_, err := u.br.Peek(n)
	buf, _ := u.br.Peek(u.br.Buffered())
	return buf, err
}

func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// firstSignificant returns the offset, in the buffered input, of the first
// byte that is not whitespace or a leading byte-order mark, without
// consuming anything; -1 if the input (or the whole first buffer) has none.
func (u *unpacker) firstSignificant() (int, error) {
	i := 0
	for {
		buf, err := u.peekMore(i + 1)
		if i == 0 && len(buf) > 0 && buf[0] == 0xEF {
			// Possibly a UTF-8 byte-order mark, as Windows tools write.
			buf, err = u.peekMore(3)
			if len(buf) >= 3 && buf[1] == 0xBB && buf[2] == 0xBF {
				i = 3
				continue
			}
		}
		for ; i < len(buf); i++ {
			if !isJSONSpace(buf[i]) {
				return i, nil
			}
		}
		if err != nil {
			if err == io.EOF || err == bufio.ErrBufferFull {
				return -1, nil
			}
			return -1, readError(err)
		}
	}
}

// sseFields are the line starts that make an input an event stream.
// "error:" is llama.cpp's: it sends a failure as an event of its own.
var sseFields = []string{"data:", "event:", "id:", "retry:", "error:", ":"}

// startsWith reports whether the input at offset p starts with one of
// prefixes. It reads only while what it has could still become one, so a
// slow writer of plain text is not kept waiting for.
func (u *unpacker) startsWith(p int, prefixes []string) (bool, error) {
	need := p + 1
	for {
		buf, err := u.peekMore(need)
		have := buf[p:]
		partial := false
		for _, f := range prefixes {
			if len(have) >= len(f) {
				if string(have[:len(f)]) == f {
					return true, nil
				}
			} else if f[:len(have)] == string(have) {
				partial = true
			}
		}
		if !partial {
			return false, nil
		}
		if err != nil {
			if err == io.EOF || err == bufio.ErrBufferFull {
				return false, nil
			}
			return false, readError(err)
		}
		need = len(buf) + 1
	}
}

// notReply handles input that proved to be no response or event stream
// after prefix was read: model text, or for DecodeReply an error.
func (u *unpacker) notReply(prefix []byte) error {
	if u.reply == nil {
		return u.raw(prefix)
	}
	// As much as an excerpt shows, however the input was read.
	rest, _ := u.br.Peek(excerptLen + 1)
	start := bytes.TrimLeft(append(prefix, rest...), " \t\r\n\xEF\xBB\xBF")
	if len(start) == 0 {
		return errors.New("it is empty")
	}
	return fmt.Errorf("it is neither a JSON response nor an event stream: %s", excerpt(start))
}

// raw passes prefix and then the rest of the input to out unchanged. It
// reads into one 64 KiB buffer, which bufio fills straight from the
// underlying reader once its own buffer is drained, so a huge input costs
// one copy and no per-byte work.
func (u *unpacker) raw(prefix []byte) error {
	if len(prefix) > 0 {
		if err := u.write(prefix); err != nil {
			return err
		}
	}
	buf := make([]byte, inputBufSize)
	for {
		n, err := u.br.Read(buf)
		if n > 0 {
			if werr := u.write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError(err)
		}
	}
}

// Output, with the first error from out kept so nothing follows it.

func (u *unpacker) write(p []byte) error {
	if u.outErr != nil {
		return u.outErr
	}
	if _, err := u.out.Write(p); err != nil {
		u.outErr = err
	}
	return u.outErr
}

// bytesOf views s as bytes without copying; out must not modify them
// (io.Writer's rule). Strings from handle may view the read buffer
// themselves: nothing made from them may outlive the call to out unless
// copied.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

func (u *unpacker) text(s string) error {
	if s == "" {
		return nil
	}
	if err := u.flushCalls(); err != nil {
		return err
	}
	return u.write(bytesOf(s))
}

func (u *unpacker) reasoning(s string) error {
	if s == "" {
		return nil
	}
	if err := u.flushCalls(); err != nil {
		return err
	}
	if u.outErr != nil {
		return u.outErr
	}
	u.outErr = u.out.WriteReasoning(bytesOf(s))
	return u.outErr
}

// nativeCall passes on a call the server sent whole. args is copied: the
// callee may keep it, and it may point into the read buffer.
func (u *unpacker) nativeCall(id, name, args string) error {
	if err := u.flushCalls(); err != nil {
		return err
	}
	return u.emit(id, name, []byte(args))
}

func (u *unpacker) emit(id, name string, args []byte) error {
	if u.outErr != nil {
		return u.outErr
	}
	if len(args) == 0 {
		args = nil
	}
	// id and name may view the read buffer, which changes under any copy
	// the callee keeps: they go out as strings of their own.
	u.outErr = u.out.NativeCall(strings.Clone(id), strings.Clone(name), args)
	return u.outErr
}

// Streamed calls.

func (u *unpacker) emitPending(p *pendingCall) error {
	if p.index > u.done {
		u.done = p.index
	}
	var args []byte
	switch {
	case len(p.args) > 0:
		// The joined fragments are the encoded arguments, as OpenAI's
		// whole-message "arguments" string holds them; passing them in
		// that shape keeps a streamed call and an unstreamed one alike,
		// even when the model's JSON is broken.
		args = jsonw.AppendBytes(nil, p.args)
	case len(p.whole) > 0:
		args = p.whole
	}
	return u.emit(p.id, p.name, args)
}

// flushCalls passes on every open call, in index order: the stream has
// moved on from them.
func (u *unpacker) flushCalls() error {
	for len(u.calls) > 0 {
		p := u.calls[0]
		u.calls = u.calls[1:]
		if err := u.emitPending(&p); err != nil {
			u.calls = nil
			return err
		}
	}
	u.calls = u.calls[:0]
	return nil
}

// flushBelow passes on the open calls with an index below idx.
func (u *unpacker) flushBelow(idx int) error {
	for len(u.calls) > 0 && u.calls[0].index < idx {
		p := u.calls[0]
		u.calls = u.calls[1:]
		if err := u.emitPending(&p); err != nil {
			return err
		}
	}
	return nil
}

// flushWholeBelow passes on, in index order, the open calls with an index
// below idx whose arguments are a whole JSON value, up to the first that
// is not: the pieces of that one may still be coming.
func (u *unpacker) flushWholeBelow(idx int) error {
	for len(u.calls) > 0 && u.calls[0].index < idx && u.calls[0].argsWhole() {
		p := u.calls[0]
		u.calls = u.calls[1:]
		if err := u.emitPending(&p); err != nil {
			return err
		}
	}
	return nil
}

// argsWhole reports whether the call's arguments so far are a complete
// JSON value: any further piece would make them invalid, so the call is
// done.
func (p *pendingCall) argsWhole() bool {
	if len(p.whole) > 0 {
		return true
	}
	a := bytes.TrimSpace(p.args)
	return len(a) > 0 && gjson.ValidBytes(a)
}

func (u *unpacker) findCall(idx int) *pendingCall {
	for i := range u.calls {
		if u.calls[i].index == idx {
			return &u.calls[i]
		}
	}
	return nil
}

// openCall adds a call at idx, keeping calls sorted by index.
func (u *unpacker) openCall(idx int, id, name string) *pendingCall {
	i := len(u.calls)
	for i > 0 && u.calls[i-1].index > idx {
		i--
	}
	u.calls = append(u.calls, pendingCall{})
	copy(u.calls[i+1:], u.calls[i:])
	u.calls[i] = pendingCall{index: idx, id: strings.Clone(id), name: strings.Clone(name)}
	return &u.calls[i]
}

// emitCall passes on the open call at idx, if any.
func (u *unpacker) emitCall(idx int) error {
	for i := range u.calls {
		if u.calls[i].index == idx {
			p := u.calls[i]
			u.calls = append(u.calls[:i], u.calls[i+1:]...)
			return u.emitPending(&p)
		}
	}
	return nil
}

// toolDelta takes one element of an OpenAI delta's tool_calls.
func (u *unpacker) toolDelta(tc gjson.Result) error {
	var index, id, fn gjson.Result
	tc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "index":
			index = v
		case "id":
			id = v
		case "function":
			fn = v
		}
		return true
	})
	var name, args string
	fn.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "name":
			name = v.String()
		case "arguments":
			if v.Type == gjson.String {
				args = v.Str
			} else if v.IsObject() {
				// Not OpenAI's shape, but some servers send the
				// object itself.
				args = v.Raw
			}
		}
		return true
	})
	return u.callDelta(index, id.String(), name, args)
}

// callDelta adds a piece of a streamed call: its index (if the server sent
// one), and on its first piece its id and name.
func (u *unpacker) callDelta(index gjson.Result, id, name, args string) error {
	var idx int
	if index.Exists() {
		idx = int(index.Int())
	} else {
		// Without an index, a piece with a new id starts a call and one
		// without continues the last.
		last := len(u.calls) - 1
		if last >= 0 && (id == "" || id == u.calls[last].id) {
			idx = u.calls[last].index
		} else {
			idx = u.done + 1
			if last >= 0 && u.calls[last].index >= idx {
				idx = u.calls[last].index + 1
			}
		}
	}
	p := u.findCall(idx)
	if p != nil && id != "" && p.id != "" && id != p.id {
		// The server reused the index for another call (some send every
		// call whole at index 0): the earlier one is complete.
		if err := u.flushCalls(); err != nil {
			return err
		}
		u.done = -1
		p = nil
	}
	if p == nil {
		if idx <= u.done {
			if id == "" && name == "" {
				if strings.TrimSpace(args) == "" {
					return nil // nothing more of a call passed on already
				}
				return fmt.Errorf("line %d: arguments for tool call %d arrived after the call was complete", u.evLine, idx)
			}
			// Indexes started again: a new batch of calls.
			if err := u.flushCalls(); err != nil {
				return err
			}
			u.done = -1
		}
		if index.Exists() {
			// Servers may interleave the deltas of parallel calls
			// (0, 1, 0, 1, …): a later call starting ends only the
			// earlier ones whose arguments are already whole.
			if err := u.flushWholeBelow(idx); err != nil {
				return err
			}
		} else if err := u.flushBelow(idx); err != nil {
			// Without an index a new id starts the next call, and ends
			// the one before.
			return err
		}
		p = u.openCall(idx, id, name)
	}
	if p.id == "" {
		p.id = strings.Clone(id)
	}
	if p.name == "" {
		p.name = strings.Clone(name)
	}
	p.args = append(p.args, args...)
	return nil
}

// JSON input: one object, or a sequence of them (NDJSON).

// more returns the buffered input, reading if there is none.
func (u *unpacker) more() ([]byte, error) {
	if u.br.Buffered() == 0 {
		if _, err := u.br.Peek(1); err != nil {
			return nil, err
		}
	}
	return u.br.Peek(u.br.Buffered())
}

// scanObject reads the JSON object whose '{' is the next input byte,
// appending its bytes to dst, and stops right after its closing brace. It
// tracks only strings and braces: validity is checked afterwards, on the
// whole value. complete is false if the input ended first or the value
// grew past limit.
func (u *unpacker) scanObject(dst []byte, limit int) ([]byte, bool, error) {
	depth := 0
	inStr, esc := false, false
	for {
		buf, err := u.more()
		if len(buf) == 0 {
			if err == io.EOF {
				return dst, false, nil
			}
			return dst, false, readError(err)
		}
		i, end := 0, -1
	scan:
		for i < len(buf) {
			if inStr {
				if esc {
					esc = false
					i++
					continue
				}
				j := bytes.IndexAny(buf[i:], `"\`)
				if j < 0 {
					i = len(buf)
					break
				}
				i += j
				if buf[i] == '\\' {
					esc = true
				} else {
					inStr = false
				}
				i++
				continue
			}
			j := bytes.IndexAny(buf[i:], `"{}`)
			if j < 0 {
				i = len(buf)
				break
			}
			i += j
			switch buf[i] {
			case '"':
				inStr = true
			case '{':
				depth++
			case '}':
				depth--
				if depth <= 0 {
					end = i + 1
					break scan
				}
			}
			i++
		}
		n := i
		if end >= 0 {
			n = end
		}
		dst = append(dst, buf[:n]...)
		u.line += bytes.Count(buf[:n], []byte{'\n'})
		u.br.Discard(n)
		if len(dst) > limit {
			return dst, false, nil
		}
		if end >= 0 {
			return dst, true, nil
		}
	}
}

// skipSpace consumes whitespace and returns the next byte without
// consuming it.
func (u *unpacker) skipSpace() (byte, error) {
	for {
		buf, err := u.more()
		if len(buf) == 0 {
			return 0, err
		}
		i := 0
		for i < len(buf) && isJSONSpace(buf[i]) {
			if buf[i] == '\n' {
				u.line++
			}
			i++
		}
		u.br.Discard(i)
		if i < len(buf) {
			return buf[i], nil
		}
	}
}

func (u *unpacker) jsonInput(start int) error {
	// Keep every byte read until the first object proves to be a
	// response: if it is not, it is model text and goes out unchanged.
	head, _ := u.br.Peek(start)
	consumed := append(make([]byte, 0, 4096), head...)
	u.br.Discard(start)
	u.line = u.lineBase + 1 + bytes.Count(consumed, []byte{'\n'})
	u.evLine = u.line
	v, complete, err := u.scanObject(consumed, maxInputValue)
	if err != nil {
		return err
	}
	if !complete || !gjson.ValidBytes(v[start:]) {
		return u.notReply(v)
	}
	ok, err := u.handle(v[start:])
	if !ok {
		return u.notReply(v)
	}
	if err != nil {
		return err
	}
	buf := v[:0]
	for {
		c, err := u.skipSpace()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError(err)
		}
		u.evLine = u.line
		if c != '{' {
			// As much as an excerpt shows, however the input was read.
			rest, _ := u.peekMore(excerptLen + 1)
			return fmt.Errorf("line %d: expected another JSON object after the response, found %s", u.evLine, excerpt(firstLine(rest)))
		}
		var complete bool
		buf, complete, err = u.scanObject(buf[:0], maxInputValue)
		if err != nil {
			return err
		}
		v := buf
		if !complete {
			if len(v) > maxInputValue {
				return fmt.Errorf("line %d: JSON value larger than %d MiB", u.evLine, maxInputValue>>20)
			}
			return fmt.Errorf("line %d: input ended inside a JSON value: %s", u.evLine, excerpt(v))
		}
		if !gjson.ValidBytes(v) {
			return fmt.Errorf("line %d: invalid JSON: %s", u.evLine, excerpt(v))
		}
		// An object of no known shape among responses carries nothing
		// this reads; like an unknown field, it is skipped.
		if _, err := u.handle(v); err != nil {
			return err
		}
	}
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return bytes.TrimSuffix(b[:i], []byte{'\r'})
	}
	return b
}

// excerptLen is how much of the input an error message quotes.
const excerptLen = 80

// excerpt quotes the start of b for an error message.
func excerpt(b []byte) string {
	if len(b) > excerptLen {
		return strconv.Quote(string(b[:excerptLen])) + "..."
	}
	return strconv.Quote(string(b))
}

// Event streams.

// readLine returns the next line, with its terminator, or io.EOF.
func (u *unpacker) readLine() ([]byte, error) {
	b, err := u.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		u.long = append(u.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(u.long) > maxInputValue {
				return nil, fmt.Errorf("line %d: longer than %d MiB", u.line+1, maxInputValue>>20)
			}
			b, err = u.br.ReadSlice('\n')
			u.long = append(u.long, b...)
		}
		b = u.long
	}
	if err != nil && err != io.EOF {
		return nil, readError(err)
	}
	if len(b) == 0 {
		return nil, io.EOF
	}
	u.line++
	return b, nil
}

var doneMarker = []byte("[DONE]")

func (u *unpacker) sse() error {
	u.recording = true
	u.line = u.lineBase
	for {
		raw, err := u.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if u.recording {
			u.rec = append(u.rec, raw...)
			if len(u.rec) > maxSSEReplay {
				u.recording, u.rec = false, nil
			}
		}
		line := raw
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if u.line == u.lineBase+1 {
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 {
			// A blank line ends an event.
			if err := u.endEvent(); err != nil {
				return err
			}
			continue
		}
		if line[0] == ':' {
			continue // a comment, such as a keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if err := u.dataLine(value); err != nil {
				if err == errNotSSE {
					return u.notReply(u.rec)
				}
				return err
			}
		case "event":
			u.errorEvent = string(value) == "error"
		case "id", "retry":
		case "error":
			v := bytes.TrimSpace(value)
			if u.recording && (len(v) == 0 || v[0] != '{') {
				return u.notReply(u.rec)
			}
			u.recording = false
			u.evLine = u.line
			return errorPayload(v)
		default:
			if u.recording {
				// A line that is no field of an event stream, before any
				// event: this is text that happens to start like one.
				return u.notReply(u.rec)
			}
			// The spec ignores unknown fields.
		}
	}
	if err := u.endEvent(); err != nil {
		if err == errNotSSE {
			return u.notReply(u.rec)
		}
		return err
	}
	switch {
	case u.recording:
		// Nothing in it was an event: replay it as text.
		return u.notReply(u.rec)
	case u.sawJSON && !u.recognised:
		return fmt.Errorf("line %d: no data in the event stream has a known shape (OpenAI, Ollama, Anthropic)", u.firstJSON)
	}
	return nil
}

// errNotSSE says the input only looked like an event stream.
var errNotSSE = errors.New("not an event stream")

// dataLine takes the value of a data: field. A value that is a whole JSON
// object on its own is handled at once rather than at the blank line that
// ends its event, so each chunk reaches out as soon as its line is read,
// and streams that leave out the blank lines still work. Otherwise values
// join, as the spec says, with \n, until they make one.
func (u *unpacker) dataLine(v []byte) error {
	if !u.hasData {
		t := bytes.TrimSpace(v)
		if bytes.Equal(t, doneMarker) {
			u.evLine = u.line
			return u.dispatch(t, false)
		}
		if len(t) > 0 && t[0] == '{' && gjson.ValidBytes(t) {
			u.evLine = u.line
			return u.dispatch(t, true)
		}
		if u.recording && len(t) > 0 && t[0] != '{' && t[0] != '[' {
			return errNotSSE
		}
		u.data = append(u.data[:0], v...)
		u.hasData = true
		u.evLine = u.line
		return nil
	}
	u.data = append(u.data, '\n')
	u.data = append(u.data, v...)
	if len(u.data) > maxInputValue {
		return fmt.Errorf("line %d: event data larger than %d MiB", u.evLine, maxInputValue>>20)
	}
	if gjson.ValidBytes(u.data) {
		u.hasData = false
		return u.dispatch(u.data, true)
	}
	return nil
}

// endEvent handles the data of an event at the blank line that ends it.
func (u *unpacker) endEvent() error {
	defer func() { u.errorEvent = false }()
	if !u.hasData {
		return nil
	}
	u.hasData = false
	t := bytes.TrimSpace(u.data)
	if len(t) == 0 {
		return nil
	}
	if u.recording && t[0] != '{' && t[0] != '[' {
		return errNotSSE
	}
	return u.dispatch(t, false)
}

// dispatch handles the data of one event; valid says it is known to be
// valid JSON already, so the hot path checks each chunk once.
func (u *unpacker) dispatch(data []byte, valid bool) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	if bytes.Equal(data, doneMarker) {
		u.recording, u.rec = false, nil
		u.recognised = true
		if err := u.flushCalls(); err != nil {
			return err
		}
		if u.reply != nil {
			// The reply is over, whether or not the server closes the
			// connection now.
			u.reply.Done = true
			return errReplyDone
		}
		return nil
	}
	u.recording, u.rec = false, nil
	if !valid && !gjson.ValidBytes(data) {
		return fmt.Errorf("line %d: data is not valid JSON: %s", u.evLine, excerpt(data))
	}
	if !u.sawJSON {
		u.sawJSON, u.firstJSON = true, u.evLine
	}
	if u.errorEvent {
		return errorPayload(data)
	}
	ok, err := u.handle(data)
	if ok {
		u.recognised = true
	}
	return err
}

// errorPayload makes the error for the value of an error event: OpenAI's
// {"error":{"message":...}}, llama.cpp's {"code":...,"message":...}, or
// anything else quoted whole.
func errorPayload(data []byte) error {
	root := gjson.ParseBytes(data)
	if e, ok := errorIn(root, true); ok {
		return e
	}
	if m := root.Get("message"); m.Type == gjson.String {
		return &ServerError{Message: m.Str, Code: errorCode(root)}
	}
	return &ServerError{Message: string(data)}
}

// errorIn finds an error payload in a response: {"error":{"message":...}}
// (OpenAI, vLLM, llama.cpp, Anthropic), {"error":"..."} alone (Ollama) or
// {"type":"error","message":...} (the Responses API). loose also takes an
// error object without a message.
func errorIn(root gjson.Result, loose bool) (*ServerError, bool) {
	var e, typ, msg gjson.Result
	n := 0
	root.ForEach(func(k, v gjson.Result) bool {
		n++
		switch k.Str {
		case "error":
			e = v
		case "type":
			typ = v
		case "message":
			msg = v
		}
		return true
	})
	return errorOf(root, e, typ, msg, n, loose)
}

// errorOf is errorIn on the fields already picked out of root, which has
// n keys.
func errorOf(root, e, typ, msg gjson.Result, n int, loose bool) (*ServerError, bool) {
	switch {
	case e.IsObject():
		if m := e.Get("message"); m.Type == gjson.String {
			return &ServerError{Message: m.Str, Code: errorCode(e)}, true
		}
		if loose {
			return &ServerError{Message: e.Raw}, true
		}
	case e.Type == gjson.String && e.Str != "":
		// Only as the whole object: a model's own JSON may well have an
		// "error" string among other fields.
		if n == 1 || loose {
			return &ServerError{Message: e.Str}, true
		}
	}
	if typ.Str == "error" && msg.Type == gjson.String {
		return &ServerError{Message: msg.Str, Code: errorCode(root)}, true
	}
	return nil, false
}

func errorCode(e gjson.Result) string {
	for _, k := range []string{"code", "type", "status"} {
		if v := e.Get(k); v.Exists() && v.Type != gjson.Null && v.String() != "" {
			return k + " " + v.String()
		}
	}
	return ""
}

// Responses.

// handle reads one JSON object. ok is false, and nothing is sent, if the
// object has no shape this knows.
func (u *unpacker) handle(b []byte) (ok bool, err error) {
	root := gjson.Parse(unsafe.String(unsafe.SliceData(b), len(b)))
	if !root.IsObject() {
		return false, nil
	}
	// One pass over the top-level keys rather than one lookup each: on a
	// stream of small chunks the passes are most of the cost.
	var choices, message, response, thinking, done, model, typ, content, object, output, stop, errV gjson.Result
	n := 0
	root.ForEach(func(k, v gjson.Result) bool {
		n++
		switch k.Str {
		case "error":
			errV = v
		case "choices":
			choices = v
		case "message":
			message = v
		case "response":
			response = v
		case "thinking":
			thinking = v
		case "done":
			done = v
		case "model":
			model = v
		case "type":
			typ = v
		case "content":
			content = v
		case "object":
			object = v
		case "output":
			output = v
		case "stop":
			stop = v
		}
		return true
	})
	if e, found := errorOf(root, errV, typ, message, n, false); found {
		return true, e
	}
	if u.reply != nil {
		// Looked up apart, so that toolcall parse, which has no use for
		// it, does not pay for it on every chunk.
		u.reply.note(model, root.Get("usage"))
	}
	switch {
	case choices.IsArray():
		return true, u.openAI(choices)
	case typ.Type == gjson.String && (typ.Str == "message" && content.IsArray() || anthropicEvents[typ.Str]):
		return true, u.anthropic(root, typ.Str, content)
	case typ.Type == gjson.String && len(typ.Str) > 9 && typ.Str[:9] == "response.":
		return true, u.responsesEvent(root, typ.Str)
	case object.Str == "response" && output.IsArray():
		return true, u.responsesOutput(output)
	case message.IsObject() && message.Get("role").Exists(),
		model.Exists() && done.Exists(),
		response.Exists() && done.Exists():
		// Ollama: /api/chat has a message, /api/generate a response.
		if message.IsObject() {
			if err := u.message(message); err != nil {
				return true, err
			}
		}
		if err := u.reasoning(thinking.String()); err != nil {
			return true, err
		}
		if err := u.text(response.String()); err != nil {
			return true, err
		}
		if done.Type == gjson.True {
			if u.reply != nil {
				u.reply.finish(root.Get("done_reason"))
				u.reply.Done = true
			}
			return true, u.flushCalls()
		}
		return true, nil
	case content.Type == gjson.String && (stop.Type == gjson.True || stop.Type == gjson.False):
		// llama.cpp's own /completion.
		return true, u.text(content.Str)
	}
	return false, nil
}

// openAI reads the choices of a chat/completions or completions response
// or chunk. Only choice 0 is read.
func (u *unpacker) openAI(choices gjson.Result) error {
	var delta, message, text, finish gjson.Result
	found := false
	choices.ForEach(func(_, c gjson.Result) bool {
		var index gjson.Result
		delta, message, text, finish = gjson.Result{}, gjson.Result{}, gjson.Result{}, gjson.Result{}
		c.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "index":
				index = v
			case "delta":
				delta = v
			case "message":
				message = v
			case "text":
				text = v
			case "finish_reason":
				finish = v
			}
			return true
		})
		found = c.IsObject() && (!index.Exists() || index.Int() == 0)
		return !found
	})
	if !found {
		return nil // a usage-only chunk, or another choice's
	}
	if delta.IsObject() {
		if err := u.delta(delta); err != nil {
			return err
		}
	}
	if message.IsObject() {
		if err := u.message(message); err != nil {
			return err
		}
	}
	if text.Type == gjson.String {
		if err := u.text(text.Str); err != nil {
			return err
		}
	}
	if finish.Exists() && finish.Type != gjson.Null {
		if u.reply != nil {
			// Before the calls go: a receiver that stops at one of
			// them then knows the model has finished.
			u.reply.finish(finish)
		}
		return u.flushCalls()
	}
	return nil
}

// messageFields are the fields of a message or delta that matter.
type messageFields struct {
	content, toolCalls, functionCall gjson.Result
	reasoning                        string
}

// fieldsOf picks out m's fields in one pass. Reasoning is
// reasoning_content for llama.cpp and DeepSeek, reasoning for newer vLLM
// and OpenRouter, thinking for Ollama; some vLLM versions send the first
// two with the same text, so only one counts, in that order.
func fieldsOf(m gjson.Result) messageFields {
	var f messageFields
	var rc, r, th string
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			f.content = v
		case "tool_calls":
			f.toolCalls = v
		case "function_call":
			f.functionCall = v
		case "reasoning_content":
			rc = v.Str
		case "reasoning":
			r = v.Str
		case "thinking":
			th = v.Str
		}
		return true
	})
	switch {
	case rc != "":
		f.reasoning = rc
	case r != "":
		f.reasoning = r
	default:
		f.reasoning = th
	}
	return f
}

func (u *unpacker) delta(d gjson.Result) error {
	f := fieldsOf(d)
	if err := u.reasoning(f.reasoning); err != nil {
		return err
	}
	if f.content.Type == gjson.String {
		if err := u.text(f.content.Str); err != nil {
			return err
		}
	}
	var err error
	f.toolCalls.ForEach(func(_, tc gjson.Result) bool {
		err = u.toolDelta(tc)
		return err == nil
	})
	if err != nil {
		return err
	}
	if fc := f.functionCall; fc.IsObject() {
		// The legacy single call: one call, in pieces, with no index.
		return u.callDelta(gjson.Result{Type: gjson.Number, Num: 0, Raw: "0"}, "", fc.Get("name").String(), fc.Get("arguments").String())
	}
	return nil
}

// message reads a whole message: OpenAI's choices[0].message or Ollama's
// message (streamed or not). Reasoning, then content, then calls.
func (u *unpacker) message(m gjson.Result) error {
	f := fieldsOf(m)
	if err := u.reasoning(f.reasoning); err != nil {
		return err
	}
	c := f.content
	switch {
	case c.Type == gjson.String:
		if err := u.text(c.Str); err != nil {
			return err
		}
	case c.IsArray():
		// Content as parts: [{"type":"text","text":...}].
		var err error
		c.ForEach(func(_, part gjson.Result) bool {
			if t := part.Get("type").Str; t == "text" || t == "output_text" {
				err = u.text(part.Get("text").String())
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	var err error
	f.toolCalls.ForEach(func(_, tc gjson.Result) bool {
		fn := tc.Get("function")
		err = u.nativeCall(tc.Get("id").String(), fn.Get("name").String(), fn.Get("arguments").Raw)
		return err == nil
	})
	if err != nil {
		return err
	}
	if fc := f.functionCall; fc.IsObject() {
		return u.nativeCall("", fc.Get("name").String(), fc.Get("arguments").Raw)
	}
	return nil
}

var anthropicEvents = map[string]bool{
	"message_start":       true,
	"content_block_start": true,
	"content_block_delta": true,
	"content_block_stop":  true,
	"message_delta":       true,
	"message_stop":        true,
	"ping":                true,
}

// anthropic reads an Anthropic messages response or stream event.
func (u *unpacker) anthropic(root gjson.Result, typ string, content gjson.Result) error {
	switch typ {
	case "message":
		return u.anthropicBlocks(content)
	case "message_start":
		return u.anthropicBlocks(root.Get("message.content"))
	case "content_block_start":
		idx := int(root.Get("index").Int())
		if err := u.flushBelow(idx); err != nil {
			return err
		}
		b := root.Get("content_block")
		switch b.Get("type").Str {
		case "text":
			return u.text(b.Get("text").String())
		case "thinking":
			return u.reasoning(b.Get("thinking").String())
		case "tool_use", "server_tool_use":
			p := u.openCall(idx, b.Get("id").String(), b.Get("name").String())
			if in := b.Get("input"); in.Exists() {
				p.whole = []byte(in.Raw)
			}
		}
	case "content_block_delta":
		idx := int(root.Get("index").Int())
		d := root.Get("delta")
		switch d.Get("type").Str {
		case "text_delta":
			return u.text(d.Get("text").String())
		case "thinking_delta":
			return u.reasoning(d.Get("thinking").String())
		case "input_json_delta":
			p := u.findCall(idx)
			if p == nil {
				p = u.openCall(idx, "", "")
			}
			p.args = append(p.args, d.Get("partial_json").String()...)
		}
	case "content_block_stop":
		return u.emitCall(int(root.Get("index").Int()))
	case "message_delta", "message_stop":
		if u.reply != nil {
			u.reply.finish(root.Get("delta.stop_reason"))
			u.reply.Done = u.reply.Done || typ == "message_stop"
		}
		return u.flushCalls()
	}
	return nil
}

func (u *unpacker) anthropicBlocks(content gjson.Result) error {
	var err error
	content.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			err = u.text(b.Get("text").String())
		case "thinking":
			err = u.reasoning(b.Get("thinking").String())
		case "tool_use", "server_tool_use":
			err = u.nativeCall(b.Get("id").String(), b.Get("name").String(), b.Get("input").Raw)
		}
		return err == nil
	})
	return err
}

// responsesOutput reads the output items of an OpenAI Responses API
// response.
func (u *unpacker) responsesOutput(output gjson.Result) error {
	var err error
	output.ForEach(func(_, item gjson.Result) bool {
		switch item.Get("type").Str {
		case "reasoning":
			// The full reasoning when the server gives it (vLLM,
			// llama.cpp, gpt-oss), else OpenAI's summary of it.
			parts := item.Get("content")
			if !parts.IsArray() || len(parts.Array()) == 0 {
				parts = item.Get("summary")
			}
			parts.ForEach(func(_, p gjson.Result) bool {
				err = u.reasoning(p.Get("text").String())
				return err == nil
			})
		case "message":
			item.Get("content").ForEach(func(_, p gjson.Result) bool {
				if p.Get("type").Str == "output_text" {
					err = u.text(p.Get("text").String())
				}
				return err == nil
			})
		case "function_call":
			err = u.nativeCall(item.Get("call_id").String(), item.Get("name").String(), item.Get("arguments").Raw)
		case "custom_tool_call":
			err = u.nativeCall(item.Get("call_id").String(), item.Get("name").String(), item.Get("input").Raw)
		}
		return err == nil
	})
	return err
}

// responsesEvent reads one Responses API stream event.
func (u *unpacker) responsesEvent(root gjson.Result, typ string) error {
	switch typ {
	case "response.output_text.delta":
		return u.text(root.Get("delta").String())
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		return u.reasoning(root.Get("delta").String())
	case "response.output_item.added":
		item := root.Get("item")
		if item.Get("type").Str == "function_call" {
			idx := int(root.Get("output_index").Int())
			if err := u.flushBelow(idx); err != nil {
				return err
			}
			u.openCall(idx, item.Get("call_id").String(), item.Get("name").String())
		}
	case "response.function_call_arguments.delta":
		idx := int(root.Get("output_index").Int())
		p := u.findCall(idx)
		if p == nil {
			p = u.openCall(idx, "", "")
		}
		p.args = append(p.args, root.Get("delta").String()...)
	case "response.output_item.done":
		item := root.Get("item")
		if item.Get("type").Str != "function_call" {
			return nil
		}
		idx := int(root.Get("output_index").Int())
		p := u.findCall(idx)
		if p == nil {
			p = u.openCall(idx, item.Get("call_id").String(), item.Get("name").String())
		}
		if a := item.Get("arguments"); a.Exists() {
			// The whole arguments string is authoritative over the
			// pieces that preceded it.
			p.args, p.whole = nil, []byte(a.Raw)
		}
		return u.emitCall(idx)
	case "response.failed":
		if e, ok := errorIn(root.Get("response"), true); ok {
			return e
		}
		return &ServerError{Message: "response failed"}
	case "response.completed", "response.incomplete":
		if u.reply != nil {
			u.reply.finish(gjson.Result{Type: gjson.String, Str: typ[len("response."):]})
			u.reply.Done = true
		}
		return u.flushCalls()
	}
	return nil
}
