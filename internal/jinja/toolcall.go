package jinja

// This file is toolcall's addition to the engine (see NOTES.md): what a
// render may do, so that a template from outside cannot take the
// machine's memory, stack or time, and the hooks toolcall's wrapper
// supplies filters and str methods through.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Options bound one render and extend the engine. The zero value of a
// bound means no bound.
type Options struct {
	// Step is called at each loop iteration, macro or caller call and
	// value-building operator; its error ends the render.
	Step func() error
	// Stopped reports that the render was given up; it is asked at each
	// node, and a true answer ends the render.
	Stopped func() bool
	// MaxString bounds a string an operator builds (bytes), MaxItems a
	// list, MaxOutput what one evaluator writes, MaxDepth the macro calls
	// under way.
	MaxString, MaxItems, MaxOutput, MaxDepth int
	// Filters are looked up before the engine's own.
	Filters map[string]Value
	// StrMethod, when set, is asked for a str method before the engine's
	// own: ok false leaves the name to the engine.
	StrMethod func(s, name string) (Value, bool)
	// Percent, when set, is str % values.
	Percent func(format string, values Value) (string, error)
}

// ErrNoFiles is the error of a template that would read another one
// (include, import, from, extends): the engine has no loader.
var ErrNoFiles = errors.New("a template may not read other templates")

// ErrTooLarge is the error of a render that would build a value past
// Options' bounds.
var ErrTooLarge = errors.New("value larger than allowed")

// Filter returns the engine's own filter name, for a wrapper that
// checks its arguments first.
func Filter(name string) (Value, bool) { return lookupFilter(cachedBuiltins(), name) }

// RenderWith is RenderValues bounded and extended by o.
func (t *Template) RenderWith(data map[string]Value, o *Options) (string, error) {
	if o == nil {
		o = &Options{}
	}
	return renderWith(t.nodes, data, o)
}

// limits is the state one render shares between its evaluators.
type limits struct {
	*Options
	depth int
}

func (l *limits) step() error {
	if l == nil || l.Step == nil {
		return nil
	}
	return l.Step()
}

func (l *limits) str(n int) error {
	if l != nil && l.MaxString > 0 && (n < 0 || n > l.MaxString) {
		return fmt.Errorf("%w: a string of more than %d bytes", ErrTooLarge, l.MaxString)
	}
	return l.step()
}

func (l *limits) items(n int) error {
	if l != nil && l.MaxItems > 0 && (n < 0 || n > l.MaxItems) {
		return fmt.Errorf("%w: a list of more than %d items", ErrTooLarge, l.MaxItems)
	}
	return l.step()
}

// maxNesting bounds how deep a template's tags and expressions nest, and
// how deep a value is printed: Python's Jinja stops near its recursion
// limit too, and past it Go's stack would overflow, which no recover
// catches.
const maxNesting = 400

// maxRepr bounds the text of one printed list or dict (bytes); past it
// the text is cut short.
const maxRepr = 16 << 20

