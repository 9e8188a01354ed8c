package run

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// The View's live side (Live): the reply as it streams, a call as soon
// as it is read, and a timer on a tool that takes its time. What it
// shows of a turn early it does not show again when the turn's events
// come: the screen reads as the view of the finished turn would, each
// piece once, only sooner.
//
// Prose streams until the reply reaches what may be call syntax or a
// marker (any of < { [ or a backtick): from there on the turn's events
// show the rest, in order, parsed. A final_answer line, written as the
// prompt teaches it, streams its answer; reasoning between <think> tags
// shows when the turn ends, as without a terminal.

// viewLive is the View's state for its live side.
type viewLive struct {
	kind     string          // what streams now: event.TypeText, TypeReasoning, or "" (nothing)
	started  bool            // something of kind is on screen in this turn
	newlines int             // line ends read and not yet shown: they show once more follows
	lines    int             // line ends shown
	over     strings.Builder // reasoning past its first viewReasoning lines, not shown
	partial  []byte          // the start of a character cut by the piece's end
	stopped  bool            // the reply reached call syntax: the events show the rest
	ended    bool            // the turn's reply ended (its assistant event came)

	text      strings.Builder // the prose shown of the turn, as read
	reasoning bool            // reasoning was shown in the turn
	calls     map[string]string
	answer    string          // the final answer, when it streamed as prose
	probe     string          // from a brace on, while it may start a final_answer line
	jraw      string          // of the final_answer line's content, not yet decoded
	closed    bool            // the content's closing quote came
	final     strings.Builder // the final answer, as it streamed from its line

	timer *viewTimer // the tools running, while one is
}

// Delta shows a piece of the reply: prose as it comes, up to where it
// may turn into a call.
func (v *View) Delta(kind string, b []byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	l := &v.live
	if l.ended {
		v.newTurn()
	}
	if l.stopped || (kind != event.TypeText && kind != event.TypeReasoning) {
		return
	}
	inAnswer := l.probe != "" || l.kind == kindAnswer
	if inAnswer && kind != event.TypeText {
		return // the events show it, in its place
	}
	if kind != l.kind && !inAnswer {
		v.endStream()
		l.kind = kind
	}
	b = append(l.partial, b...)
	l.partial = nil
	if n := incompleteRune(b); n > 0 {
		l.partial = append([]byte(nil), b[len(b)-n:]...)
		b = b[:len(b)-n]
	}
	s := string(b)
	switch {
	case inAnswer:
		v.answerDelta(s)
		return
	case kind == event.TypeText:
		if i := strings.IndexAny(s, "<{[`"); i >= 0 {
			rest := s[i:]
			s, l.stopped = s[:i], true
			if rest[0] == '{' {
				// Maybe the answer, as a final_answer line: shown once
				// what came before it is.
				l.stopped, l.probe = false, " " // not empty: probing
				defer v.answerDelta(rest)
			}
		}
		l.text.WriteString(s)
	default:
		l.reasoning = true
	}
	v.stream(s)
}

// kindAnswer is the live view's kind of stream for the content of a
// final_answer line, shown as the answer is.
const kindAnswer = "answer"

// finalAnswerStart is how the protocol's final answer line starts, in
// the order the prompt teaches it; whitespace between its tokens aside.
const finalAnswerStart = `{"type":"final_answer","content":"`

// answerDelta takes the reply from a brace on: while it may be the start
// of a final_answer line it waits, and once it is, it shows the answer
// as its JSON string is read, behind the line that says it is the
// answer; anything else is left to the turn's events.
func (v *View) answerDelta(s string) {
	l := &v.live
	if l.kind != kindAnswer {
		l.probe += s
		rest, state := cutFinalAnswerStart(strings.TrimPrefix(l.probe, " "))
		switch state {
		case startUndecided:
			return
		case startNot:
			l.probe, l.stopped = "", true
			return
		}
		l.probe = ""
		v.endStream()
		v.clearStatus()
		n := v.steps + 1
		v.write(v.paint(styleDim, fmt.Sprintf("answer, after %d iteration%s:", n, plural(n))) + "\n")
		l.kind, s = kindAnswer, rest
	}
	if l.closed {
		return
	}
	l.jraw += s
	text, used, closed := jsonStringPrefix(l.jraw)
	l.jraw, l.closed = l.jraw[used:], closed
	l.final.WriteString(text)
	v.stream(text)
}

// How far the start of a final_answer line is read (cutFinalAnswerStart).
const (
	startUndecided = iota
	startNot
	startRead
)

// cutFinalAnswerStart reads s as the start of a final_answer line: the
// text after the opening quote of its content when it is one.
func cutFinalAnswerStart(s string) (rest string, state int) {
	j := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case c != finalAnswerStart[j]:
			return "", startNot
		default:
			if j++; j == len(finalAnswerStart) {
				return s[i+1:], startRead
			}
		}
	}
	return "", startUndecided
}

