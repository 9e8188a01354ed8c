package chattemplate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolcall/toolcall/internal/jinja"
)

// Message is one turn of a conversation, as chat templates expect it.
type Message struct {
	Role    string
	Content string
	// Reasoning is the assistant's think block, given to templates as
	// reasoning_content (and thinking, which some templates read).
	Reasoning  string
	ToolCalls  []Call
	ToolCallID string // role tool: the call answered
	Name       string // role tool: the tool's name
}

// Call is an assistant's tool call. Arguments is a json.RawMessage (an
// object, decoded with its keys in order), a map[string]any (keys sorted
// when printed), or a string holding JSON (templates differ in which they
// accept).
type Call struct {
	ID        string
	Name      string
	Arguments any
}

// Tool is a tool definition in the OpenAI shape, {"type": "function",
// "function": {"name", "description", "parameters"}}: a json.RawMessage,
// whose keys the template sees in their order (as Python's Jinja sees a
// request's), or a decoded map[string]any, whose keys it sees sorted.
type Tool = any

// RenderOptions are the variables a template sees besides the messages.
type RenderOptions struct {
	Tools               []Tool
	AddGenerationPrompt bool
	// Now is what strftime_now formats; zero means the current time.
	Now time.Time
}

// compiled caches the parsed template.
type compiled struct {
	once sync.Once
	tpl  *jinja.Template
	err  error
}

func (t *Template) compile() (*jinja.Template, error) {
	cc := &t.compiled
	cc.once.Do(func() {
		cc.tpl, cc.err = parseTemplate(t.Source)
		switch {
		case errors.Is(cc.err, jinja.ErrNoFiles):
			cc.err = fmt.Errorf("chat template %s: %w", t.Name, ErrNoFiles)
		case cc.err != nil:
			cc.err = printableErr{fmt.Errorf("chat template %s does not parse as Jinja: %w", t.Name, shortErr(cc.err, t.Source))}
		}
	})
	return cc.tpl, cc.err
}

// parseTemplate parses src with the engine. A panic in the engine on
// malformed input is a template that does not parse, not a crash.
func parseTemplate(src string) (tpl *jinja.Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			tpl, err = nil, fmt.Errorf("the template engine failed on it: %v", p)
		}
	}()
	return jinja.Compile(src)
}

// ErrNoFiles is why a template that would read another one fails: it is
// refused outright, never rendered some other way. The engine has no
// loader at all: the four tags are errors when the template is parsed.
var ErrNoFiles = errors.New("{% include %}, {% import %}, {% from %} and {% extends %} are refused: " +
	"a chat template may not read other files (give toolcall one self-contained template)")

// shortErr keeps the first line of the engine's message and the last
// detail, without the quote of the whole template source (src) the
// engine may put in it.
func shortErr(err error, src string) error {
	msg := withoutSource(err.Error(), src)
	if i := strings.Index(msg, "\n"); i >= 0 {
		last := msg[strings.LastIndex(msg, "\n")+1:]
		msg = msg[:i] + " … " + last
	}
	if len(msg) > 600 {
		msg = msg[:300] + " … " + msg[len(msg)-300:]
	}
	return errors.New(msg)
}

// errRaised carries raise_exception's message.
type errRaised struct{ msg string }

func (e *errRaised) Error() string { return "the template raised: " + e.msg }

// Render renders msgs through the template, for at most renderTimeout.
func (t *Template) Render(msgs []Message, opts RenderOptions) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	return t.RenderContext(ctx, msgs, opts)
}

