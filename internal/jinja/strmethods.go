package jinja

import (
	"errors"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// pyStrMethod gives the rest of Python's str methods templates call (see
// methods.go for the common ones), those whose result grows with an
// argument sized first.
func (r *renderer) pyStrMethod(s, name string) (Value, bool) {
	fn, ok := strMethods()[name]
	if !ok {
		return Value{}, false
	}
	return NewCallable("str."+name, func(a []Value, kw map[string]Value) (Value, error) {
		return fn(r, s, a, kw)
	}), true
}

type strMethodFunc func(r *renderer, s string, a []Value, kw map[string]Value) (Value, error)

// strMethods is built on first use (nothing happens at package init).
var strMethods = sync.OnceValue(func() map[string]strMethodFunc {
	str := func(f func(s string) string) strMethodFunc {
		return func(_ *renderer, s string, _ []Value, _ map[string]Value) (Value, error) { return NewString(f(s)), nil }
	}
	is := func(f func(r rune) bool) strMethodFunc {
		return func(_ *renderer, s string, _ []Value, _ map[string]Value) (Value, error) {
			return NewBool(s != "" && strings.IndexFunc(s, func(r rune) bool { return !f(r) }) < 0), nil
		}
	}
	affix := func(has func(s, affix string) bool) strMethodFunc {
		return func(_ *renderer, s string, a []Value, kw map[string]Value) (Value, error) {
			if len(a) == 0 {
				return Undefined(), errors.New("takes one argument, a string or a tuple of strings")
			}
			if len(a) > 1 {
				if n, ok := intOf(a[1]); ok {
					s = runeSlice(s, n, utf8.RuneCountInString(s))
				}
			}
			if a[0].IsList() {
				for _, it := range a[0].AsList().Items {
					if has(s, Print(it)) {
						return NewBool(true), nil
					}
				}
				return NewBool(false), nil
			}
			return NewBool(has(s, Print(a[0]))), nil
		}
	}
	return map[string]strMethodFunc{
		"startswith": affix(strings.HasPrefix),
		"endswith":   affix(strings.HasSuffix),
		"title":      str(pyTitle),
		"swapcase": str(func(s string) string {
			return strings.Map(func(r rune) rune {
				if unicode.IsUpper(r) {
					return unicode.ToLower(r)
				}
				return unicode.ToUpper(r)
			}, s)
		}),
		"casefold":  str(strings.ToLower),
		"isdigit":   is(unicode.IsDigit),
		"isdecimal": is(unicode.IsDigit),
		"isnumeric": is(unicode.IsNumber),
		"isalpha":   is(unicode.IsLetter),
		"isalnum":   is(func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }),
		"isspace":   is(unicode.IsSpace),
		"isupper": func(_ *renderer, s string, _ []Value, _ map[string]Value) (Value, error) {
			return NewBool(strings.IndexFunc(s, unicode.IsUpper) >= 0 && strings.IndexFunc(s, unicode.IsLower) < 0), nil
		},
		"islower": func(_ *renderer, s string, _ []Value, _ map[string]Value) (Value, error) {
			return NewBool(strings.IndexFunc(s, unicode.IsLower) >= 0 && strings.IndexFunc(s, unicode.IsUpper) < 0), nil
		},
		"split":  splitMethod(false),
		"rsplit": splitMethod(true),
		"splitlines": func(_ *renderer, s string, a []Value, kw map[string]Value) (Value, error) {
			keep := false
			if v, ok := argOK(a, kw, 0, "keepends"); ok {
				keep = v.IsTruthy()
			}
			var out []Value
			for s != "" {
				i := strings.IndexAny(s, "\n\r")
				if i < 0 {
					out = append(out, NewString(s))
					break
				}
				n := 1
				if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
					n = 2
				}
				line := s[:i]
				if keep {
					line = s[:i+n]
				}
				out = append(out, NewString(line))
				s = s[i+n:]
			}
			return NewList(out), nil
		},
		"partition":  partition(strings.Index),
		"rpartition": partition(strings.LastIndex),
		"removeprefix": func(_ *renderer, s string, a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 {
				return NewString(s), nil
			}
			return NewString(strings.TrimPrefix(s, Print(a[0]))), nil
		},
		"removesuffix": func(_ *renderer, s string, a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 {
				return NewString(s), nil
			}
			return NewString(strings.TrimSuffix(s, Print(a[0]))), nil
		},
		"rfind": func(_ *renderer, s string, a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 {
				return NewInt(-1), nil
			}
			i := strings.LastIndex(s, Print(a[0]))
			if i > 0 {
				i = utf8.RuneCountInString(s[:i])
			}
			return NewInt(int64(i)), nil
		},
		"zfill": func(r *renderer, s string, a []Value, kw map[string]Value) (Value, error) {
			v, _ := argOK(a, kw, 0, "width")
			w, _ := intOf(v)
			if err := r.sized(max(w, len(s))); err != nil {
				return Undefined(), err
			}
			n := w - utf8.RuneCountInString(s)
			if n <= 0 {
				return NewString(s), nil
			}
			sign := ""
			if s != "" && (s[0] == '-' || s[0] == '+') {
				sign, s = s[:1], s[1:]
			}
			return NewString(sign + strings.Repeat("0", n) + s), nil
		},
		"expandtabs": func(r *renderer, s string, a []Value, kw map[string]Value) (Value, error) {
			n := 8
			if v, ok := argOK(a, kw, 0, "tabsize"); ok {
				n, _ = intOf(v)
			}
			tabs := strings.Count(s, "\t")
			if n > 0 && tabs > math.MaxInt32/n {
				return Undefined(), r.sized(-1)
			}
			if err := r.sized(len(s) + tabs*max(n, 0)); err != nil {
				return Undefined(), err
			}
			var b strings.Builder
			col := 0
			for _, r := range s {
				switch r {
				case '\t':
					if n > 0 {
						k := n - col%n
						b.WriteString(strings.Repeat(" ", k))
						col += k
					}
				case '\n', '\r':
					b.WriteRune(r)
					col = 0
				default:
					b.WriteRune(r)
					col++
				}
			}
			return NewString(b.String()), nil
		},
		"format": func(r *renderer, s string, a []Value, kw map[string]Value) (Value, error) {
			out, err := braceFormat(s, a, kw)
			if err != nil {
				return Undefined(), formatError(err)
			}
			return NewString(out), r.sized(len(out))
		},
		"format_map": func(r *renderer, s string, a []Value, _ map[string]Value) (Value, error) {
			m := map[string]Value{}
			if len(a) > 0 && a[0].IsDict() {
				for _, k := range a[0].AsDict().Keys {
					m[k] = a[0].AsDict().Data[k]
				}
			}
			out, err := braceFormat(s, nil, m)
			if err != nil {
				return Undefined(), formatError(err)
			}
			return NewString(out), r.sized(len(out))
		},
	}
})