// jsonStringPrefix decodes the start of a JSON string's contents, up to
// an escape cut by the end of raw (which waits for the rest), or to its
// closing quote: the text, the bytes of raw used, and whether the
// string ended.
func jsonStringPrefix(raw string) (text string, used int, closed bool) {
	i := 0
scan:
	for i < len(raw) {
		switch raw[i] {
		case '"':
			closed = true
			break scan
		case '\\':
			if i+1 >= len(raw) {
				break scan
			}
			if raw[i+1] != 'u' {
				i += 2
				continue
			}
			if i+6 > len(raw) {
				break scan
			}
			if h, err := strconv.ParseUint(raw[i+2:i+6], 16, 16); err == nil && h >= 0xd800 && h < 0xdc00 {
				if i+12 > len(raw) {
					break scan // the low half of a surrogate pair may follow
				}
			}
			i += 6
		default:
			i++
		}
	}
	text = gjson.Parse(`"` + raw[:i] + `"`).Str
	if closed {
		return text, len(raw), true
	}
	return text, i, false
}

// stream writes s, of the kind streaming, as the view of a finished
// turn writes it: trimmed, each line after the first indented, reasoning
// dimmed and cut to its first lines (the rest kept, to count).
func (v *View) stream(s string) {
	l := &v.live
	if l.over.Len() > 0 {
		l.over.WriteString(s)
		return
	}
	for s != "" {
		line, rest, nl := strings.Cut(s, "\n")
		s = rest
		if !l.started {
			line = strings.TrimLeft(line, " \t\r")
		}
		if line != "" {
			v.clearStatus()
			if !l.started {
				l.started = true
				if l.kind == event.TypeReasoning {
					v.write(v.paint(styleDim, "thinking: "))
				}
			}
			if l.kind == event.TypeReasoning && l.lines+l.newlines >= viewReasoning {
				// Lines up to the last shown, blank ones too, are shown; the
				// rest is kept to count.
				shown := viewReasoning - 1 - l.lines
				v.write(strings.Repeat("\n  ", shown))
				l.over.WriteString(strings.Repeat("\n", l.newlines-shown-1) + line + "\n" + rest)
				l.newlines = 0
				return
			}
			indent := "\n  " // text: none of its lines passes for the view's own
			if l.kind == kindAnswer {
				indent = "\n" // the answer is shown as flushAnswer does
			}
			for ; l.newlines > 0; l.newlines-- {
				l.lines++
				v.write(indent)
			}
			line = termsafe.Text(line)
			switch l.kind {
			case event.TypeReasoning:
				line = v.paint(styleDim, line)
			case kindAnswer:
				line = v.paint(styleAnswer, line)
			}
			v.write(line)
		}
		if nl && l.started {
			l.newlines++
		}
	}
}

// endStream ends the line of what streamed, before anything else shows.
func (v *View) endStream() {
	l := &v.live
	if l.started {
		if more := strings.TrimRight(l.over.String(), " \t\r\n"); more != "" {
			n := strings.Count(more, "\n") + 1
			v.write("\n  " + v.paint(styleDim, fmt.Sprintf("… %d more line%s", n, plural(n))))
		}
		v.write("\n")
	}
	l.kind, l.started, l.newlines, l.lines, l.partial = "", false, 0, 0, nil
	l.over.Reset()
}

// newTurn forgets what the last turn showed early.
func (v *View) newTurn() {
	v.settle()
	v.endStream()
	answer := v.live.answer
	timer := v.live.timer
	v.live = viewLive{answer: answer, timer: timer}
}

// Call shows a call as soon as it is read, when all that came before it
// in the turn is on screen already; otherwise the turn's events show it,
// in its place.
func (v *View) Call(c tools.Call, said []byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	l := &v.live
	if l.ended {
		v.newTurn()
	}
	shown := l.calls != nil || !strings.HasPrefix(words(l.text.String()), words(string(said)))
	l.stopped = true
	if shown {
		return
	}
	v.endStream()
	v.call("", &c)
	l.calls = map[string]string{c.ID: v.callLine(&c)}
}