// RenderContext renders msgs through the template until ctx is done.
func (t *Template) RenderContext(ctx context.Context, msgs []Message, opts RenderOptions) (string, error) {
	tpl, err := t.compile()
	if err != nil {
		return "", err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	var raised *errRaised
	ms := make([]jinja.Value, len(msgs))
	for i, m := range msgs {
		ms[i] = m.value()
	}
	g := newGuard(t.maxSteps, t.maxHeap)
	vars := map[string]jinja.Value{
		"messages":              jinja.NewList(ms),
		"add_generation_prompt": jinja.NewBool(opts.AddGenerationPrompt),
		"bos_token":             jinja.NewString(t.BOS),
		"eos_token":             jinja.NewString(t.EOS),
		"raise_exception": jinja.NewCallable("raise_exception", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			msg := ""
			if len(args) > 0 {
				msg = printed(args[0])
			}
			raised = &errRaised{msg}
			return jinja.Undefined(), raised
		}),
		"strftime_now": jinja.NewCallable("strftime_now", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			f := ""
			if len(args) > 0 {
				f = printed(args[0])
			}
			return jinja.NewString(strftime(now, f)), nil
		}),
	}
	// transformers passes tools=None when there are none: templates that
	// test "tools is not none" see the same, and those that iterate over
	// tools without a test fail as they fail there.
	vars["tools"] = jinja.None()
	// Firefunction v2's template reads the tools as functions, a JSON
	// string, and the date as datetime, which transformers does not pass:
	// llama.cpp passes both (the tools as JSON with an indent of 2, ""
	// when there are none), and so does toolcall, to every template. No
	// other template reads them.
	vars["functions"] = jinja.NewString("")
	vars["datetime"] = jinja.NewString(now.Format("Jan 02 2006 15:04:05 GMT"))
	if len(opts.Tools) > 0 {
		tools := make([]jinja.Value, len(opts.Tools))
		for i, tl := range opts.Tools {
			tools[i] = toValue(tl)
		}
		vars["tools"] = jinja.NewList(tools)
		fs, err := filterToJSON(args{vars["tools"], jinja.NewInt(2)}, nil)
		if err != nil {
			return "", fmt.Errorf("chat template %s: the tools as JSON: %w", t.Name, err)
		}
		vars["functions"] = fs
	}
	o := &jinja.Options{
		Limits: jinja.Limits{
			Steps:  g.maxSteps,
			Output: maxRender,
			String: maxValue,
			Items:  maxItems,
			Depth:  maxMacroDepth,
		},
		Step: g.check,
	}
	// A template is code from a file or a server: the engine bounds what
	// one render may write, build and take, and stops when ctx is done.
	out, err := renderEngine(ctx, tpl, vars, o)
	if err != nil {
		if raised != nil {
			return "", printableErr{fmt.Errorf("chat template %s: %w", t.Name, raised)}
		}
		var le *jinja.LimitError
		switch {
		case errors.As(err, &le) && le.Bound == jinja.BoundOutput:
			err = fmt.Errorf("it wrote more than %d MiB", maxRender>>20)
		case errors.Is(err, jinja.ErrTooLarge):
			err = fmt.Errorf("%w: %v", errTooLarge, err)
		case errors.Is(err, context.DeadlineExceeded):
			return "", fmt.Errorf("chat template %s does not render: it took longer than %v", t.Name, renderTimeout)
		case errors.Is(err, context.Canceled):
			return "", fmt.Errorf("chat template %s does not render: %w", t.Name, err)
		}
		return "", printableErr{fmt.Errorf("chat template %s does not render: %w", t.Name, shortErr(err, t.Source))}
	}
	return out, nil
}

// renderEngine renders tpl; a panic in the engine on a hostile template
// fails this render, not the process.
func renderEngine(ctx context.Context, tpl *jinja.Template, vars map[string]jinja.Value, o *jinja.Options) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("the template engine failed on it: %v", p)
		}
	}()
	return tpl.Render(ctx, vars, o)
}

// Bounds of one render: real templates write kilobytes in milliseconds.
const (
	maxRender     = 16 << 20
	renderTimeout = 10 * time.Second
)

// value is m as a template sees it, its keys in the order a client
// writes them; arguments given as JSON keep their order too.
func (m Message) value() jinja.Value {
	v := dict("role", m.Role, "content", m.Content)
	add := func(k string, val any) { v.AsDict().Set(k, toValue(val)) }
	if m.Reasoning != "" {
		add("reasoning_content", m.Reasoning)
		add("thinking", m.Reasoning)
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]jinja.Value, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			calls[i] = dict("id", c.ID, "type", "function", "function", dict("name", c.Name, "arguments", toValue(c.Arguments)))
		}
		add("tool_calls", jinja.NewList(calls))
	}
	if m.ToolCallID != "" {
		add("tool_call_id", m.ToolCallID)
	}
	if m.Name != "" {
		add("name", m.Name)
	}
	return v
}

// strftime formats t with the C directives templates use.
func strftime(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'B':
			b.WriteString(t.Month().String())
		case 'b':
			b.WriteString(t.Month().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}