// pyTitle is Python's str.title: each run of letters capitalised.
func pyTitle(s string) string {
	var b strings.Builder
	prev := false
	for _, r := range s {
		if unicode.IsLetter(r) {
			if prev {
				b.WriteRune(unicode.ToLower(r))
			} else {
				b.WriteRune(unicode.ToTitle(r))
			}
			prev = true
			continue
		}
		prev = false
		b.WriteRune(r)
	}
	return b.String()
}

func runeSlice(s string, from, to int) string {
	r := []rune(s)
	from = min(max(from, 0), len(r))
	to = min(max(to, from), len(r))
	return string(r[from:to])
}

func partition(find func(s, sep string) int) strMethodFunc {
	return func(_ *renderer, s string, a []Value, _ map[string]Value) (Value, error) {
		if len(a) == 0 || Print(a[0]) == "" {
			return Undefined(), errors.New("partition takes a non-empty separator")
		}
		sep := Print(a[0])
		i := find(s, sep)
		if i < 0 {
			if find(s, "") == 0 { // partition
				return strTuple(s, "", ""), nil
			}
			return strTuple("", "", s), nil
		}
		return strTuple(s[:i], sep, s[i+len(sep):]), nil
	}
}

func strParts(parts ...string) Value {
	items := make([]Value, len(parts))
	for i, p := range parts {
		items[i] = NewString(p)
	}
	return NewList(items)
}

// splitMethod is str.split (str.rsplit with right) with Python's
// arguments: sep None splits on runs of whitespace; maxsplit.
func splitMethod(right bool) strMethodFunc {
	return func(_ *renderer, s string, a []Value, kw map[string]Value) (Value, error) {
		sep, hasSep := argOK(a, kw, 0, "sep")
		limit := -1
		if v, ok := argOK(a, kw, 1, "maxsplit"); ok {
			limit, _ = intOf(v)
		}
		if !hasSep || sep.IsNone() {
			fields := strings.FieldsFunc(s, unicode.IsSpace)
			if limit >= 0 && len(fields) > limit+1 {
				// Keep the rest as it is, from the first field past the limit.
				if right {
					rest := strings.TrimRightFunc(s, unicode.IsSpace)
					for range limit {
						i := strings.LastIndexFunc(rest, unicode.IsSpace)
						rest = strings.TrimRightFunc(rest[:i], unicode.IsSpace)
					}
					return strParts(append([]string{rest}, fields[len(fields)-limit:]...)...), nil
				}
				rest := strings.TrimLeftFunc(s, unicode.IsSpace)
				for range limit {
					i := strings.IndexFunc(rest, unicode.IsSpace)
					rest = strings.TrimLeftFunc(rest[i:], unicode.IsSpace)
				}
				return strParts(append(fields[:limit:limit], rest)...), nil
			}
			return strParts(fields...), nil
		}
		p := Print(sep)
		if p == "" {
			return Undefined(), errors.New("empty separator")
		}
		if limit < 0 {
			return strParts(strings.Split(s, p)...), nil
		}
		if !right {
			return strParts(strings.SplitN(s, p, limit+1)...), nil
		}
		var parts []string
		for range limit {
			i := strings.LastIndex(s, p)
			if i < 0 {
				break
			}
			parts = append([]string{s[i+len(p):]}, parts...)
			s = s[:i]
		}
		return strParts(append([]string{s}, parts...)...), nil
	}
}

// argOK is positional argument i, else keyword name, and whether either
// was given.
func argOK(a []Value, kw map[string]Value, i int, name string) (Value, bool) {
	if v, ok := kw[name]; ok {
		return v, true
	}
	if i < len(a) {
		return a[i], true
	}
	return Undefined(), false
}

// intOf is v as an int when it is a number (a float clamped to what an
// int holds).
func intOf(v Value) (int, bool) {
	switch v.k {
	case KindInt, KindBool:
		return int(max(min(v.int(), 1<<62), -1<<62)), true
	case KindFloat:
		return int(max(min(v.flt(), 1<<62), -1<<62)), true
	}
	return 0, false
}

// strTuple is a tuple of strs, as partition returns.
func strTuple(parts ...string) Value {
	v := strParts(parts...)
	v.fl |= flagTuple
	return v
}
