package run

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// View renders a transcript for a person at a terminal: each call as
// name(arguments), each observation as its status and its first lines,
// reasoning dimmed, the system prompt as one line, and the answer last.
// It is a sink of the transcript's events as values (event.Sink: the loop
// hands it each event as it happens, LoopSink), and at the edge, for a
// recording or a batch's stream, an io.Writer of JSONL that decodes each
// line as it completes (event.DecodeEvent) and shows it the same way.
//
// Everything shown came from outside (the model, the tools, a recording)
// and goes through termsafe first: a terminal obeys control bytes. The
// JSONL stays the contract; this is a reading of it, and may change.
type View struct {
	mu      sync.Mutex // the live side's timer writes from its own goroutine
	w       io.Writer
	color   bool
	partial []byte // a line not yet complete
	answer  string // the final answer, held back to be shown last
	text    string // the last text event, held until the next event: prose taken as the answer comes twice, as text and as final_answer
	textReq string // the request of text in a batch, its prefix shown with it
	err     error  // the first write error, kept so that Close reports it
	status  int    // the width of the timer line on screen (viewlive.go), 0: none
	steps   int    // step events seen: the turn under way is the next
	open    bool   // a line of streamed text is open for the turn's text to go on with
	cont    bool   // the text held goes on with the open line
	live    viewLive
}

// NewView renders to w, with ANSI colour and weight when color is true
// (the caller decides: a terminal, and NO_COLOR unset).
func NewView(w io.Writer, color bool) *View { return &View{w: w, color: color} }

// How long a shown value or observation may be: enough to recognise it,
// short enough that one call or result stays a line or a few.
const (
	viewValueLen  = 60  // one argument's value
	viewLineLen   = 100 // one line of an observation
	viewObsLines  = 3   // lines of an observation
	viewReasoning = 6   // lines of reasoning
)

// Emit renders one event; one shown early (Live) is not shown again.
func (v *View) Emit(e event.Event) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	req, batch := "", false
	switch r := e.(type) {
	case *requestEvent: // of a batch
		e, req, batch = r.Event, r.request, true
	case *event.Summary:
		req, batch = r.Request, true
	}
	if !batch {
		var early bool
		if e, early = v.seen(e); early {
			return v.err
		}
	}
	v.show(e, req, batch)
	return v.err
}

// Flush shows what is held back: the last text, and the answer if the
// stream ended without a stop event (a recording cut short). It stops
// the tools' timer.
func (v *View) Flush() error {
	v.mu.Lock()
	done := v.flush()
	err := v.err
	v.mu.Unlock()
	if done != nil {
		<-done
	}
	return err
}

// flush is Flush under the lock; the caller waits on what it returns
// without it.
func (v *View) flush() chan struct{} {
	v.endStream()
	v.flushText()
	v.flushAnswer("")
	v.settle()
	v.clearStatus()
	return v.stopTimer()
}

// Write renders each complete line of p; a line cut in two waits for its
// end.
func (v *View) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := strings.IndexByte(string(p), '\n')
		if i < 0 {
			v.partial = append(v.partial, p...)
			break
		}
		line := p[:i]
		if len(v.partial) > 0 {
			line = append(v.partial, line...)
		}
		v.line(line)
		v.partial = v.partial[:0]
		p = p[i+1:]
	}
	return n, v.err
}

// Close renders a last line without its newline, and the answer if the
// stream ended without a stop event (a recording cut short).
func (v *View) Close() error {
	v.mu.Lock()
	if len(v.partial) > 0 {
		v.line(v.partial)
		v.partial = nil
	}
	v.mu.Unlock()
	return v.Flush()
}

// ANSI styles; see paint.
const (
	styleDim    = "2"
	styleBold   = "1"
	styleCall   = "36" // cyan
	styleOK     = "32" // green
	styleError  = "31" // red
	styleAnswer = "1"
)

