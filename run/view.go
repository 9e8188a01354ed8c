package run

import (
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/termsafe"
)

// View renders a transcript for a person at a terminal: each call as
// name(arguments), each observation as its status and its first lines,
// reasoning dimmed, the system prompt as one line, and the answer last.
// It is fed the transcript's JSONL as bytes (it is an io.Writer, so it
// takes the place of the transcript's writer), and renders each line as
// it completes, so a live run shows each event as it happens.
//
// Everything shown came from outside (the model, the tools, a recording)
// and goes through termsafe first: a terminal obeys control bytes. The
// JSONL stays the contract; this is a reading of it, and may change.
type View struct {
	w       io.Writer
	color   bool
	partial []byte // a line not yet complete
	answer  string // the final answer, held back to be shown last
	text    string // the last text event, held until the next event: prose taken as the answer comes twice, as text and as final_answer
	textReq string // the request of text in a batch, its prefix shown with it
	err     error  // the first write error, kept so that Close reports it
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

// Write renders each complete line of p; a line cut in two waits for its
// end.
func (v *View) Write(p []byte) (int, error) {
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
	if len(v.partial) > 0 {
		v.line(v.partial)
		v.partial = nil
	}
	v.flushText()
	v.flushAnswer("")
	return v.err
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
	if v.err == nil {
		_, v.err = fmt.Fprintf(v.w, format, args...)
	}
}

// line renders one event.
func (v *View) line(b []byte) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return
	}
	if !gjson.ValidBytes(b) {
		v.printf("%s\n", v.paint(styleError, "not an event: "+clip.Runes(termsafe.Line(string(b)), viewLineLen)))
		return
	}
	ev := gjson.ParseBytes(b)
	typ := ev.Get("type").String()
	content := ev.Get("content").String()
	req := ev.Get("request")
	if v.text != "" {
		if typ == "final_answer" && strings.TrimSpace(content) == v.text && req.String() == v.textReq {
			v.text = "" // the answer says it, once
		}
		v.flushText()
	}
	prefix := ""
	if req.Exists() { // a batch: say whose event it is
		prefix = v.requestPrefix(req.String())
	}
	switch typ {
	case "system":
		v.printf("%s%s\n", prefix, v.paint(styleDim, summariseSystem(content, ev.Get("api").String())))
	case "user":
		v.printf("%s%s %s\n", prefix, v.paint(styleBold, "user:"), indentRest(termsafe.Text(strings.TrimSpace(content))))
	case "assistant":
		// Its text comes again, parsed, as the events that follow it.
	case "text":
		if f := ev.Get("format"); f.Exists() {
			// Not prose: Command R's directly_answer, the model's word
			// that it needs no tool.
			name := gjson.Get(content, "tool_name").String()
			v.printf("%s%s\n", prefix, v.paint(styleDim, termsafe.Line(name+": no tool needed ("+f.String()+")")))
			break
		}
		if s := strings.TrimSpace(content); s != "" {
			v.text, v.textReq = s, req.String()
		}
	case "reasoning":
		s, more := headLines(termsafe.Text(strings.TrimSpace(content)), viewReasoning, 0)
		if more > 0 {
			s += fmt.Sprintf("\n… %d more line%s", more, plural(more))
		}
		v.printf("%s%s\n", prefix, v.paint(styleDim, indentRest("thinking: "+s)))
	case "tool_call":
		v.call(prefix, ev)
	case "tool_observation":
		v.observation(prefix, ev)
	case "parse_error":
		v.printf("%s%s %s\n", prefix, v.paint(styleError, "unreadable:"), termsafe.Line(ev.Get("error").String()))
	case "final_answer":
		v.answer += strings.TrimSpace(content)
	case "stop":
		v.stop(prefix, ev)
	case "step":
		// After a turn's results, where its time went; the answer's turn
		// is not shown, so that the answer stays last and alone.
		if ev.Get("calls.#").Int() > 0 {
			v.printf("%s%s\n", prefix, v.paint(styleDim, summariseStep(ev)))
		}
	case "reflection":
		// The next action of each call that did not simply work: what the
		// model is told to do about it.
		ev.Get("calls").ForEach(func(_, c gjson.Result) bool {
			if c.Get("status").String() != "ok" {
				v.printf("%s    %s\n", prefix, v.paint(styleDim, "↳ "+clip.Runes(termsafe.Line(c.Get("next_action").String()), viewLineLen)))
			}
			return true
		})
	case "summary":
		v.printf("%s%s\n", prefix, v.paint(styleDim, fmt.Sprintf("done: %s, %d iteration%s, %d call%s",
			termsafe.Line(ev.Get("reason").String()), ev.Get("iterations").Int(), plural(int(ev.Get("iterations").Int())),
			ev.Get("calls").Int(), plural(int(ev.Get("calls").Int())))))
	case TypeBatch:
		v.printf("%s\n", v.paint(styleBold, summariseCounts(ev)))
	default:
		v.printf("%s%s\n", prefix, v.paint(styleDim, clip.Runes(termsafe.Line(string(b)), viewLineLen)))
	}
}

