package parse

// Server-sent events: the data lines of a streamed response, gathered
// into events and handed to the provider shapes.

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
)

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
