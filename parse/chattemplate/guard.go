package chattemplate

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// A template is code from outside, and a few bytes of it can ask for any
// amount of memory: "a" * 300000000, a string doubled in a loop, a range
// of 10**12 made a list. Go cannot stop a goroutine, nor catch an
// allocation that fails, so the values a render builds are checked before
// they are built:
//
//   - The binary operators that build values, *, ~ and +, are rewritten
//     as calls (toolcall_mul(a, b), …) that refuse a string longer than
//     maxValue bytes or a list longer than maxItems items, and do what
//     the engine does otherwise; ~ and + with a short literal on either
//     side are left alone (they grow a value by 256 bytes at most).
//   - range, and the filters and str methods whose size comes from an
//     argument (center, indent, join, replace, ljust, …), are replaced by
//     versions that check first.
//   - Each loop iteration and macro call ticks, as each guarded operator
//     does: past maxSteps of them, past maxHeapGrowth of heap grown since
//     the render began (a list filled in a loop), or once the render has
//     been given up (its time is over), the next tick fails it.

const (
	// maxValue bounds one string: no more than a render may write.
	maxValue = maxRender
	// maxItems bounds one list built by the template.
	maxItems = 1 << 20
	// maxSteps bounds the loop iterations, macro calls and guarded
	// operators of one render: real templates take thousands; it stops a
	// runaway loop within seconds, sooner than the render's time bound.
	maxSteps = 1 << 18
	// maxHeapGrowth bounds what the heap may grow while a render runs.
	maxHeapGrowth = 256 << 20
)

// Names of the functions the rewritten operators call.
const (
	mulFunc  = "toolcall_mul"
	catFunc  = "toolcall_cat"
	addFunc  = "toolcall_add"
	tickFunc = "toolcall_tick"
)

// errTooLarge is why a render that would build too large a value fails.
var errTooLarge = errors.New("the template builds a value larger than toolcall allows")

// guard is one render's bounds.
type guard struct {
	heap0    uint64
	ticks    int
	maxSteps int
	maxHeap  uint64
	stopped  atomic.Bool // the render was given up
}