// words is s in words, for comparing text as read with text as parsed.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// seen says whether e, an event of the turn, was shown early, and takes
// its part out of what was: a text event whose content streamed, the
// call shown when it was read, reasoning that streamed. A text event of
// which only a start streamed comes back with the rest to show.
func (v *View) seen(e event.Event) (event.Event, bool) {
	l := &v.live
	switch e := e.(type) {
	case *event.Assistant:
		if l.stopped && l.started && l.kind == event.TypeText && l.newlines == 0 {
			// Cut mid-line: the turn's text may go on with it (cont).
			v.open = true
			l.kind, l.started, l.partial = "", false, nil
		}
		v.endStream()
		l.ended = true
		return e, true
	case *event.TextEvent:
		switch {
		case e.Type == event.TypeReasoning:
			return e, l.reasoning
		case e.Type == event.TypeFinalAnswer:
			a := strings.TrimSpace(string(e.Content))
			if a != "" && (a == strings.TrimSpace(l.answer) || a == strings.TrimSpace(l.final.String())) {
				return e, true // it streamed: the stop says no more of it
			}
			return e, false
		case e.Type != event.TypeText || e.Format != "":
			return e, false
		}
		shown := l.text.String()
		content := string(e.Content)
		trimmed := strings.TrimLeft(shown, " \t\r\n")
		c := strings.TrimLeft(content, " \t\r\n")
		switch {
		case c == "":
			return e, true
		case strings.HasPrefix(trimmed, c):
			l.text.Reset()
			l.text.WriteString(trimmed[len(c):])
			l.answer += content
			return e, true
		case trimmed != "" && strings.HasPrefix(c, trimmed):
			l.text.Reset()
			l.answer += content
			v.cont = v.open
			rest := *e
			rest.Content = []byte(c[len(trimmed):])
			return &rest, false
		}
		l.text.Reset()
		l.answer = ""
		return e, false
	case *tools.CallEvent:
		if line, ok := l.calls[e.ID]; ok && line == v.callLine(&e.Call) {
			delete(l.calls, e.ID)
			return e, true
		}
	case *tools.Observation:
		v.live.timer.end(e.ID)
	case *event.Step:
		l.answer = ""
		v.steps++
	}
	return e, false
}

// incompleteRune is how many bytes at the end of b start a character
// that the next piece completes.
func incompleteRune(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// write writes s, already safe and painted.
func (v *View) write(s string) {
	if v.err == nil && s != "" {
		_, v.err = io.WriteString(v.w, s)
	}
}

// viewTimer is the one line that says which tools run, and for how long
// ("  calculator … 3s"), rewritten each second while they run. It shows
// only once a tool has run a second: the quick ones leave no trace. Its
// goroutine is the view's own, stopped when the last tool ends, or at
// Flush.
type viewTimer struct {
	running []runningTool
	stop    chan struct{}
	done    chan struct{}
}

type runningTool struct {
	id, name string
	since    time.Time
}

// viewTick is how often the timer line is rewritten.
const viewTick = time.Second

// ToolStarted starts the timer of a tool.
func (v *View) ToolStarted(id, name string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	t := v.live.timer
	if t == nil {
		t = &viewTimer{stop: make(chan struct{}), done: make(chan struct{})}
		v.live.timer = t
		go v.ticking(t)
	}
	t.running = append(t.running, runningTool{id: id, name: name, since: time.Now()})
}

func (v *View) ticking(t *viewTimer) {
	defer close(t.done)
	tick := time.NewTicker(viewTick)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case now := <-tick.C:
			v.mu.Lock()
			if v.live.timer == t {
				v.showStatus(now)
			}
			v.mu.Unlock()
		}
	}
}

// end forgets the tool of call id; the timer stops with the last.
func (t *viewTimer) end(id string) {
	if t == nil {
		return
	}
	for i, r := range t.running {
		if r.id == id {
			t.running = append(t.running[:i], t.running[i+1:]...)
			break
		}
	}
}

// statusLine is what the timer line says at now: each tool running and
// how long it has run, in whole seconds; "" when none has run a second.
func (t *viewTimer) statusLine(now time.Time) string {
	var parts []string
	for _, r := range t.running {
		if d := now.Sub(r.since); d >= viewTick {
			parts = append(parts, fmt.Sprintf("%s … %ds", termsafe.Line(r.name), int(d/time.Second)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, ", ")
}

// showStatus rewrites the timer line. A line of streamed text that is
// open is left alone: the timer waits for it to end.
func (v *View) showStatus(now time.Time) {
	t := v.live.timer
	if t == nil || v.live.started || v.open {
		return
	}
	s := t.statusLine(now)
	if s == "" {
		return
	}
	pad := max(v.status-utf8.RuneCountInString(s), 0)
	v.write("\r" + v.paint(styleDim, s) + strings.Repeat(" ", pad))
	v.status = utf8.RuneCountInString(s)
}

// settle ends a line of streamed text left open for the turn's text to
// go on with, before anything else is written.
func (v *View) settle() {
	if v.open {
		v.open, v.cont = false, false
		v.write("\n")
	}
}

// clearStatus takes the timer line off the screen before anything else
// is written, and stops the timer once no tool runs.
func (v *View) clearStatus() {
	if v.status > 0 {
		v.write("\r" + strings.Repeat(" ", v.status) + "\r")
		v.status = 0
	}
	if t := v.live.timer; t != nil && len(t.running) == 0 {
		v.stopTimer()
	}
}

// stopTimer stops the timer's goroutine; it returns what to wait on for
// its end, which the caller does without the lock.
func (v *View) stopTimer() chan struct{} {
	t := v.live.timer
	if t == nil {
		return nil
	}
	v.live.timer = nil
	close(t.stop)
	return t.done
}
