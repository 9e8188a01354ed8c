package jinja

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxPrintDepth bounds how deep a list or dict is printed or compared: a
// value can hold itself (l.append(l)), and no real one nests this deep.
const maxPrintDepth = 400

// maxPrinted bounds the text of one printed list or dict.
const maxPrinted = 16 << 20

// Print is what {{ v }} writes: Python's str(v), undefined as nothing.
func Print(v Value) string {
	switch v.k {
	case KindString:
		return v.str()
	case KindUndefined:
		return ""
	}
	var b strings.Builder
	writeRepr(&b, v, false, nil)
	return b.String()
}

// String is Python's repr(v).
func (v Value) String() string {
	var b strings.Builder
	writeRepr(&b, v, true, nil)
	return b.String()
}

// writeRepr writes str(v) (repr(v) when quote): a list or dict prints its
// items as repr, and one met again inside itself as [...] or {...}, as
// Python does.
func writeRepr(b *strings.Builder, v Value, quote bool, seen []any) {
	if b.Len() > maxPrinted {
		return
	}
	switch v.k {
	case KindUndefined:
		if !quote {
			return
		}
		b.WriteString("Undefined")
	case KindNone:
		b.WriteString("None")
	case KindBool:
		if v.int() != 0 {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case KindInt:
		b.WriteString(strconv.FormatInt(v.int(), 10))
	case KindFloat:
		b.WriteString(formatFloat(v.flt()))
	case KindString:
		if !quote {
			b.WriteString(v.str())
		} else if v.fl&flagSafe != 0 {
			b.WriteString("Markup(")
			writeQuoted(b, v.str())
			b.WriteByte(')')
		} else {
			writeQuoted(b, v.str())
		}
	case KindList:
		l := v.AsList()
		if v.fl&flagIter != 0 {
			b.WriteString("<generator object at 0x7f0000000000>")
			return
		}
		if v.fl&flagRange != 0 {
			b.WriteString("range(" + strconv.FormatInt(l.rng[0], 10) + ", " + strconv.FormatInt(l.rng[1], 10))
			if l.rng[2] != 1 {
				b.WriteString(", " + strconv.FormatInt(l.rng[2], 10))
			}
			b.WriteByte(')')
			return
		}
		open, end := "[", "]"
		if v.fl&flagTuple != 0 {
			open, end = "(", ")"
		}
		if in(seen, l) || len(seen) >= maxPrintDepth {
			b.WriteString(open + "..." + end)
			return
		}
		seen = append(seen, l)
		b.WriteString(open)
		for i, it := range l.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it, true, seen)
			if b.Len() > maxPrinted {
				return
			}
		}
		if len(l.Items) == 1 && v.fl&flagTuple != 0 {
			b.WriteByte(',')
		}
		b.WriteString(end)
	case KindDict, kindNamespace:
		d := v.AsDict()
		if v.k == kindNamespace {
			b.WriteString("<Namespace ")
			defer b.WriteString(">")
		}
		if in(seen, d) || len(seen) >= maxPrintDepth {
			b.WriteString("{...}")
			return
		}
		seen = append(seen, d)
		b.WriteByte('{')
		for i, k := range d.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, d.keyOf(k), true, seen)
			b.WriteString(": ")
			writeRepr(b, d.Data[k], true, seen)
			if b.Len() > maxPrinted {
				return
			}
		}
		b.WriteByte('}')
	case KindCallable:
		b.WriteString("<function " + v.AsCallable().Name + ">")
	case kindLoop:
		b.WriteString("<LoopContext>")
	}
}

func in(seen []any, p any) bool {
	for _, s := range seen {
		if s == p {
			return true
		}
	}
	return false
}

// writeQuoted writes s as Python's repr of a str: single quotes unless s
// holds one and no double quote.
func writeQuoted(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(int(r)))
		case r < 0x80 || isPrintable(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + hex2(int(r)))
		case r < 0x10000:
			b.WriteString(`\u` + hex2(int(r)>>8) + hex2(int(r)&0xff))
		default:
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(`\U` + strings.Repeat("0", 8-len(h)) + h)
		}
	}
	b.WriteByte(q)
}

func hex2(n int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[n>>4&0xf], digits[n&0xf]})
}

// isPrintable approximates Python's str.isprintable for one rune.
func isPrintable(r rune) bool {
	if r == utf8.RuneError {
		return true
	}
	if unicode.Is(unicode.Zs, r) {
		return false
	}
	return unicode.IsPrint(r)
}

// formatFloat is Python's repr of a float: the shortest digits that read
// back, in fixed notation from 1e-4 up to 1e16, else as 1e+16.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= 16 {
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		out += "e" + sign + es
	} else if exp < 0 {
		out = "0." + strings.Repeat("0", -exp-1) + digits
	} else if exp+1 >= len(digits) {
		out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	} else {
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		out = "-" + out
	}
	return out
}

// Equals is Python's ==: 1 == 1.0 == True, lists and dicts item by item.
func (v Value) Equals(w Value) bool { return equal(v, w, 0, nil) }

// equal is v == w; work, when not nil, counts the items compared.
func equal(v, w Value, depth int, work *int) bool {
	if depth > maxPrintDepth {
		return false
	}
	if work != nil {
		*work++
	}
	if v.k == KindInt && w.k == KindInt {
		return v.int() == w.int()
	}
	if n, ok := number(v); ok {
		if m, ok := number(w); ok {
			return n == m
		}
		return false
	}
	switch v.k {
	case KindUndefined, KindNone:
		return w.k == v.k
	case KindString:
		return w.k == KindString && v.str() == w.str()
	case KindList:
		if w.k != KindList || (v.fl&(flagTuple|flagRange)) != (w.fl&(flagTuple|flagRange)) {
			return false
		}
		a, b := v.AsList(), w.AsList()
		if a == b {
			return true
		}
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !equal(a.Items[i], b.Items[i], depth+1, work) {
				return false
			}
		}
		return true
	case KindDict, kindNamespace:
		if w.k != v.k {
			return false
		}
		a, b := v.AsDict(), w.AsDict()
		if a == b {
			return true
		}
		if len(a.Keys) != len(b.Keys) {
			return false
		}
		for k, x := range a.Data {
			y, ok := b.Data[k]
			if !ok || !equal(x, y, depth+1, work) {
				return false
			}
		}
		return true
	case KindCallable:
		return w.k == KindCallable && v.p == w.p
	}
	return false
}

// number is v as a float when it is a bool, int or float.
func number(v Value) (float64, bool) {
	switch v.k {
	case KindBool, KindInt:
		return float64(v.int()), true
	case KindFloat:
		return v.flt(), true
	}
	return 0, false
}