// newGuard starts a render's guard; steps and heap bound its steps and
// heap growth, 0 meaning maxSteps and maxHeapGrowth.
func newGuard(steps, heap int) *guard {
	if steps <= 0 {
		steps = maxSteps
	}
	if heap <= 0 {
		heap = maxHeapGrowth
	}
	return &guard{heap0: heapBytes(), maxSteps: steps, maxHeap: uint64(heap)}
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

// heapBytes is the memory held by live and not yet swept heap objects.
func heapBytes() uint64 {
	s := []metrics.Sample{heapSample[0]}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// check fails a render that was given up or whose heap grew too much;
// the heap is sampled once every 16 calls (a sample costs about a
// microsecond; between two, a loop adds at most 16 values of maxValue).
func (g *guard) check() error {
	if g.stopped.Load() {
		return errors.New("the render was given up")
	}
	g.ticks++
	if g.ticks > g.maxSteps {
		return fmt.Errorf("it ran more than %d loop iterations, macro calls and operators", g.maxSteps)
	}
	if g.ticks%16 == 0 {
		if h := heapBytes(); h > g.heap0 && h-g.heap0 > g.maxHeap {
			// The sample counts garbage not yet swept: collect it, and
			// fail only on what is still held.
			runtime.GC()
			if h := heapBytes(); h > g.heap0 && h-g.heap0 > g.maxHeap {
				return fmt.Errorf("the heap grew by more than %d MiB while it rendered", g.maxHeap>>20)
			}
		}
	}
	return nil
}

func (g *guard) tick() (string, error) { return "", g.check() }

func (g *guard) size(n int) error {
	if n > maxValue || n < 0 {
		return fmt.Errorf("%w: a string of more than %d MiB", errTooLarge, maxValue>>20)
	}
	return g.check()
}

func (g *guard) items(n int) error {
	if n > maxItems || n < 0 {
		return fmt.Errorf("%w: a list of more than %d items", errTooLarge, maxItems)
	}
	return g.check()
}

// mul is a * b as the engine computes it, with a string repeated at most
// to maxValue bytes (and a negative count giving "", as Python does,
// where strings.Repeat would panic).
func (g *guard) mul(a, b *exec.Value) (*exec.Value, error) {
	switch {
	case a.IsFloat() || b.IsFloat():
		return exec.AsValue(a.Float() * b.Float()), g.check()
	case a.IsString():
		s, n := a.String(), b.Integer()
		if n <= 0 || s == "" {
			return exec.AsValue(""), g.check()
		}
		if n > maxValue/len(s) {
			return nil, g.size(-1)
		}
		if err := g.size(len(s) * n); err != nil {
			return nil, err
		}
		return exec.AsValue(strings.Repeat(s, n)), nil
	}
	return exec.AsValue(a.Integer() * b.Integer()), g.check()
}

// cat is a ~ b.
func (g *guard) cat(a, b *exec.Value) (*exec.Value, error) {
	x, y := a.String(), b.String()
	if err := g.size(len(x) + len(y)); err != nil {
		return nil, err
	}
	return exec.AsValue(x + y), nil
}

// add is a + b as the engine computes it: lists joined, floats, strings
// joined when either side is one, else integers.
func (g *guard) add(a, b *exec.Value) (*exec.Value, error) {
	switch {
	case a.IsList():
		if !b.IsList() {
			return nil, fmt.Errorf("unable to concatenate a list and %s", b.String())
		}
		if err := g.items(a.Len() + b.Len()); err != nil {
			return nil, err
		}
		out := make([]any, 0, a.Len()+b.Len())
		for _, l := range []*exec.Value{a, b} {
			for i := range l.Len() {
				out = append(out, l.Index(i).Interface())
			}
		}
		return exec.AsValue(out), nil
	case a.IsFloat() || b.IsFloat():
		return exec.AsValue(a.Float() + b.Float()), g.check()
	case a.IsString() || b.IsString():
		return g.cat(a, b)
	}
	return exec.AsValue(a.Integer() + b.Integer()), g.check()
}

// rangeList is range([start, ]stop[, step]) as a list of at most maxItems
// numbers. (The engine's own is a goroutine feeding a channel, which a
// loop left early leaves blocked for good.)
func (g *guard) rangeList(_ *exec.Evaluator, params *exec.VarArgs) (*exec.Value, error) {
	start, stop, step := 0, 0, 1
	var ints []int
	for _, a := range params.Args {
		if !a.IsInteger() {
			return nil, errors.New("range takes integers: [start, ]stop[, step]")
		}
		ints = append(ints, a.Integer())
	}
	switch len(ints) {
	case 1:
		stop = ints[0]
	case 2:
		start, stop = ints[0], ints[1]
	case 3:
		start, stop, step = ints[0], ints[1], ints[2]
	default:
		return nil, errors.New("range takes integers: [start, ]stop[, step]")
	}
	if step == 0 {
		return nil, errors.New("range: step cannot be 0")
	}
	n := 0
	if step > 0 && stop > start {
		n = (stop - start + step - 1) / step
	} else if step < 0 && stop < start {
		n = (start - stop - step - 1) / -step
	}
	if err := g.items(n); err != nil {
		return nil, err
	}
	out := make([]any, n)
	for i := range out {
		out[i] = start + i*step
	}
	return exec.AsValue(out), nil
}

// guardBody is guardOps on a tag's body, its whitespace-control marks
// ({{- … -}}, {%+ … %}) kept out of the expression; stmt tells a {% %}
// tag, whose first word may be a statement's.
func guardBody(body string, stmt bool) string {
	lead, trail := "", ""
	if body != "" && (body[0] == '-' || body[0] == '+') {
		lead, body = body[:1], body[1:]
	}
	if body != "" && (body[len(body)-1] == '-' || body[len(body)-1] == '+') {
		trail, body = body[len(body)-1:], body[:len(body)-1]
	}
	return lead + guardOps(body, stmt) + trail
}

// guardOps rewrites the operators *, ~ and + in the expression e (a tag's
// body without its whitespace-control marks, a statement's with stmt) as calls to the guard's
// functions, keeping Jinja's precedence: * before ~ before +, each left
// to right, and the operands binding tighter (**, unary signs, filters,
// tests, attributes, subscripts, calls) kept whole inside the call. An
// expression the scan does not understand comes back as it is.
func guardOps(e string, stmt bool) string {
	toks, ok := scanOps(e, stmt)
	if !ok {
		return e
	}
	for _, op := range []struct {
		text  string
		level int
		fn    string
	}{{"*", 3, mulFunc}, {"~", 2, catFunc}, {"+", 1, addFunc}} {
		toks = rewriteOp(toks, op.text, op.level, op.fn)
	}
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return b.String()
}

type opKind int

const (
	opSpace  opKind = iota
	opUnit          // an operand or a part binding tighter: name, literal, group, call, '.', '|', is
	opBinary        // a binary arithmetic operator, level in opTok.level
	opUnary         // a sign before an operand
	opStop          // anything binding looser: comparisons, , : =, and/or/not/in/if/else, statement words
)

type opTok struct {
	text  string
	kind  opKind
	level int
}

// stopWords end an operand: Jinja's keywords that bind looser than
// arithmetic. The word that starts a statement (set, do, elif, …) ends
// one too, but only there: call, filter or set are variables elsewhere.
var stopWords = map[string]bool{"and": true, "or": true, "not": true, "in": true, "if": true, "else": true,
	"recursive": true}

// statementWords start a {% %} tag.
var statementWords = map[string]bool{"set": true, "do": true, "elif": true, "for": true, "with": true,
	"call": true, "filter": true, "macro": true, "block": true}

// scanOps splits e into tokens; groups in brackets are one token each,
// their insides rewritten on their own.
func scanOps(e string, stmt bool) ([]opTok, bool) {
	var toks []opTok
	prevUnit := func() bool {
		for i := len(toks) - 1; i >= 0; i-- {
			if toks[i].kind != opSpace {
				return toks[i].kind == opUnit && toks[i].text != "|" && toks[i].text != "." && toks[i].text != "is"
			}
		}
		return false
	}
	for k := 0; k < len(e); {
		c := e[k]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			j := k
			for j < len(e) && (e[j] == ' ' || e[j] == '\t' || e[j] == '\n' || e[j] == '\r') {
				j++
			}
			toks = append(toks, opTok{text: e[k:j], kind: opSpace})
			k = j
		case c == '"' || c == '\'':
			j := stringEnd(e, k)
			if j < 0 {
				return nil, false
			}
			toks = append(toks, opTok{text: e[k : j+1], kind: opUnit})
			k = j + 1
		case c == '(' || c == '[' || c == '{':
			j := groupEnd(e, k)
			if j < 0 {
				return nil, false
			}
			toks = append(toks, opTok{text: e[k:k+1] + guardOps(e[k+1:j], false) + e[j:j+1], kind: opUnit})
			k = j + 1
		case c == ')' || c == ']' || c == '}':
			return nil, false
		case isWordByte(c):
			j := k
			for j < len(e) && isWordByte(e[j]) {
				j++
			}
			// A number's exponent sign (1e+5) is part of it.
			if c >= '0' && c <= '9' && j+1 < len(e) && (e[j-1] == 'e' || e[j-1] == 'E') && (e[j] == '+' || e[j] == '-') && e[j+1] >= '0' && e[j+1] <= '9' {
				for j++; j < len(e) && isWordByte(e[j]); j++ {
				}
			}
			w := e[k:j]
			kind := opUnit
			first := stmt && lastWord(toks) == ""
			if first && statementWords[w] || stopWords[w] && lastWord(toks) != "." {
				kind = opStop
				// "is not" is a test, part of its operand.
				if w == "not" && len(toks) > 0 && lastWord(toks) == "is" {
					kind = opUnit
				}
			}
			toks = append(toks, opTok{text: w, kind: kind})
			k = j
		case c == '.' || c == '|':
			toks = append(toks, opTok{text: e[k : k+1], kind: opUnit})
			k++
		default:
			two := ""
			if k+1 < len(e) {
				two = e[k : k+2]
			}
			switch {
			case two == "**":
				toks = append(toks, opTok{text: two, kind: opBinary, level: 4})
				k += 2
			case two == "//":
				toks = append(toks, opTok{text: two, kind: opBinary, level: 3})
				k += 2
			case two == "==" || two == "!=" || two == "<=" || two == ">=":
				toks = append(toks, opTok{text: two, kind: opStop})
				k += 2
			case c == '*' || c == '/' || c == '%':
				toks = append(toks, opTok{text: e[k : k+1], kind: opBinary, level: 3})
				k++
			case c == '~':
				toks = append(toks, opTok{text: "~", kind: opBinary, level: 2})
				k++
			case c == '+' || c == '-':
				if prevUnit() {
					toks = append(toks, opTok{text: e[k : k+1], kind: opBinary, level: 1})
				} else {
					toks = append(toks, opTok{text: e[k : k+1], kind: opUnary})
				}
				k++
			default:
				toks = append(toks, opTok{text: e[k : k+1], kind: opStop})
				k++
			}
		}
	}
	return toks, true
}

func lastWord(toks []opTok) string {
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i].kind != opSpace {
			return toks[i].text
		}
	}
	return ""
}

