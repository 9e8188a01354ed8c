package jinja

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// filterFn is a built-in filter: in is the value filtered, r nil when it
// is called from outside a render (Filter), then unbounded.
type filterFn func(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error)

// arg is positional argument i, else keyword name, else def.
func arg(args []Value, kw map[string]Value, i int, name string, def Value) Value {
	if v, ok := kw[name]; ok {
		return v
	}
	if i < len(args) {
		return args[i]
	}
	return def
}

// Filter returns the engine's own filter name as a callable taking the
// filtered value first, for a caller that wraps it.
func Filter(name string) (Value, bool) {
	f, ok := builtinFilters()[name]
	if !ok {
		return Value{}, false
	}
	return NewCallable(name, func(args []Value, kw map[string]Value) (Value, error) {
		if len(args) == 0 {
			return Value{}, typeErrorf("filter %s takes a value", name)
		}
		return f(nil, args[0], args[1:], kw)
	}), true
}

// filter finds name among the caller's filters, then the engine's.
func (r *renderer) filter(name string) (func(in Value, args []Value, kw map[string]Value) (Value, error), bool) {
	if v, ok := r.o.Filters[name]; ok && v.k == KindCallable {
		fn := v.AsCallable().Fn
		return func(in Value, args []Value, kw map[string]Value) (Value, error) {
			return fn(append([]Value{in}, args...), kw)
		}, true
	}
	if f, ok := builtinFilters()[name]; ok {
		return func(in Value, args []Value, kw map[string]Value) (Value, error) { return f(r, in, args, kw) }, true
	}
	return nil, false
}

func (r *renderer) applyFilter(sc *scope, f *eFilter, in Value) (Value, error) {
	fn, ok := r.filter(f.name)
	if !ok {
		return Value{}, runtimeErrorf("TemplateAssertionError", "no filter named '%s'", f.name)
	}
	args, kw, err := r.evalArgs(sc, &f.callArgs, nil)
	if err != nil {
		return Value{}, err
	}
	if err := r.step(); err != nil {
		return Value{}, err
	}
	if err := r.work(cost(in)); err != nil {
		return Value{}, err
	}
	return fn(in, args, kw)
}

// builtinFilters are the engine's filters, built on first use (nothing
// happens at package init: a command that renders no template does not
// pay for them).
func builtinFilters() map[string]filterFn {
	filtersOnce.Do(loadFilters)
	return filterTable
}

var (
	filterTable map[string]filterFn
	filtersOnce sync.Once
)

