package chattemplate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
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

var (
	envOnce sync.Once
	env     *exec.Environment
	cfg     *config.Config
)

// environment sets up the Jinja engine with the helpers Hugging Face
// templates use. It runs on first use, not at package init.
func environment() (*exec.Environment, *config.Config) {
	envOnce.Do(func() {
		filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(builtins.Filters)
		_ = filters.Replace("tojson", filterToJSON)
		_ = filters.Replace("items", filterItems)
		// gonja's dictsort reads Go maps only: an ordered dict goes to
		// it as one (its values kept as they are).
		if sortDict, ok := filters.Get("dictsort"); ok {
			_ = filters.Replace("dictsort", func(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
				if d, ok := orderedDict(in); ok {
					m := make(map[string]any, len(d.Pairs))
					for _, p := range d.Pairs {
						m[p.Key.String()] = p.Value.Interface()
					}
					in = exec.AsValue(m)
				}
				return sortDict(e, in, params)
			})
		}
		for name, est := range boundedFilters {
			if f, ok := filters.Get(name); ok {
				_ = filters.Replace(name, boundFilter(f, est))
			}
		}
		structures := exec.NewControlStructureSet(map[string]parser.ControlStructureParser{}).Update(builtins.ControlStructures)
		_ = structures.Register("generation", parseGeneration)
		// A template gets no file access at all: the four tags that
		// would read another template are errors when it is parsed.
		for _, tag := range fileTags {
			_ = structures.Replace(tag, refuseFiles)
		}
		env = &exec.Environment{
			Context:           exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables),
			Filters:           filters,
			Tests:             builtins.Tests,
			ControlStructures: structures,
			Methods:           methods(),
		}
		// transformers renders with trim_blocks and lstrip_blocks.
		cfg = config.New()
		cfg.TrimBlocks = true
		cfg.LeftStripBlocks = true
	})
	return env, cfg
}

// compiled caches the parsed template.
type compiled struct {
	once sync.Once
	tpl  *exec.Template
	err  error
}

func (t *Template) compile() (*exec.Template, error) {
	cc := &t.compiled
	cc.once.Do(func() {
		e, conf := environment()
		src := t.Source
		if !t.verbatim {
			src = rewriteAlways(src)
		}
		cc.tpl, cc.err = parseTemplate(conf, src, e)
		if cc.err != nil && !errors.Is(cc.err, ErrNoFiles) {
			// Nested conditionals are the usual cause: try again with
			// them rewritten (see ternary.go).
			if again := rewriteConditionals(t.Source); again != t.Source && !t.verbatim {
				if tpl, err := parseTemplate(conf, again, e); err == nil {
					cc.tpl, cc.err = tpl, nil
					return
				}
			}
		}
		switch {
		case errors.Is(cc.err, ErrNoFiles):
			cc.err = fmt.Errorf("chat template %s: %w", t.Name, ErrNoFiles)
		case cc.err != nil:
			cc.err = printableErr{fmt.Errorf("chat template %s does not parse as Jinja: %w", t.Name, shortErr(cc.err, src))}
		}
	})
	return cc.tpl, cc.err
}

// parseTemplate parses src with the engine. The engine's lexer panics on
// some malformed input (a number running into a multi-byte character,
// FuzzRender found): that is a template that does not parse, not a crash.
func parseTemplate(conf *config.Config, src string, e *exec.Environment) (tpl *exec.Template, err error) {
	if at := lexerTrap(src); at >= 0 {
		return nil, fmt.Errorf("at byte %d: a number followed by '.' and a non-ASCII character inside a tag, which the template engine cannot read (it loops on it); put a space after the '.'", at)
	}
	defer func() {
		if p := recover(); p != nil {
			tpl, err = nil, fmt.Errorf("the template engine failed on it: %v", p)
		}
	}()
	return exec.NewTemplate(rootName, conf, &onlyItself{src: src}, e)
}

// lexerTrap returns where, inside a {{ }} or {% %} tag and outside a
// string, a digit is followed by '.' and a non-ASCII byte, or -1. The
// engine's lexer backs up over such a '.' by the width of the character
// after it: it slices out of range or loops forever allocating tokens
// (FuzzRender found both), so such a template is refused before it is
// lexed. Text outside tags is not lexed as numbers and is left alone.
func lexerTrap(src string) int {
	inTag := false
	var quote byte
	for i := 0; i+1 < len(src); i++ {
		c := src[i]
		switch {
		case !inTag:
			inTag = c == '{' && (src[i+1] == '{' || src[i+1] == '%')
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case (c == '}' || c == '%') && src[i+1] == '}':
			inTag = false
		case c >= '0' && c <= '9' && src[i+1] == '.' && i+2 < len(src) && src[i+2] >= 0x80:
			return i
		}
	}
	return -1
}