// rewriteOp rewrites each binary op (of the given level), left to right,
// as fn(left, right).
func rewriteOp(toks []opTok, op string, level int, fn string) []opTok {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != opBinary || t.text != op {
			continue
		}
		// The left operand: back over units, signs and operators that
		// bind tighter, or as tight (left to right).
		l := i
		for j := i - 1; j >= 0; j-- {
			k := toks[j]
			if k.kind == opUnit || k.kind == opUnary || k.kind == opBinary && k.level >= level {
				l = j
			} else if k.kind != opSpace {
				break
			}
		}
		// The right operand: on over units, signs and operators that
		// bind tighter.
		r := i
		for j := i + 1; j < len(toks); j++ {
			k := toks[j]
			if k.kind == opUnit || k.kind == opUnary || k.kind == opBinary && k.level > level {
				r = j
			} else if k.kind != opSpace {
				break
			}
		}
		if l == i || r == i {
			continue // not a binary use (*args), or not understood
		}
		if op != "*" && (shortLiteral(toks[l:i]) || shortLiteral(toks[i+1:r+1])) {
			// Joined to a short literal, a value grows by maxLiteral
			// bytes at most; only a loop adds that up, and each of its
			// iterations ticks the heap check. The call costs time, on
			// the ~ and + templates are full of; a doubling (x ~ x), or
			// a long literal, is still checked.
			continue
		}
		call := opTok{text: fn + "(" + join(toks[l:i]) + ", " + join(toks[i+1:r+1]) + ")", kind: opUnit}
		toks = append(toks[:l], append([]opTok{call}, toks[r+1:]...)...)
		i = l
	}
	return toks
}

