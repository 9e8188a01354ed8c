package parse

// Streamed native tool calls: fragments keyed by index, assembled into
// whole calls and passed on in order.

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// pendingCall is a native tool call whose pieces are still arriving.
type pendingCall struct {
	index    int
	id, name string
	args     []byte // argument fragments joined
	whole    []byte // the whole arguments value, when the server sent one
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
	return u.addArgs(p, args)
}

// addArgs adds a piece of a streamed call's arguments. The pieces of the
// calls still open are held to u.maxArgs in all (maxBlock unless
// DecodeReplyMax says less): a server, or a model, that streams arguments
// without end must not take memory without end.
func (u *unpacker) addArgs(p *pendingCall, piece string) error {
	limit := u.maxArgs
	if limit <= 0 {
		limit = maxBlock
	}
	total := len(piece)
	for k := range u.calls {
		total += len(u.calls[k].args)
	}
	if total > limit {
		name := p.name
		// The call is cut: it is never passed on as if it were whole.
		for k := range u.calls {
			if &u.calls[k] == p {
				u.calls = append(u.calls[:k], u.calls[k+1:]...)
				break
			}
		}
		return fmt.Errorf("line %d: the arguments of the streamed tool calls passed %d bytes (call %q): %w", u.evLine, limit, name, ErrArgumentsTooLarge)
	}
	p.args = append(p.args, piece...)
	return nil
}