// rootName is the name the engine knows the template by.
const rootName = "chat_template"

// ErrNoFiles is why a template that would read another one fails: it is
// refused outright, never rendered some other way.
var ErrNoFiles = errors.New("{% include %}, {% import %}, {% from %} and {% extends %} are refused: " +
	"a chat template may not read other files (give toolcall one self-contained template)")

// fileTags are the Jinja tags that read another template.
var fileTags = []string{"include", "import", "from", "extends"}

func refuseFiles(*parser.Parser, *parser.Parser) (nodes.ControlStructure, error) {
	return nil, ErrNoFiles
}

// onlyItself is the loader a template is compiled with: it gives the
// engine the template's own source, once, and nothing else, so that
// no tag or engine path can reach a file even if one slipped past the
// tags refused above.
type onlyItself struct {
	src  string
	read bool
}

func (l *onlyItself) Read(name string) (io.Reader, error) {
	if name != rootName || l.read {
		return nil, ErrNoFiles
	}
	l.read = true
	return strings.NewReader(l.src), nil
}

func (l *onlyItself) Resolve(name string) (string, error) {
	if name != rootName {
		return "", ErrNoFiles
	}
	return name, nil
}

func (l *onlyItself) Inherit(string) (loaders.Loader, error) { return nil, ErrNoFiles }

// shortErr keeps the first line of the engine's message and the last
// detail, without the quote of the whole template source (src) the
// engine puts in it.
func shortErr(err error, src string) error {
	msg := withoutSource(err.Error(), src)
	if i := strings.Index(msg, "\n"); i >= 0 {
		last := msg[strings.LastIndex(msg, "\n")+1:]
		if j := strings.LastIndex(last, "': "); j >= 0 {
			last = last[j+3:]
		}
		msg = strings.TrimSuffix(msg[:i], "'") + " … " + last
	}
	if len(msg) > 600 {
		msg = msg[:300] + " … " + msg[len(msg)-300:]
	}
	return errors.New(msg)
}

// errRaised carries raise_exception's message.
type errRaised struct{ msg string }

func (e *errRaised) Error() string { return "the template raised: " + e.msg }

// Render renders msgs through the template.
func (t *Template) Render(msgs []Message, opts RenderOptions) (string, error) {
	tpl, err := t.compile()
	if err != nil {
		return "", err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	var raised *errRaised
	ms := make([]any, len(msgs))
	for i, m := range msgs {
		ms[i] = m.value()
	}
	tools := make([]any, len(opts.Tools))
	for i, tl := range opts.Tools {
		tools[i] = ordered(tl)
	}
	vars := map[string]any{
		"messages":              ms,
		"add_generation_prompt": opts.AddGenerationPrompt,
		"bos_token":             t.BOS,
		"eos_token":             t.EOS,
		"raise_exception": func(msg string) (string, error) {
			raised = &errRaised{msg}
			return "", raised
		},
		"strftime_now": func(format string) string { return strftime(now, format) },
		ternaryFunc:    ternary,
	}
	depth := &macroDepth{}
	g := newGuard(t.maxSteps, t.maxHeap)
	vars[enterFunc] = func() (string, error) {
		if err := g.check(); err != nil {
			return "", err
		}
		return depth.enter()
	}
	vars[leaveFunc] = depth.leave
	vars[tickFunc] = g.tick
	vars[mulFunc] = g.mul
	vars[catFunc] = g.cat
	vars[addFunc] = g.add
	vars["range"] = g.rangeList
	if len(tools) > 0 {
		vars["tools"] = tools
	}
	// A template is code from a file or a server: bound what one render
	// may write and how long it may take. A render that overruns is left
	// to finish on its own (gonja cannot be stopped); the caller fails.
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		w := &limitWriter{max: maxRender}
		// A panic in the engine on a hostile template fails this render,
		// not the process.
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("the template engine failed on it: %v", p)}
			}
		}()
		err := tpl.Execute(w, exec.NewContext(vars))
		if w.over {
			err = fmt.Errorf("it wrote more than %d MiB", maxRender>>20)
		}
		done <- result{w.b.String(), err}
	}()
	timer := time.NewTimer(renderTimeout)
	defer timer.Stop()
	var r result
	select {
	case r = <-done:
	case <-timer.C:
		// The render stops at its next loop iteration, macro call or
		// guarded operator.
		g.stopped.Store(true)
		return "", fmt.Errorf("chat template %s does not render: it took longer than %v", t.Name, renderTimeout)
	}
	if r.err != nil {
		if raised != nil {
			return "", printableErr{fmt.Errorf("chat template %s: %w", t.Name, raised)}
		}
		return "", printableErr{fmt.Errorf("chat template %s does not render: %w", t.Name, shortErr(r.err, t.Source))}
	}
	return r.out, nil
}