// maxLiteral is the longest literal ~ and + are left unchecked with.
const maxLiteral = 256

// shortLiteral reports whether toks, spaces aside, are one string or
// number literal of at most maxLiteral bytes.
func shortLiteral(toks []opTok) bool {
	var lit string
	for _, t := range toks {
		switch {
		case t.kind == opSpace:
		case lit != "":
			return false
		default:
			lit = t.text
		}
	}
	return lit != "" && len(lit) <= maxLiteral && (lit[0] == '"' || lit[0] == '\'' || lit[0] >= '0' && lit[0] <= '9')
}

// join is the text of toks, without the spaces at either end.
func join(toks []opTok) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return strings.TrimSpace(b.String())
}

// sizeErr is the error value a filter returns for a result of n bytes
// or items past the bounds.
func sizeErr(n, limit int, what string) *exec.Value {
	if n >= 0 && n <= limit {
		return nil
	}
	return exec.AsValue(fmt.Errorf("%w: %s past %d", errTooLarge, what, limit))
}

// intArg is argument i (or keyword kw) of params when it is a number (the
// engine makes 10**12 a float), a float clamped to what an int holds.
func intArg(params *exec.VarArgs, i int, kw string) (int, bool) {
	v, ok := params.KwArgs[kw]
	if !ok && i < len(params.Args) {
		v, ok = params.Args[i], true
	}
	switch {
	case !ok:
		return 0, false
	case v.IsInteger():
		return v.Integer(), true
	case v.IsFloat():
		return int(max(min(v.Float(), 1<<62), -1<<62)), true
	}
	return 0, false
}

