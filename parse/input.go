package parse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/unsafestr"
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

// rawReader is a modelOutput that reads model text into a buffer of its
// own, which saves a copy: readRaw reads r once and takes what it read as
// Write would. rerr is r's error; err, the output's.
type rawReader interface {
	readRaw(r io.Reader) (rerr, err error)
}

const (
	// inputBufSize is the read buffer, and the size of each Write on the
	// raw path to an out that is no rawReader: large enough that a 1 GB
	// input costs few calls.
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

	calls   []pendingCall // open calls, by ascending index
	done    int           // highest call index passed on since calls last restarted at 0
	maxArgs int           // bounds the arguments of the open calls, in all; 0 is maxBlock

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

// raw passes prefix and then the rest of the input to out unchanged. An
// out that is a rawReader reads the input into its own buffer; any other
// is written from one 64 KiB buffer. Either way bufio reads straight from
// the underlying reader once its own buffer is drained, so a huge input
// costs no per-byte work here.
func (u *unpacker) raw(prefix []byte) error {
	if len(prefix) > 0 {
		if err := u.write(prefix); err != nil {
			return err
		}
	}
	if rr, ok := u.out.(rawReader); ok {
		// What detection buffered goes first, then r reads straight
		// into out's buffer.
		if k := u.br.Buffered(); k > 0 {
			b, _ := u.br.Peek(k)
			if err := u.write(b); err != nil {
				return err
			}
			u.br.Discard(k)
		}
		for {
			rerr, err := rr.readRaw(u.br)
			if err != nil {
				u.outErr = err
				return err
			}
			if rerr == io.EOF {
				return nil
			}
			if rerr != nil {
				return readError(rerr)
			}
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

// text and reasoning pass s to out as bytes without copying: out must not
// modify them (io.Writer's rule). Strings from handle may view the read
// buffer themselves: nothing made from them may outlive the call to out
// unless copied.
func (u *unpacker) text(s string) error {
	if s == "" {
		return nil
	}
	if err := u.flushCalls(); err != nil {
		return err
	}
	return u.write(unsafestr.Bytes(s))
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
	u.outErr = u.out.WriteReasoning(unsafestr.Bytes(s))
	return u.outErr
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