func sortedKeys(m map[string]Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (l *limits) filter(name string) (Value, bool) {
	if l == nil || l.Filters == nil {
		return Value{}, false
	}
	v, ok := l.Filters[name]
	return v, ok
}

// checkBinary refuses an operator whose result would be past the bounds,
// before it is built, and counts a step for each that builds a value.
func (e *evaluator) checkBinary(op string, a, b Value) error {
	l := e.lim
	switch op {
	case "+":
		switch {
		case a.IsString() || b.IsString():
			return l.str(len(printValue(a)) + len(printValue(b)))
		case a.IsList() && b.IsList():
			return l.items(a.AsList().Len() + b.AsList().Len())
		}
	case "~":
		return l.str(len(printValue(a)) + len(printValue(b)))
	case "*":
		if a.IsString() && b.IsInt() {
			n, s := b.AsInt(), len(a.AsString())
			if n <= 0 || s == 0 {
				return l.step()
			}
			if l != nil && l.MaxString > 0 && n > int64(l.MaxString/s) {
				return l.str(-1)
			}
			return l.str(s * int(n))
		}
	}
	return nil
}

// mapFilter is map('filter', args…): done is false for the other forms.
func (e *evaluator) mapFilter(input Value, n *filterExpr) (done bool, out Value, err error) {
	name, err := e.evalExpr(n.args[0])
	if err != nil {
		return true, Undefined(), err
	}
	if !name.IsString() {
		return false, Undefined(), nil
	}
	f, ok := e.lim.filter(name.AsString())
	if !ok {
		f, ok = lookupFilter(e.builtins, name.AsString())
	}
	if !ok || !f.IsCallable() {
		return true, Undefined(), fmt.Errorf("map: unknown filter %q", name.AsString())
	}
	var items []Value
	switch {
	case input.IsList():
		items = input.AsList().Items
	case input.IsDict():
		for _, k := range input.AsDict().Keys {
			items = append(items, NewString(k))
		}
	}
	extra := make([]Value, 0, len(n.args)-1)
	for _, a := range n.args[1:] {
		v, err := e.evalExpr(a)
		if err != nil {
			return true, Undefined(), err
		}
		extra = append(extra, v)
	}
	res := make([]Value, len(items))
	for i, it := range items {
		if err := e.lim.step(); err != nil {
			return true, Undefined(), err
		}
		v, err := f.AsCallable().Fn(append([]Value{it}, extra...), nil)
		if err != nil {
			return true, Undefined(), err
		}
		res[i] = v
	}
	return true, NewList(res), nil
}

// spread adds *list and **dict to a call's arguments.
func (e *evaluator) spread(n *callExpr, args []Value, kwargs map[string]Value) ([]Value, map[string]Value, error) {
	if n.star != nil {
		v, err := e.evalExpr(n.star)
		if err != nil {
			return nil, nil, err
		}
		if v.IsList() {
			args = append(args, v.AsList().Items...)
		}
	}
	if n.dstar != nil {
		v, err := e.evalExpr(n.dstar)
		if err != nil {
			return nil, nil, err
		}
		if v.IsDict() {
			if kwargs == nil {
				kwargs = map[string]Value{}
			}
			for _, k := range v.AsDict().Keys {
				kwargs[k] = v.AsDict().Data[k]
			}
		}
	}
	return args, kwargs, nil
}

func (p *exprParser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return fmt.Errorf("expressions nested more than %d deep", maxNesting)
	}
	return nil
}

func (p *exprParser) leave() { p.depth-- }

// testArgFollows reports whether the token after a test's name starts its
// one argument written without parentheses, as Python's Jinja reads it.
func (p *exprParser) testArgFollows() bool {
	t := p.peek()
	switch t.kind {
	case tokString, tokInt, tokFloat, tokLBracket, tokLBrace:
		return true
	case tokName:
		switch t.val {
		case "else", "or", "and", "if", "is", "in", "not":
			return false
		}
		return true
	}
	return false
}

// unescape writes the escape at s[i] (the byte after a backslash) that
// the engine's own tokenizer does not know, as Python reads it, and
// returns the index after it.
func unescape(b *strings.Builder, s string, i int) int {
	simple := map[byte]byte{'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v', '0': 0}
	if c, ok := simple[s[i]]; ok {
		b.WriteByte(c)
		return i + 1
	}
	n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
	if i+1+n <= len(s) {
		if r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil && utf8.ValidRune(rune(r)) {
			b.WriteRune(rune(r))
			return i + 1 + n
		}
	}
	b.WriteByte('\\')
	b.WriteByte(s[i])
	return i + 1
}