// paint wraps s in an ANSI style when colour is on. s is already safe.
func (v *View) paint(style, s string) string {
	if !v.color || s == "" {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[0m"
}

func (v *View) printf(format string, args ...any) {
	v.clearStatus()
	v.settle()
	if v.err == nil {
		_, v.err = fmt.Fprintf(v.w, format, args...)
	}
}

// line renders one line of JSONL: the edge, where a recording or a
// batch's stream comes in as text. A batch's lines carry a "request".
func (v *View) line(b []byte) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return
	}
	e, err := event.DecodeEvent(b)
	if err != nil {
		if !event.Valid(b) {
			v.printf("%s\n", v.paint(styleError, "not an event: "+clip.Runes(termsafe.Line(string(b)), viewLineLen)))
			return
		}
		e = &event.OtherEvent{Line: b} // JSON, but no event: shown as it is
	}
	req, batch := event.Request(b)
	v.show(e, req, batch)
}

// show renders one event; batch says it is of request req in a batch.
func (v *View) show(e event.Event, req string, batch bool) {
	typ := e.EventType()
	if v.text != "" {
		if t, ok := e.(*event.TextEvent); ok && typ == event.TypeFinalAnswer && strings.TrimSpace(string(t.Content)) == v.text && req == v.textReq {
			v.text = "" // the answer says it, once
		}
		v.flushText()
	}
	prefix := ""
	if batch { // a batch: say whose event it is
		prefix = v.requestPrefix(req)
	}
	switch e := e.(type) {
	case *event.Message:
		if typ == event.TypeSystem {
			v.printf("%s%s\n", prefix, v.paint(styleDim, summariseSystem(e.Content, e.API)))
			break
		}
		v.printf("%s%s %s\n", prefix, v.paint(styleBold, "user:"), indentRest(termsafe.Text(strings.TrimSpace(e.Content))))
	case *event.Assistant:
		// Its text comes again, parsed, as the events that follow it.
	case *event.TextEvent:
		content := string(e.Content)
		switch typ {
		case event.TypeText:
			if e.Format != "" {
				// Not prose: Command R's directly_answer, the model's word
				// that it needs no tool.
				name := directlyAnswerTool(e.Content)
				v.printf("%s%s\n", prefix, v.paint(styleDim, termsafe.Line(name+": no tool needed ("+e.Format+")")))
				break
			}
			if s := strings.TrimSpace(content); s != "" {
				v.text, v.textReq = s, req
			}
		case event.TypeReasoning:
			s, more := headLines(termsafe.Text(strings.TrimSpace(content)), viewReasoning, 0)
			if more > 0 {
				s += fmt.Sprintf("\n… %d more line%s", more, plural(more))
			}
			v.printf("%s%s\n", prefix, v.paint(styleDim, indentRest("thinking: "+s)))
		default: // the final answer
			v.answer += strings.TrimSpace(content)
		}
	case *tools.CallEvent:
		v.call(prefix, &e.Call)
	case *tools.Observation:
		v.observation(prefix, e)
	case *event.ParseError:
		v.printf("%s%s %s\n", prefix, v.paint(styleError, "unreadable:"), termsafe.Line(e.Error))
	case *event.Stop:
		v.stop(prefix, e)
	case *event.Step:
		// After a turn's results, where its time went; the answer's turn
		// is not shown, so that the answer stays last and alone.
		if len(e.Calls) > 0 {
			v.printf("%s%s\n", prefix, v.paint(styleDim, summariseStep(e)))
		}
	case *event.Reflection:
		// The next action of each call that did not simply work: what the
		// model is told to do about it.
		for _, c := range e.Calls {
			if c.Status != "ok" {
				v.printf("%s    %s\n", prefix, v.paint(styleDim, "↳ "+clip.Runes(termsafe.Line(c.NextAction), viewLineLen)))
			}
		}
	case *event.Summary:
		calls := 0
		if e.Calls != nil {
			calls = *e.Calls
		}
		v.printf("%s%s\n", prefix, v.paint(styleDim, fmt.Sprintf("done: %s, %d iteration%s, %d call%s",
			termsafe.Line(e.Reason), e.Iterations, plural(e.Iterations), calls, plural(calls))))
	case *event.Batch:
		v.printf("%s\n", v.paint(styleBold, summariseCounts(e)))
	default:
		v.printf("%s%s\n", prefix, v.paint(styleDim, clip.Runes(termsafe.Line(string(e.AppendJSON(nil))), viewLineLen)))
	}
}

