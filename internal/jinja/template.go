package jinja

import (
	"context"
	"errors"
	"sort"
	"strings"
)

// Template is a parsed template; it may be rendered many times, at once
// from several goroutines.
type Template struct {
	body    []node
	filters []string // the filters it names, checked when it renders
	tests   []string
}

// Compile parses src. A template that names include, import, from or
// extends does not parse (ErrNoFiles); nor does one nested past the
// parser's bound (a *LimitError).
//
// As Python's Jinja reads a template, \r\n and a lone \r are \n, and one
// newline at the very end is dropped (keep_trailing_newline off).
func Compile(src string) (*Template, error) {
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(src, "\r\n", "\n")
		src = strings.ReplaceAll(src, "\r", "\n")
	}
	toks, err := lex(strings.TrimSuffix(src, "\n"))
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	body, _, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	t := &Template{body: body, filters: uniq(p.filters), tests: uniq(p.tests)}
	return t, nil
}

func uniq(names []string) []string {
	sort.Strings(names)
	out := names[:0]
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// Limits bound one render; a zero field means no bound.
type Limits struct {
	// Steps bounds the loop iterations, macro and function calls, filters
	// and value-building operators.
	Steps int
	// Output bounds the bytes the render writes (a block set's or a
	// macro's output included).
	Output int
	// String bounds one string an operator, filter or method builds, in
	// bytes; Items one list, in items.
	String, Items int
	// Depth bounds the macro calls under way.
	Depth int
}

// Options bound one render and extend the engine.
type Options struct {
	Limits
	// Step, when set, is called at each step; its error ends the render
	// (toolcall samples the heap there).
	Step func() error
	// Filters are looked up before the engine's own; one is called with
	// the filtered value first.
	Filters map[string]Value
}

// Render renders the template with vars as its globals. It stops when
// ctx is done, at the next step, with ctx's error; no goroutine is left.
func (t *Template) Render(ctx context.Context, vars map[string]Value, o *Options) (string, error) {
	if o == nil {
		o = &Options{}
	}
	r := &renderer{ctx: ctx, done: ctx.Done(), o: o, vars: vars}
	for _, name := range t.filters {
		if _, ok := r.filter(name); !ok {
			return "", &SyntaxError{Line: 0, Msg: "no filter named '" + name + "'"}
		}
	}
	for _, name := range t.tests {
		if _, ok := tests()[name]; !ok {
			return "", &SyntaxError{Line: 0, Msg: "no test named '" + name + "'"}
		}
	}
	var b strings.Builder
	r.out = &b
	sc := &scope{}
	err := r.block(sc, t.body)
	if errors.Is(err, errBreak) || errors.Is(err, errContinue) {
		err = nil
	}
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

// RenderValues renders with vars and no bounds.
func (t *Template) RenderValues(vars map[string]Value) (string, error) {
	return t.Render(context.Background(), vars, nil)
}