// strArg is argument i (or keyword kw) of params as a string.
func strArg(params *exec.VarArgs, i int, kw, def string) string {
	if v, ok := params.KwArgs[kw]; ok {
		return v.String()
	}
	if i < len(params.Args) {
		return params.Args[i].String()
	}
	return def
}

// boundFilter runs filter f only when est, the most bytes (or items) it
// can make of its input, is within the bounds.
func boundFilter(f exec.FilterFunction, est func(in *exec.Value, params *exec.VarArgs) *exec.Value) exec.FilterFunction {
	return func(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		if bad := est(in, params); bad != nil {
			return bad
		}
		return f(e, in, params)
	}
}

// The filters whose output grows with an argument, and what each may
// make at most.
var boundedFilters = map[string]func(in *exec.Value, params *exec.VarArgs) *exec.Value{
	"center": func(in *exec.Value, params *exec.VarArgs) *exec.Value {
		w, _ := intArg(params, 0, "width")
		return sizeErr(w, maxValue, "center's width")
	},
	"indent": func(in *exec.Value, params *exec.VarArgs) *exec.Value {
		w, ok := intArg(params, 0, "width")
		if !ok {
			w = len(strArg(params, 0, "width", ""))
		}
		s := in.String()
		lines := strings.Count(s, "\n") + 1
		if w > 0 && lines > maxValue/w {
			return sizeErr(-1, maxValue, "the indented text")
		}
		return sizeErr(len(s)+lines*max(w, 0), maxValue, "the indented text")
	},
	"join": func(in *exec.Value, params *exec.VarArgs) *exec.Value {
		if !in.IsList() {
			return nil
		}
		sep, n := strArg(params, 0, "d", ""), in.Len()
		if n > 1 && len(sep) > 0 && n-1 > maxValue/len(sep) {
			return sizeErr(-1, maxValue, "the joined text")
		}
		total := max(n-1, 0) * len(sep)
		for i := range n {
			total += len(in.Index(i).String())
			if total > maxValue {
				break
			}
		}
		return sizeErr(total, maxValue, "the joined text")
	},
	"replace": func(in *exec.Value, params *exec.VarArgs) *exec.Value {
		s, old, new := in.String(), strArg(params, 0, "old", ""), strArg(params, 1, "new", "")
		return sizeErr(grownBy(s, old, new), maxValue, "the replaced text")
	},
	"format": func(in *exec.Value, params *exec.VarArgs) *exec.Value {
		return formatErr(in.String())
	},
	"slice": func(in *exec.Value, params *exec.VarArgs) *exec.Value {
		n, _ := intArg(params, 0, "slices")
		return sizeErr(n, maxItems, "slice's count")
	},
	"batch": func(in *exec.Value, params *exec.VarArgs) *exec.Value {
		n, _ := intArg(params, 0, "linecount")
		return sizeErr(n, maxItems, "batch's size")
	},
	"wordwrap": func(in *exec.Value, params *exec.VarArgs) *exec.Value {
		// Each line break is at most one wrapstring per word.
		s := in.String()
		return sizeErr(len(s)+len(strings.Fields(s))*len(strArg(params, 2, "wrapstring", "\n")), maxValue, "the wrapped text")
	},
}

