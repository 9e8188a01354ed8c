package run

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/unsafestr"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
	"github.com/toolcall/toolcall/tools/redact"
)

// Live is what a sink for a person may implement to hear the loop as it
// happens, before the turn's events: the loop emits those only once the
// turn is read (turnSink keeps them to decide when to stop), so without
// it a reply shows all at once when it ends. The View implements it; the
// JSONL sink does not, and the transcript is the same either way.
//
// Everything handed to a Live sink is redacted as the events are. The
// calls come from the loop's goroutine; ToolStarted from the executor's,
// one at a time.
type Live interface {
	// Delta is a piece of the model's reply as the backend handed it
	// over, kind event.TypeText or event.TypeReasoning, markers and call
	// syntax included: what of it is prose is the sink's to judge, and the
	// turn's events say it again after.
	Delta(kind string, text []byte)
	// Call is a call as soon as the parser read it, before it is
	// checked; said is the prose the parser read before it in the turn,
	// for the sink to tell whether it has shown all of that already.
	Call(c tools.Call, said []byte)
	// ToolStarted is a tool starting to run a call; the call's
	// observation event says it ended.
	ToolStarted(id, name string)
}

// liveTap hands the reply's pieces to a Live sink, redacted: a piece is
// cut after its last whitespace or character outside ASCII (text with no
// spaces, Chinese say, streams too) and the rest held until more comes,
// so that a credential (a run of ASCII) is redacted whole, and a held
// piece that ends with the start of a secret value waits for the next
// too (redact.Redactor.MayContinue). A --redact expression that spans words
// is caught in the transcript, but its first words may show as they
// stream.
type liveTap struct {
	to   Live
	r    *redact.Redactor
	kind string // of held
	held []byte
}

// delta takes a piece of kind; nil when the tap has no sink.
func (t *liveTap) delta(kind string, b []byte) {
	if t == nil || len(b) == 0 {
		return
	}
	if kind != t.kind {
		t.flush()
		t.kind = kind
	}
	t.held = append(t.held, b...)
	cut := lastWordEnd(t.held)
	for cut > 0 && t.r.MayContinue(unsafestr.String(t.held[:cut])) {
		cut = lastWordEnd(t.held[:cut-1])
	}
	if cut > 0 {
		t.to.Delta(kind, t.r.Bytes(t.held[:cut]))
		t.held = append(t.held[:0], t.held[cut:]...)
	}
}

// flush hands on what is held, at the end of the reply.
func (t *liveTap) flush() {
	if t == nil || len(t.held) == 0 {
		return
	}
	t.to.Delta(t.kind, t.r.Bytes(t.held))
	t.held = t.held[:0]
}

// call hands on a call as the parser read it, after the prose said.
func (t *liveTap) call(c *tools.Call, said []byte) {
	if t == nil {
		return
	}
	t.flush()
	if e, ok := redactEvent(t.r, &tools.CallEvent{Call: *c}).(*tools.CallEvent); ok {
		t.to.Call(e.Call, t.r.Bytes(said))
	}
}

// started hands on a tool starting.
func (t *liveTap) started(tool *tools.Tool, c *tools.Call) {
	if t == nil || c == nil {
		return
	}
	t.to.ToolStarted(t.r.String(c.ID), t.r.String(tool.Name))
}

// newLiveTap is the tap to sink's Live side, or nil when it has none.
func newLiveTap(sink event.Sink, r *redact.Redactor) *liveTap {
	l, ok := sink.(Live)
	if !ok {
		return nil
	}
	return &liveTap{to: l, r: r}
}

// lastWordEnd is the index just past the last whitespace or character
// outside ASCII of b, 0 when it has none.
func lastWordEnd(b []byte) int {
	i := bytes.LastIndexFunc(b, func(r rune) bool { return r >= utf8.RuneSelf && r != utf8.RuneError || unicode.IsSpace(r) })
	if i < 0 {
		return 0
	}
	_, n := utf8.DecodeRune(b[i:])
	return i + n
}