// summariseStep says a step event in one line: the turn, where its time
// went, and the tokens when the server counted them ("turn 1: model 812
// ms, tools 35 ms, 20+23 tokens"); phases under 1 ms are left out.
func summariseStep(e *event.Step) string {
	parts := []string{fmt.Sprintf("turn %d", e.Iteration)}
	for _, p := range [...]struct {
		ms   int64
		name string
	}{{e.ModelMS, "model"}, {e.ParseMS, "parse"}, {e.ValidateMS, "checks"}, {e.ExecMS, "tools"}} {
		if p.ms > 0 {
			parts = append(parts, fmt.Sprintf("%s %d ms", p.name, p.ms))
		}
	}
	if t := e.Tokens; t != nil {
		parts = append(parts, fmt.Sprintf("%d+%d tokens", t.Prompt, t.Completion))
	}
	if len(parts) == 1 {
		return parts[0] + ": under 1 ms"
	}
	return parts[0] + ": " + strings.Join(parts[1:], ", ")
}

// summariseCounts says a batch event's totals in one line, the counts
// that are not zero ("batch: 3 requests, 2 final_answer, 1 failed").
func summariseCounts(e *event.Batch) string {
	var parts []string
	for _, c := range e.Counts {
		if c.N != 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.N, termsafe.Line(c.Key)))
		}
	}
	return "batch: " + strings.Join(parts, ", ")
}

// call renders a tool_call as name(key: value, …), values shortened.
func (v *View) call(prefix string, c *tools.Call) {
	note := ""
	if c.Repaired {
		note = v.paint(styleDim, " (repaired)")
	}
	v.printf("%s%s%s\n", prefix, v.callLine(c), note)
}

// callLine is a call as the view shows it, without its notes.
func (v *View) callLine(c *tools.Call) string {
	var b strings.Builder
	b.WriteString(termsafe.Line(c.Name))
	b.WriteByte('(')
	first := true
	eachArgument(c.Arguments, func(k, raw string) {
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(termsafe.Line(k))
		b.WriteString(": ")
		b.WriteString(clip.Runes(termsafe.Line(raw), viewValueLen))
	})
	b.WriteByte(')')
	return v.paint(styleCall, "→ "+b.String())
}

// observation renders a result: its status, exit code and time on one
// line, then its first few lines, indented under the call.
func (v *View) observation(prefix string, o *tools.Observation) {
	status := o.Status
	if status == "" {
		status = "ok"
		if o.IsError {
			status = "error"
		}
	}
	head := []string{termsafe.Line(status)}
	if o.Error != nil {
		head[0] += " (" + termsafe.Line(string(o.Error.Kind)) + ")"
	}
	if o.ExitCode != nil {
		head = append(head, fmt.Sprintf("exit %d", *o.ExitCode))
	}
	if o.Signal != "" {
		head = append(head, termsafe.Line(o.Signal))
	}
	if o.DurationMS != nil {
		head = append(head, fmt.Sprintf("%d ms", *o.DurationMS))
	}
	if o.Truncated {
		head = append(head, "truncated")
	}
	style := styleOK
	if status != "ok" {
		style = styleError
	}
	v.printf("%s  %s\n", prefix, v.paint(style, "← "+strings.Join(head, ", ")))
	body := o.Content
	if body == "" && o.Error != nil {
		body = o.Error.Message
	}
	s, more := headLines(termsafe.Text(strings.TrimSpace(body)), viewObsLines, viewLineLen)
	if s == "" {
		return
	}
	for _, l := range strings.Split(s, "\n") {
		v.printf("%s    %s\n", prefix, l)
	}
	if more > 0 {
		v.printf("%s    %s\n", prefix, v.paint(styleDim, fmt.Sprintf("… %d more line%s", more, plural(more))))
	}
}