func loadFilters() {
	filterTable = map[string]filterFn{
		"length": fLength, "count": fLength,
		"list": func(r *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
			items, err := r.iterate(in)
			return NewList(append([]Value(nil), items...)), err
		},
		"join":    fJoin,
		"default": fDefault, "d": fDefault,
		"upper": strFilter(strings.ToUpper), "lower": strFilter(strings.ToLower),
		"capitalize": strFilter(capitalize), "title": strFilter(title),
		"trim": func(_ *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
			chars := arg(args, kw, 0, "chars", None())
			return NewString(strip(Print(in), chars, 3)), nil
		},
		"string": func(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
			if in.k == KindString {
				return in, nil
			}
			return NewString(Print(in)), nil
		},
		"safe": func(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
			return safeString(Print(in)), nil
		},
		"escape": fEscape, "e": fEscape,
		"forceescape": func(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
			return safeString(escapeHTML(Print(in))), nil
		},
		"int":   fInt,
		"float": fFloat,
		"abs": func(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
			switch in.k {
			case KindInt, KindBool:
				if in.int() < 0 {
					return NewInt(-in.int()), nil
				}
				return NewInt(in.int()), nil
			case KindFloat:
				return NewFloat(math.Abs(in.flt())), nil
			}
			return Value{}, typeErrorf("bad operand type for abs(): '%s'", typeName(in))
		},
		"round":    fRound,
		"first":    fFirst,
		"last":     fLast,
		"items":    fItems,
		"dictsort": fDictsort,
		"map":      fMap,
		"select":   selectFilter(false, false), "reject": selectFilter(true, false),
		"selectattr": selectFilter(false, true), "rejectattr": selectFilter(true, true),
		"unique":  fUnique,
		"sort":    fSort,
		"reverse": fReverse,
		"sum":     fSum,
		"min":     minMax(-1), "max": minMax(1),
		"batch":     fBatch,
		"center":    fCenter,
		"replace":   fReplace,
		"indent":    fIndent,
		"wordcount": fWordcount,
		"truncate":  fTruncate,
		"attr": func(r *renderer, in Value, args []Value, _ map[string]Value) (Value, error) {
			if len(args) == 0 {
				return Value{}, typeErrorf("attr takes a name")
			}
			// Python's getattr: a dict's keys are not its attributes.
			if in.k == KindDict {
				if m, ok := r.dictMethod(in, Print(args[0])); ok {
					return m, nil
				}
				return undefMsg("'dict object' has no attribute '" + Print(args[0]) + "'"), nil
			}
			return r.getAttr(in, Print(args[0]))
		},
		"tojson": fToJSON,
		"format": func(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
			var m Value
			if len(args) == 0 && len(kw) > 0 {
				m = NewDict()
				for _, k := range sortedKwargs(kw) {
					m.AsDict().Set(k, kw[k])
				}
			}
			s, err := percentFormat(Print(in), args, m)
			if err != nil {
				return Value{}, formatError(err)
			}
			return NewString(s), r.sized(len(s))
		},
		"slice": fSlice,
		"pprint": func(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
			return NewString(in.String()), nil
		},
		"striptags": func(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
			return NewString(stripTags(Print(in))), nil
		},
	}
}

// Not inlined: one closure body for every use, not one each.
//
//go:noinline
func strFilter(f func(string) string) filterFn {
	return func(r *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
		return NewString(f(Print(in))), nil
	}
}

func fLength(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
	switch in.k {
	case KindString:
		return NewInt(int64(utf8.RuneCountInString(in.str()))), nil
	case KindList:
		if in.fl&flagIter != 0 {
			return Value{}, typeErrorf("object of type 'generator' has no len()")
		}
		return NewInt(int64(len(in.AsList().Items))), nil
	case KindDict, kindNamespace:
		return NewInt(int64(len(in.AsDict().Keys))), nil
	case KindUndefined:
		return NewInt(0), nil
	}
	return Value{}, typeErrorf("object of type '%s' has no len()", typeName(in))
}

func fJoin(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	sep := Print(arg(args, kw, 0, "d", NewString("")))
	attr := arg(args, kw, 1, "attribute", None())
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	parts := make([]string, len(items))
	safe := false
	n := 0
	for i, it := range items {
		if attr.k != KindNone {
			if it, err = r.getItemPath(it, attr); err != nil {
				return Value{}, err
			}
		}
		if it.k == KindString && it.fl&flagSafe != 0 {
			safe = true
		}
		parts[i] = Print(it)
		n += len(parts[i]) + len(sep)
	}
	if err := r.sized(n); err != nil {
		return Value{}, err
	}
	if safe {
		for i, it := range items {
			if !(it.k == KindString && it.fl&flagSafe != 0) {
				parts[i] = escapeHTML(parts[i])
			}
		}
		return safeString(strings.Join(parts, escapeHTML(sep))), nil
	}
	return NewString(strings.Join(parts, sep)), nil
}

// getItemPath is Jinja's attribute lookup for filters: "a.b" or 0.
func (r *renderer) getItemPath(v Value, path Value) (Value, error) {
	if path.k != KindString {
		return r.getItem(v, path)
	}
	var err error
	for _, part := range strings.Split(path.str(), ".") {
		if n, e := strconv.Atoi(part); e == nil {
			v, err = r.getItem(v, NewInt(int64(n)))
		} else {
			v, err = r.getItem(v, NewString(part))
		}
		if err != nil {
			return v, err
		}
	}
	return v, nil
}

