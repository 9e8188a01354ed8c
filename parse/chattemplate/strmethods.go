package chattemplate

import (
	"errors"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/jinja"
)

// strMethod gives the str methods templates call with Python's meaning,
// where the engine has none or a different one, those whose result grows
// with an argument checked first. ok false leaves the name to the engine.
func (g *guard) strMethod(s, name string) (jinja.Value, bool) {
	fn, ok := strMethods()[name]
	if !ok {
		return jinja.Value{}, false
	}
	return jinja.NewCallable("str."+name, func(a args, kw kwargs) (jinja.Value, error) {
		return fn(g, s, a, kw)
	}), true
}

type strMethodFunc func(g *guard, s string, a args, kw kwargs) (jinja.Value, error)

// strMethods is built on first use (nothing happens at package init).
var strMethods = sync.OnceValue(func() map[string]strMethodFunc {
	str := func(f func(s string) string) strMethodFunc {
		return func(_ *guard, s string, _ args, _ kwargs) (jinja.Value, error) { return jinja.NewString(f(s)), nil }
	}
	is := func(f func(r rune) bool) strMethodFunc {
		return func(_ *guard, s string, _ args, _ kwargs) (jinja.Value, error) {
			return jinja.NewBool(s != "" && strings.IndexFunc(s, func(r rune) bool { return !f(r) }) < 0), nil
		}
	}
	affix := func(has func(s, affix string) bool) strMethodFunc {
		return func(_ *guard, s string, a args, kw kwargs) (jinja.Value, error) {
			if len(a) == 0 {
				return jinja.Undefined(), errors.New("takes one argument, a string or a tuple of strings")
			}
			if len(a) > 1 {
				if n, ok := intOf(a[1]); ok {
					s = runeSlice(s, n, utf8.RuneCountInString(s))
				}
			}
			if a[0].IsList() {
				for _, it := range a[0].AsList().Items {
					if has(s, printed(it)) {
						return jinja.NewBool(true), nil
					}
				}
				return jinja.NewBool(false), nil
			}
			return jinja.NewBool(has(s, printed(a[0]))), nil
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
		"isupper": func(_ *guard, s string, _ args, _ kwargs) (jinja.Value, error) {
			return jinja.NewBool(strings.IndexFunc(s, unicode.IsUpper) >= 0 && strings.IndexFunc(s, unicode.IsLower) < 0), nil
		},
		"islower": func(_ *guard, s string, _ args, _ kwargs) (jinja.Value, error) {
			return jinja.NewBool(strings.IndexFunc(s, unicode.IsLower) >= 0 && strings.IndexFunc(s, unicode.IsUpper) < 0), nil
		},
		"split":  splitMethod(false),
		"rsplit": splitMethod(true),
		"splitlines": func(_ *guard, s string, a args, kw kwargs) (jinja.Value, error) {
			keep := false
			if v, ok := arg(a, kw, 0, "keepends"); ok {
				keep = v.IsTruthy()
			}
			var out []jinja.Value
			for s != "" {
				i := strings.IndexAny(s, "\n\r")
				if i < 0 {
					out = append(out, jinja.NewString(s))
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
				out = append(out, jinja.NewString(line))
				s = s[i+n:]
			}
			return jinja.NewList(out), nil
		},
		"partition":  partition(strings.Index),
		"rpartition": partition(strings.LastIndex),
		"removeprefix": func(_ *guard, s string, a args, _ kwargs) (jinja.Value, error) {
			if len(a) == 0 {
				return jinja.NewString(s), nil
			}
			return jinja.NewString(strings.TrimPrefix(s, printed(a[0]))), nil
		},
		"removesuffix": func(_ *guard, s string, a args, _ kwargs) (jinja.Value, error) {
			if len(a) == 0 {
				return jinja.NewString(s), nil
			}
			return jinja.NewString(strings.TrimSuffix(s, printed(a[0]))), nil
		},
		"rfind": func(_ *guard, s string, a args, _ kwargs) (jinja.Value, error) {
			if len(a) == 0 {
				return jinja.NewInt(-1), nil
			}
			i := strings.LastIndex(s, printed(a[0]))
			if i > 0 {
				i = utf8.RuneCountInString(s[:i])
			}
			return jinja.NewInt(int64(i)), nil
		},
		"zfill": func(g *guard, s string, a args, kw kwargs) (jinja.Value, error) {
			v, _ := arg(a, kw, 0, "width")
			w, _ := intOf(v)
			if err := g.size(max(w, len(s))); err != nil {
				return jinja.Undefined(), err
			}
			n := w - utf8.RuneCountInString(s)
			if n <= 0 {
				return jinja.NewString(s), nil
			}
			sign := ""
			if s != "" && (s[0] == '-' || s[0] == '+') {
				sign, s = s[:1], s[1:]
			}
			return jinja.NewString(sign + strings.Repeat("0", n) + s), nil
		},
		"expandtabs": func(g *guard, s string, a args, kw kwargs) (jinja.Value, error) {
			n := 8
			if v, ok := arg(a, kw, 0, "tabsize"); ok {
				n, _ = intOf(v)
			}
			tabs := strings.Count(s, "\t")
			if n > 0 && tabs > maxValue/n {
				return jinja.Undefined(), g.size(-1)
			}
			if err := g.size(len(s) + tabs*max(n, 0)); err != nil {
				return jinja.Undefined(), err
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
			return jinja.NewString(b.String()), nil
		},
		"format": func(g *guard, s string, a args, kw kwargs) (jinja.Value, error) {
			out, err := braceFormat(s, a, kw)
			if err != nil {
				return jinja.Undefined(), err
			}
			return jinja.NewString(out), g.size(len(out))
		},
		"format_map": func(g *guard, s string, a args, _ kwargs) (jinja.Value, error) {
			m := kwargs{}
			if len(a) > 0 && a[0].IsDict() {
				for _, k := range a[0].AsDict().Keys {
					m[k] = a[0].AsDict().Data[k]
				}
			}
			out, err := braceFormat(s, nil, m)
			if err != nil {
				return jinja.Undefined(), err
			}
			return jinja.NewString(out), g.size(len(out))
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
	return func(_ *guard, s string, a args, _ kwargs) (jinja.Value, error) {
		if len(a) == 0 || printed(a[0]) == "" {
			return jinja.Undefined(), errors.New("partition takes a non-empty separator")
		}
		sep := printed(a[0])
		i := find(s, sep)
		if i < 0 {
			if find(s, "") == 0 { // partition
				return strList(s, "", ""), nil
			}
			return strList("", "", s), nil
		}
		return strList(s[:i], sep, s[i+len(sep):]), nil
	}
}

func strList(parts ...string) jinja.Value {
	items := make([]jinja.Value, len(parts))
	for i, p := range parts {
		items[i] = jinja.NewString(p)
	}
	return jinja.NewList(items)
}

// splitMethod is str.split (str.rsplit with right) with Python's
// arguments: sep None splits on runs of whitespace; maxsplit.
func splitMethod(right bool) strMethodFunc {
	return func(_ *guard, s string, a args, kw kwargs) (jinja.Value, error) {
		sep, hasSep := arg(a, kw, 0, "sep")
		limit := -1
		if v, ok := arg(a, kw, 1, "maxsplit"); ok {
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
					return strList(append([]string{rest}, fields[len(fields)-limit:]...)...), nil
				}
				rest := strings.TrimLeftFunc(s, unicode.IsSpace)
				for range limit {
					i := strings.IndexFunc(rest, unicode.IsSpace)
					rest = strings.TrimLeftFunc(rest[i:], unicode.IsSpace)
				}
				return strList(append(fields[:limit:limit], rest)...), nil
			}
			return strList(fields...), nil
		}
		p := printed(sep)
		if p == "" {
			return jinja.Undefined(), errors.New("empty separator")
		}
		if limit < 0 {
			return strList(strings.Split(s, p)...), nil
		}
		if !right {
			return strList(strings.SplitN(s, p, limit+1)...), nil
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
		return strList(append([]string{s}, parts...)...), nil
	}
}