// grownBy is the length of s with each old replaced by new.
func grownBy(s, old, new string) int {
	n := strings.Count(s, old)
	if len(new) > 0 && n > maxValue/len(new) {
		return -1
	}
	return len(s) + n*len(new)
}

// formatErr refuses a format string (Python's {} or %-style) that asks
// for a field wider than maxFieldWidth, or a width taken from an argument.
func formatErr(f string) *exec.Value {
	const maxFieldWidth = 10000
	inSpec := false
	for k := 0; k < len(f); k++ {
		c := f[k]
		switch {
		case c == '%' && k+1 < len(f):
			j := k + 1
			for j < len(f) && strings.IndexByte("#0- +.123456789*", f[j]) >= 0 {
				if f[j] == '*' {
					return sizeErr(-1, maxFieldWidth, "a field width from an argument")
				}
				j++
			}
			if bad := widthsErr(f[k+1:j], maxFieldWidth); bad != nil {
				return bad
			}
			k = j
		case c == '{':
			if inSpec {
				return sizeErr(-1, maxFieldWidth, "a field width from an argument")
			}
			inSpec = k+1 < len(f) && f[k+1] != '{'
			if !inSpec {
				k++
			}
		case c == '}':
			inSpec = false
		case inSpec && c >= '0' && c <= '9':
			j := k
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
			if bad := widthsErr(f[k:j], maxFieldWidth); bad != nil {
				return bad
			}
			k = j - 1
		}
	}
	return nil
}

// widthsErr checks each run of digits in spec against limit.
func widthsErr(spec string, limit int) *exec.Value {
	for _, w := range strings.FieldsFunc(spec, func(r rune) bool { return r < '0' || r > '9' }) {
		if len(w) > 9 {
			return sizeErr(-1, limit, "a field width")
		}
		n := 0
		for _, d := range w {
			n = n*10 + int(d-'0')
		}
		if bad := sizeErr(n, limit, "a field width"); bad != nil {
			return bad
		}
	}
	return nil
}

// boundMethod runs str method f only when est, the most bytes it can
// make, is within the bounds.
func boundMethod(f exec.Method[string], est func(self string, args *exec.VarArgs) int) exec.Method[string] {
	return func(self string, v *exec.Value, args *exec.VarArgs) (any, error) {
		if n := est(self, args); n < 0 || n > maxValue {
			return nil, fmt.Errorf("%w: a string of more than %d MiB", errTooLarge, maxValue>>20)
		}
		return f(self, v, args)
	}
}

// The str methods whose result grows with an argument.
var boundedMethods = map[string]func(self string, args *exec.VarArgs) int{
	"center": widthMethod, "ljust": widthMethod, "rjust": widthMethod, "zfill": widthMethod,
	"expandtabs": func(self string, args *exec.VarArgs) int {
		n, ok := intArg(args, 0, "tabsize")
		if !ok {
			n = 8
		}
		tabs := strings.Count(self, "\t")
		if n > 0 && tabs > maxValue/n {
			return -1
		}
		return len(self) + tabs*max(n, 0)
	},
	"replace": func(self string, args *exec.VarArgs) int {
		return grownBy(self, strArg(args, 0, "old", ""), strArg(args, 1, "new", ""))
	},
	"join": func(self string, args *exec.VarArgs) int {
		if len(args.Args) == 0 || !args.Args[0].IsList() {
			return 0
		}
		l := args.Args[0]
		if n := l.Len(); n > 1 && len(self) > 0 && n-1 > maxValue/len(self) {
			return -1
		}
		total := max(l.Len()-1, 0) * len(self)
		for i := range l.Len() {
			total += len(l.Index(i).String())
			if total > maxValue {
				break
			}
		}
		return total
	},
	"format":     formatMethod,
	"format_map": formatMethod,
}

func widthMethod(self string, args *exec.VarArgs) int {
	n, _ := intArg(args, 0, "width")
	return max(n, len(self))
}

func formatMethod(self string, _ *exec.VarArgs) int {
	if formatErr(self) != nil {
		return -1
	}
	return 0
}