func fDefault(_ *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	def := arg(args, kw, 0, "default_value", NewString(""))
	boolean := arg(args, kw, 1, "boolean", NewBool(false))
	if in.k == KindUndefined || boolean.IsTruthy() && !in.IsTruthy() {
		return def, nil
	}
	return in, nil
}

func fEscape(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
	if in.k == KindString && in.fl&flagSafe != 0 {
		return in, nil
	}
	return safeString(escapeHTML(Print(in))), nil
}

func fInt(_ *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	def := arg(args, kw, 0, "default", NewInt(0))
	switch in.k {
	case KindUndefined:
		return Value{}, undefinedError(in)
	case KindInt, KindBool:
		return NewInt(in.int()), nil
	case KindFloat:
		if math.IsNaN(in.flt()) || math.IsInf(in.flt(), 0) {
			return def, nil
		}
		return NewInt(int64(in.flt())), nil
	case KindString:
		s := strings.TrimSpace(in.str())
		if n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64); err == nil {
			return NewInt(n), nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return NewInt(int64(f)), nil
		}
	}
	return def, nil
}

func fFloat(_ *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	def := arg(args, kw, 0, "default", NewFloat(0))
	switch in.k {
	case KindUndefined:
		return Value{}, undefinedError(in)
	case KindInt, KindBool:
		return NewFloat(float64(in.int())), nil
	case KindFloat:
		return in, nil
	case KindString:
		if f, err := strconv.ParseFloat(strings.TrimSpace(in.str()), 64); err == nil {
			return NewFloat(f), nil
		}
	}
	return def, nil
}

func fRound(_ *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	prec := arg(args, kw, 0, "precision", NewInt(0))
	method := Print(arg(args, kw, 1, "method", NewString("common")))
	x, ok := number(in)
	if !ok {
		return Value{}, typeErrorf("round needs a number, not %s", typeName(in))
	}
	if isIntLike(in) && method == "common" {
		return NewInt(in.int()), nil // Python's round keeps an int an int
	}
	p := math.Pow(10, float64(prec.int()))
	switch method {
	case "ceil":
		return NewFloat(math.Ceil(x*p) / p), nil
	case "floor":
		return NewFloat(math.Floor(x*p) / p), nil
	}
	return NewFloat(math.RoundToEven(x*p) / p), nil
}

func fFirst(r *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	if len(items) == 0 {
		return undefMsg("No first item, sequence was empty."), nil
	}
	return items[0], nil
}

func fLast(r *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
	if in.k == KindList && in.fl&flagIter != 0 {
		return undefMsg("No last item, sequence was empty."), nil
	}
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	if len(items) == 0 {
		return undefMsg("No last item, sequence was empty."), nil
	}
	return items[len(items)-1], nil
}

// sortKey is how sort, dictsort, unique and min/max compare: strs
// lowered unless case-sensitive.
// sortValues sorts items by key, stably as Python's sorted, failing as
// Python does on values that do not order.
// Not inlined: one closure body for every use, not one each.
//
// Not inlined: one closure body for every use, not one each.
//
//go:noinline
//go:noinline
func fCenter(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	w := arg(args, kw, 0, "width", NewInt(80))
	return pad(r, Print(in), int(w.int()), " ", 'c')
}

// pad is s padded to width w with fill, as Python's ljust (l), rjust (r)
// and center (c).
func pad(r *renderer, s string, w int, fill string, mode byte) (Value, error) {
	if err := r.sized(max(w, len(s))); err != nil {
		return Value{}, err
	}
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return NewString(s), nil
	}
	switch mode {
	case 'l':
		return NewString(s + strings.Repeat(fill, n)), nil
	case 'r':
		return NewString(strings.Repeat(fill, n) + s), nil
	}
	left := n / 2
	if n%2 == 1 && w%2 == 1 {
		left++
	}
	return NewString(strings.Repeat(fill, left) + s + strings.Repeat(fill, n-left)), nil
}