// repr writes v as Python's repr does: a list or dict met again inside
// itself is [...] or {...} as in Python, and nesting stops at maxNesting
// (toolcall's change: a list appended to itself printed without end).
func (v Value) repr(b *strings.Builder, open []any) {
	if b.Len() > maxRepr {
		return
	}
	switch v.kind {
	case KindList:
		l := v.AsList()
		if len(open) > maxNesting || slices.Contains(open, any(l)) {
			b.WriteString("[...]")
			return
		}
		open = append(open, l)
		b.WriteByte('[')
		for i, item := range l.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			item.repr(b, open)
		}
		b.WriteByte(']')
	case KindDict:
		d := v.AsDict()
		if len(open) > maxNesting || slices.Contains(open, any(d)) {
			b.WriteString("{...}")
			return
		}
		open = append(open, d)
		b.WriteByte('{')
		for i, key := range d.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyRepr(key))
			b.WriteString(": ")
			d.Data[key].repr(b, open)
		}
		b.WriteByte('}')
	default:
		b.WriteString(v.str())
	}
}

// pyFloat is Python's repr of a float: 1.0, 0.1, 1e+16, 1e-05, inf.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

var reprEscapes = map[rune]string{'\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

// pyRepr is Python's repr of a str: single quotes unless the text has
// one and no double quote, control characters escaped.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		if esc, ok := reprEscapes[r]; ok {
			b.WriteString(esc)
		} else if r == rune(q) {
			b.WriteByte('\\')
			b.WriteRune(r)
		} else if r < 0x20 || r == 0x7f {
			fmt.Fprintf(&b, `\x%02x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Print is the text {{ v }} writes: a string as it is, None as None,
// undefined as nothing, other values as Python's str gives them.
func Print(v Value) string { return printValue(v) }

// exponent returns the end of an exponent (e5, E-3) at s[i:], or i.
func exponent(s string, i int) int {
	if i >= len(s) || s[i] != 'e' && s[i] != 'E' {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == j {
		return i
	}
	return k
}

// undefinedErr is Python's Jinja's error for an attribute or item of an
// undefined value: printing one is nothing, reading into one fails.
func undefinedErr(obj expr, attr string) error {
	return fmt.Errorf("UndefinedError: %s is undefined (reading %q of it)", callableName(obj), attr)
}

// pyType names v's type as Python does in its errors.
func pyType(v Value) string {
	switch v.kind {
	case KindNone:
		return "'NoneType'"
	case KindBool:
		return "'bool'"
	case KindInt:
		return "'int'"
	case KindFloat:
		return "'float'"
	case KindString:
		return "'str'"
	case KindList:
		return "'list'"
	case KindDict:
		return "'dict'"
	case KindCallable:
		return "'function'"
	}
	return "'Undefined'"
}

// strictBinary fails arithmetic on an undefined value, and + between a
// str and anything else, as Python does: a template that fails in
// transformers fails here too rather than render something else.
func (e *evaluator) strictBinary(op string, a, b Value) error {
	switch op {
	case "+", "-", "*", "/", "//", "%", "**":
	default:
		return nil
	}
	if a.IsUndefined() || b.IsUndefined() {
		return fmt.Errorf("UndefinedError: %s with an undefined value", op)
	}
	if (op == "/" || op == "//" || op == "%") && b.IsNumber() && toFloat64(b) == 0 && !a.IsString() {
		return errors.New("ZeroDivisionError: division by zero")
	}
	if op == "+" && (a.IsString() != b.IsString() || a.IsList() != b.IsList() || a.IsDict() || b.IsDict() || a.IsNone() || b.IsNone()) {
		return fmt.Errorf("TypeError: unsupported operand types for +: %s and %s", pyType(a), pyType(b))
	}
	return nil
}

// percent is format % values through Options.Percent; ok false when there
// is none.
func (e *evaluator) percent(format, values Value) (Value, bool, error) {
	if e.lim == nil || e.lim.Percent == nil {
		return Value{}, false, nil
	}
	s, err := e.lim.Percent(format.AsString(), values)
	if err != nil {
		return Undefined(), true, err
	}
	return NewString(s), true, e.lim.str(len(s))
}