// stop ends the run: the answer when there is one, the reason otherwise.
func (v *View) stop(prefix string, e *event.Stop) {
	reason, n := e.Reason, e.Iterations
	if reason != StopFinalAnswer {
		msg := fmt.Sprintf("stopped: %s after %d iteration%s", termsafe.Line(reason), n, plural(n))
		if e.Error != "" {
			msg += ": " + termsafe.Line(e.Error)
		}
		v.printf("%s%s\n", prefix, v.paint(styleError, msg))
	}
	if v.answer != "" {
		v.printf("%s%s\n", prefix, v.paint(styleDim, fmt.Sprintf("answer, after %d iteration%s:", n, plural(n))))
	}
	v.flushAnswer(prefix)
}

// flushAnswer shows the answer held back, each line under the prefix of
// its request in a batch.
func (v *View) flushAnswer(prefix string) {
	if v.answer == "" {
		return
	}
	text := termsafe.Text(v.answer)
	if prefix != "" {
		text = strings.ReplaceAll(text, "\n", "\n"+prefix)
	}
	v.printf("%s%s\n", prefix, v.paint(styleAnswer, text))
	v.answer = ""
}

// summariseSystem says what a system prompt holds in one line: how many
// tools it offers, in which style, and its size. It reads the prompt as
// catalog writes it (a "## Available tools" section of "### name"
// headings, the call syntax in the instructions); a prompt written
// otherwise is summarised by its size alone.
func summariseSystem(s, api string) string {
	size := fmt.Sprintf("%.1f KB", float64(len(s))/1024)
	if len(s) < 1024 {
		size = fmt.Sprintf("%d B", len(s))
	}
	_, tools, ok := strings.Cut(s, "\n## Available tools\n")
	if !ok {
		if api == APINative {
			return "system prompt: tools sent natively, " + size
		}
		return "system prompt: " + size
	}
	n := 0
	for _, l := range strings.Split(tools, "\n") {
		if strings.HasPrefix(l, "### ") {
			n++
		}
	}
	style := "jsonl"
	switch {
	case strings.Contains(s, "<tool_call>"):
		style = "xml"
	case strings.Contains(s, "```json"):
		style = "markdown"
	}
	return fmt.Sprintf("system prompt: %d tool%s, %s style, %s", n, plural(n), style, size)
}

// headLines keeps the first n lines of s, each cut to width runes when
// width > 0, and says how many lines it left out.
func headLines(s string, n, width int) (string, int) {
	if s == "" {
		return "", 0
	}
	lines := strings.Split(s, "\n")
	more := 0
	if len(lines) > n {
		more = len(lines) - n
		lines = lines[:n]
	}
	if width > 0 {
		for i, l := range lines {
			lines[i] = clip.Runes(l, width)
		}
	}
	return strings.Join(lines, "\n"), more
}

// indentRest indents every line of s but the first, so that a multi-line
// text stays under its label and none of its lines can pass for the
// start of an event.
func indentRest(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// requestPrefix is the "[id] " a batch's line starts with.
func (v *View) requestPrefix(req string) string {
	return v.paint(styleDim, "["+clip.Runes(termsafe.Line(req), viewValueLen)+"] ")
}

// flushText shows the text held back, behind its request's id in a batch.
func (v *View) flushText() {
	if v.text == "" {
		return
	}
	prefix := ""
	if v.textReq != "" {
		prefix = v.requestPrefix(v.textReq)
	}
	if v.cont && v.open { // the rest of a line that streamed
		v.open, v.cont = false, false
		prefix = ""
	}
	v.printf("%s%s\n", prefix, indentRest(termsafe.Text(v.text)))
	v.text, v.textReq = "", ""
}