// summariseStep says a step event in one line: the turn, where its time
// went, and the tokens when the server counted them ("turn 1: model 812
// ms, tools 35 ms, 20+23 tokens"); phases under 1 ms are left out.
func summariseStep(ev gjson.Result) string {
	parts := []string{fmt.Sprintf("turn %d", ev.Get("iteration").Int())}
	for _, p := range [...][2]string{{"model_ms", "model"}, {"parse_ms", "parse"}, {"validate_ms", "checks"}, {"exec_ms", "tools"}} {
		if ms := ev.Get(p[0]).Int(); ms > 0 {
			parts = append(parts, fmt.Sprintf("%s %d ms", p[1], ms))
		}
	}
	if t := ev.Get("tokens"); t.IsObject() {
		parts = append(parts, fmt.Sprintf("%d+%d tokens", t.Get("prompt").Int(), t.Get("completion").Int()))
	}
	if len(parts) == 1 {
		return parts[0] + ": under 1 ms"
	}
	return parts[0] + ": " + strings.Join(parts[1:], ", ")
}

// summariseCounts says a batch event's totals in one line, the counts
// that are not zero ("batch: 3 requests, 2 final_answer, 1 failed").
func summariseCounts(ev gjson.Result) string {
	var parts []string
	ev.ForEach(func(k, val gjson.Result) bool {
		if k.String() != "type" && k.String() != "duration_ms" && val.Type == gjson.Number && val.Int() != 0 {
			parts = append(parts, fmt.Sprintf("%d %s", val.Int(), termsafe.Line(k.String())))
		}
		return true
	})
	return "batch: " + strings.Join(parts, ", ")
}

// call renders a tool_call as name(key: value, …), values shortened.
func (v *View) call(prefix string, ev gjson.Result) {
	var b strings.Builder
	b.WriteString(termsafe.Line(ev.Get("name").String()))
	b.WriteByte('(')
	first := true
	ev.Get("arguments").ForEach(func(k, val gjson.Result) bool {
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(termsafe.Line(k.String()))
		b.WriteString(": ")
		b.WriteString(clip.Runes(termsafe.Line(val.Raw), viewValueLen))
		return true
	})
	b.WriteByte(')')
	note := ""
	if ev.Get("repaired").Bool() {
		note = v.paint(styleDim, " (repaired)")
	}
	v.printf("%s%s%s\n", prefix, v.paint(styleCall, "→ "+b.String()), note)
}

// observation renders a result: its status, exit code and time on one
// line, then its first few lines, indented under the call.
func (v *View) observation(prefix string, ev gjson.Result) {
	status := ev.Get("status").String()
	if status == "" {
		status = "ok"
		if ev.Get("is_error").Bool() {
			status = "error"
		}
	}
	head := []string{termsafe.Line(status)}
	if k := ev.Get("error.kind"); k.Exists() {
		head[0] += " (" + termsafe.Line(k.String()) + ")"
	}
	if c := ev.Get("exit_code"); c.Exists() {
		head = append(head, fmt.Sprintf("exit %d", c.Int()))
	}
	if s := ev.Get("signal"); s.Exists() && s.String() != "" {
		head = append(head, termsafe.Line(s.String()))
	}
	if d := ev.Get("duration_ms"); d.Exists() {
		head = append(head, fmt.Sprintf("%d ms", d.Int()))
	}
	if ev.Get("truncated").Bool() {
		head = append(head, "truncated")
	}
	style := styleOK
	if status != "ok" {
		style = styleError
	}
	v.printf("%s  %s\n", prefix, v.paint(style, "← "+strings.Join(head, ", ")))
	body := ev.Get("content").String()
	if body == "" {
		body = ev.Get("error.message").String()
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
func (v *View) stop(prefix string, ev gjson.Result) {
	reason := ev.Get("reason").String()
	n := int(ev.Get("iterations").Int())
	if reason != StopFinalAnswer {
		msg := fmt.Sprintf("stopped: %s after %d iteration%s", termsafe.Line(reason), n, plural(n))
		if e := ev.Get("error").String(); e != "" {
			msg += ": " + termsafe.Line(e)
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
	v.printf("%s%s\n", prefix, indentRest(termsafe.Text(v.text)))
	v.text, v.textReq = "", ""
}