// Bounds of one render: real templates write kilobytes in milliseconds.
const (
	maxRender     = 16 << 20
	renderTimeout = 10 * time.Second
)

// limitWriter keeps up to max bytes and fails the writes past them.
type limitWriter struct {
	b    strings.Builder
	max  int
	over bool
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		w.over = true
		return 0, errors.New("output limit")
	}
	return w.b.Write(p)
}

// value is m as a template sees it, its keys in the order a client
// writes them; arguments given as JSON keep their order too.
func (m Message) value() *exec.Dict {
	v := dict("role", m.Role, "content", m.Content)
	add := func(k string, val any) { v.Pairs = append(v.Pairs, dict(k, val).Pairs...) }
	if m.Reasoning != "" {
		add("reasoning_content", m.Reasoning)
		add("thinking", m.Reasoning)
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]any, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			calls[i] = dict("id", c.ID, "type", "function", "function", dict("name", c.Name, "arguments", ordered(c.Arguments)))
		}
		add("tool_calls", calls)
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

// filterItems is the items filter with the keys in order: gonja's walks a
// Go map in random order, so the same tools would render differently from
// one run to the next.
func filterItems(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if in.IsNil() {
		return exec.AsValue([]any{})
	}
	if in.IsList() {
		return in
	}
	if !in.IsDict() {
		return exec.AsValue(errors.New("items requires a mapping"))
	}
	var out []any
	if d, ok := orderedDict(in); ok {
		for _, p := range d.Pairs {
			out = append(out, []any{p.Key.Interface(), p.Value.Interface()})
		}
		return exec.AsValue(out)
	}
	for _, k := range in.Keys() {
		v, _ := in.GetItem(k.Interface())
		out = append(out, []any{k.Interface(), v.Interface()})
	}
	return exec.AsValue(out)
}

// filterToJSON is tojson as transformers defines it: Python's json.dumps
// with ", " and ": " separators, no HTML escaping, non-ASCII kept, and
// indent when asked. Keys come out sorted (Go maps keep no order).
func filterToJSON(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	indent := -1
	if v, ok := params.KwArgs["indent"]; ok && v.IsInteger() {
		indent = v.Integer()
	} else if len(params.Args) > 0 && params.Args[0].IsInteger() {
		indent = params.Args[0].Integer()
	}
	var b bytes.Buffer
	if err := writeJSON(&b, in.Interface(), indent, 0); err != nil {
		return exec.AsValue(fmt.Errorf("tojson: %w", err))
	}
	return exec.AsValue(b.String())
}

func writeJSON(b *bytes.Buffer, v any, indent, depth int) error {
	newline := func(d int) {
		if indent >= 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent*d))
		}
	}
	sep := ", "
	if indent >= 0 {
		sep = ","
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		writeString(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return errors.New("not a finite number")
		}
		if x == math.Trunc(x) && math.Abs(x) < 1e16 {
			b.WriteString(strconv.FormatFloat(x, 'f', 1, 64))
		} else {
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case json.Number:
		b.WriteString(x.String())
	case map[string]any:
		if len(x) == 0 {
			b.WriteString("{}")
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			writeString(b, k)
			b.WriteString(": ")
			if err := writeJSON(b, x[k], indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			if err := writeJSON(b, el, indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte(']')
	case *exec.Value:
		return writeJSON(b, x.Interface(), indent, depth)
	case exec.ValuesList:
		l := make([]any, len(x))
		for i, el := range x {
			l[i] = el
		}
		return writeJSON(b, l, indent, depth)
	case *exec.Dict:
		// A dict literal in the template: its keys keep their order.
		if len(x.Pairs) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, pr := range x.Pairs {
			if i > 0 {
				b.WriteString(sep)
			}
			newline(depth + 1)
			writeString(b, pr.Key.String())
			b.WriteString(": ")
			if err := writeJSON(b, pr.Value.Interface(), indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte('}')
	case exec.Value:
		return writeJSON(b, x.Interface(), indent, depth)
	default:
		// Other Go values (typed maps, slices) through encoding/json.
		raw, err := json.Marshal(x)
		if err != nil {
			return err
		}
		var generic any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&generic); err != nil {
			return err
		}
		return writeJSON(b, generic, indent, depth)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Write(bytes.TrimRight(e.Bytes(), "\n"))
}