func fReplace(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	if len(args) < 2 {
		return Value{}, typeErrorf("replace takes an old and a new string")
	}
	s, old, nw := Print(in), Print(args[0]), Print(args[1])
	count := arg(args, kw, 2, "count", NewInt(-1))
	n := strings.Count(s, old)
	if len(nw) > 0 && n > 0 && n > (math.MaxInt32)/len(nw) {
		return Value{}, r.sized(-1)
	}
	if err := r.sized(len(s) + n*len(nw)); err != nil {
		return Value{}, err
	}
	return NewString(strings.Replace(s, old, nw, int(count.int()))), nil
}

// splitLines is Python's str.splitlines for \n, \r\n and \r.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return out
}

func fIndent(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	if in.k != KindString {
		// Jinja's indent adds "\n" to the value as it is.
		return Value{}, typeErrorf("unsupported operand type(s) for +=: '%s' and 'str'", typeName(in))
	}
	w := arg(args, kw, 0, "width", NewInt(4))
	first := arg(args, kw, 1, "first", NewBool(false)).IsTruthy()
	blank := arg(args, kw, 2, "blank", NewBool(false)).IsTruthy()
	ind := ""
	if w.k == KindString {
		ind = w.str()
	} else {
		if err := r.sized(int(w.int())); err != nil {
			return Value{}, err
		}
		ind = strings.Repeat(" ", max(int(w.int()), 0))
	}
	lines := splitLines(Print(in) + "\n")
	if len(ind) > 0 && len(lines) > math.MaxInt32/len(ind) {
		return Value{}, r.sized(-1)
	}
	if err := r.sized(len(Print(in)) + len(lines)*len(ind)); err != nil {
		return Value{}, err
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
			if blank || l != "" {
				b.WriteString(ind)
			}
		}
		b.WriteString(l)
	}
	if first {
		return NewString(ind + b.String()), nil
	}
	return NewString(b.String()), nil
}

func fWordcount(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
	n := len(strings.FieldsFunc(Print(in), func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') }))
	return NewInt(int64(n)), nil
}

func fTruncate(_ *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	s := Print(in)
	length := int(arg(args, kw, 0, "length", NewInt(255)).int())
	killwords := arg(args, kw, 1, "killwords", NewBool(false)).IsTruthy()
	end := Print(arg(args, kw, 2, "end", NewString("...")))
	leeway := int(arg(args, kw, 3, "leeway", NewInt(5)).int())
	rs := []rune(s)
	if len(rs) <= length+leeway {
		return NewString(s), nil
	}
	cut := max(length-utf8.RuneCountInString(end), 0)
	if killwords {
		return NewString(string(rs[:cut]) + end), nil
	}
	t := string(rs[:cut])
	if i := strings.LastIndexByte(t, ' '); i >= 0 {
		t = t[:i]
	}
	return NewString(t + end), nil
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + strings.ToLower(s[n:])
}

// title is Jinja's title filter: each word's first letter upper, the
// rest lower, words split at spaces, brackets and hyphens.
func title(s string) string {
	var b strings.Builder
	start := true
	for _, r := range s {
		if start {
			b.WriteRune(unicode.ToTitle(r))
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
		start = unicode.IsSpace(r) || strings.ContainsRune("-([{<", r)
	}
	return b.String()
}

// strip is str.strip (3), lstrip (1) or rstrip (2) with chars None
// meaning whitespace.
func strip(s string, chars Value, side int) string {
	cut := unicode.IsSpace
	if chars.k == KindString {
		set := chars.str()
		cut = func(r rune) bool { return strings.ContainsRune(set, r) }
	}
	if side&1 != 0 {
		s = strings.TrimLeftFunc(s, cut)
	}
	if side&2 != 0 {
		s = strings.TrimRightFunc(s, cut)
	}
	return s
}

// fSlice is Jinja's slice filter: the items cut into n columns, the first
// ones one longer, padded with fill_with when given.
