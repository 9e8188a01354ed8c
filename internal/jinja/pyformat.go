package jinja

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxFieldWidth bounds a field's width or precision in a format string
// (Python's % and str.format): no template pads a field wider.
const maxFieldWidth = 10000

var errFormat = errors.New("format")

// formatError is a failed format as Python raises it: a TypeError, or
// the width past the bound as it is.
func formatError(err error) error {
	if err == nil || errors.Is(err, ErrTooLarge) {
		return err
	}
	return typeErrorf("%s", strings.TrimPrefix(err.Error(), "format: "))
}

// percentFormat is Python's format % values: values positional, or m, a
// dict, for %(name)s. Conversions s r d i f F e E g G x X o c and %%.
func percentFormat(f string, values []Value, m Value) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(f) {
			return "", fmt.Errorf("%w: incomplete format", errFormat)
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		var v Value
		haveV := false
		if f[i] == '(' {
			end := strings.IndexByte(f[i:], ')')
			if end < 0 || !m.IsDict() {
				return "", fmt.Errorf("%w: format requires a mapping", errFormat)
			}
			v, _ = m.AsDict().Get(f[i+1 : i+end])
			haveV = true
			i += end + 1
		}
		spec := fieldSpec{align: '>', fill: ' ', prec: -1}
		for ; i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0; i++ {
			switch f[i] {
			case '-':
				spec.align = '<'
			case '+', ' ':
				spec.sign = f[i]
			case '#':
				spec.alt = true
			case '0':
				spec.zero = true
			}
		}
		var err error
		if i, spec.width, err = digits(f, i); err != nil {
			return "", err
		}
		if i < len(f) && f[i] == '.' {
			if i, spec.prec, err = digits(f, i+1); err != nil {
				return "", err
			}
		}
		if i >= len(f) {
			return "", fmt.Errorf("%w: incomplete format", errFormat)
		}
		if !haveV {
			if next >= len(values) {
				return "", fmt.Errorf("%w: not enough arguments for format string", errFormat)
			}
			v = values[next]
			next++
		}
		s, err := convert(v, f[i], spec)
		if err != nil {
			return "", err
		}
		if spec.zero && spec.align == '>' && strings.IndexByte("dioxXeEfFgG", f[i]) >= 0 {
			spec.fill, spec.align = '0', '='
		}
		b.WriteString(spec.pad(s))
	}
	if !m.IsDict() && next < len(values) {
		return "", fmt.Errorf("%w: not all arguments converted during string formatting", errFormat)
	}
	return b.String(), nil
}

// digits reads a run of digits at f[i:], bounded by maxFieldWidth; '*'
// (a width from an argument) is refused.
func digits(f string, i int) (int, int, error) {
	if i < len(f) && f[i] == '*' {
		return i, 0, fmt.Errorf("%w: a field width from an argument", ErrTooLarge)
	}
	n, start := 0, i
	for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
		n = n*10 + int(f[i]-'0')
		if n > maxFieldWidth {
			return i, 0, fmt.Errorf("%w: a field width past %d", ErrTooLarge, maxFieldWidth)
		}
	}
	if i == start {
		return i, -1, nil
	}
	return i, n, nil
}

// fieldSpec is what a conversion asks for besides its type.
type fieldSpec struct {
	fill      rune
	align     byte // < > ^ =
	sign      byte
	alt, zero bool
	width     int // -1 for none
	prec      int // -1 for none
	comma     bool
}

func (s fieldSpec) pad(v string) string {
	n := utf8.RuneCountInString(v)
	if s.width <= n {
		return v
	}
	fill := strings.Repeat(string(s.fill), s.width-n)
	switch s.align {
	case '<':
		return v + fill
	case '^':
		l := (s.width - n) / 2
		return strings.Repeat(string(s.fill), l) + v + strings.Repeat(string(s.fill), s.width-n-l)
	case '=':
		if v != "" && (v[0] == '-' || v[0] == '+' || v[0] == ' ') {
			return v[:1] + fill + v[1:]
		}
	}
	return fill + v
}

// convert formats v for one conversion type.
func convert(v Value, verb byte, s fieldSpec) (string, error) {
	num := func() (float64, bool, error) {
		switch {
		case v.IsInt():
			return float64(v.AsInt()), true, nil
		case v.IsBool():
			n, _ := intOf(v)
			return float64(n), true, nil
		case v.IsFloat():
			return v.AsFloat(), false, nil
		}
		return 0, false, fmt.Errorf("%w: %%%c needs a number", errFormat, verb)
	}
	signed := func(str string, neg bool) string {
		switch {
		case neg:
			return "-" + str
		case s.sign == '+':
			return "+" + str
		case s.sign == ' ':
			return " " + str
		}
		return str
	}
	switch verb {
	case 's':
		str := Print(v)
		if v.IsUndefined() {
			str = ""
		}
		if s.prec >= 0 && utf8.RuneCountInString(str) > s.prec {
			str = string([]rune(str)[:s.prec])
		}
		return str, nil
	case 'r':
		return v.String(), nil
	case 'd', 'i', 'x', 'X', 'o':
		f, isInt, err := num()
		if err != nil {
			return "", err
		}
		var n int64
		if isInt {
			n, _ = toInt64(v)
		} else {
			n = int64(f)
		}
		neg := n < 0
		if neg {
			n = -n
		}
		base := map[byte]int{'d': 10, 'i': 10, 'x': 16, 'X': 16, 'o': 8}[verb]
		str := strconv.FormatInt(n, base)
		if verb == 'X' {
			str = strings.ToUpper(str)
		}
		if s.comma {
			str = groupThousands(str)
		}
		if s.alt && base != 10 {
			str = map[byte]string{'x': "0x", 'X': "0X", 'o': "0o"}[verb] + str
		}
		return signed(str, neg), nil
	case 'f', 'F', 'e', 'E', 'g', 'G', '%':
		f, _, err := num()
		if err != nil {
			return "", err
		}
		prec := s.prec
		if prec < 0 {
			prec = 6
		}
		if verb == '%' {
			f *= 100
		}
		neg := f < 0
		if neg {
			f = -f
		}
		var str string
		switch verb {
		case 'f', 'F', '%':
			str = strconv.FormatFloat(f, 'f', prec, 64)
		case 'e', 'E':
			str = strconv.FormatFloat(f, 'e', prec, 64)
		default:
			str = strconv.FormatFloat(f, 'g', max(prec, 1), 64)
		}
		if verb == 'E' || verb == 'G' {
			str = strings.ToUpper(str)
		}
		if s.comma {
			intPart, frac, _ := strings.Cut(str, ".")
			str = groupThousands(intPart)
			if frac != "" {
				str += "." + frac
			}
		}
		if verb == '%' {
			str += "%"
		}
		return signed(str, neg), nil
	case 'c':
		if n, ok := toInt64(v); ok {
			return string(rune(n)), nil
		}
		return Print(v), nil
	}
	return "", fmt.Errorf("%w: unsupported format character %q", errFormat, verb)
}

func toInt64(v Value) (int64, bool) {
	n, ok := intOf(v)
	return int64(n), ok
}

func groupThousands(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// braceFormat is Python's str.format: {} {0} {name} {name.attr} {0[key]}
// with a spec [[fill]align][sign][#][0][width][,][.precision][type].
func braceFormat(f string, a []Value, kw map[string]Value) (string, error) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == '}' {
			if i+1 < len(f) && f[i+1] == '}' {
				i++
			}
			b.WriteByte('}')
			continue
		}
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(f) && f[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		end := strings.IndexByte(f[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("%w: single '{' encountered in format string", errFormat)
		}
		field := f[i+1 : i+end]
		i += end
		name, spec, _ := strings.Cut(field, ":")
		name, conv, _ := strings.Cut(name, "!")
		if strings.ContainsAny(spec, "{") {
			return "", fmt.Errorf("%w: a field width from an argument", ErrTooLarge)
		}
		head := name
		if k := strings.IndexAny(head, ".["); k >= 0 {
			head = head[:k]
		}
		var v Value
		switch n, err := strconv.Atoi(head); {
		case head == "":
			if auto >= len(a) {
				return "", fmt.Errorf("%w: replacement index %d out of range", errFormat, auto)
			}
			v = a[auto]
			auto++
		case err == nil:
			if n >= len(a) {
				return "", fmt.Errorf("%w: replacement index %d out of range", errFormat, n)
			}
			v = a[n]
		default:
			var ok bool
			if v, ok = kw[head]; !ok {
				return "", fmt.Errorf("%w: no argument %q", errFormat, head)
			}
		}
		v = lookupPath(v, name[len(head):])
		if conv == "r" {
			v = NewString(v.String())
		}
		s, err := formatSpec(v, spec)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// lookupPath follows .attr and [key] after a field's name.
func lookupPath(v Value, path string) Value {
	for path != "" {
		var key string
		switch path[0] {
		case '.':
			path = path[1:]
			k := strings.IndexAny(path, ".[")
			if k < 0 {
				k = len(path)
			}
			key, path = path[:k], path[k:]
		case '[':
			k := strings.IndexByte(path, ']')
			if k < 0 {
				return Undefined()
			}
			key, path = path[1:k], path[k+1:]
		default:
			return Undefined()
		}
		switch {
		case v.IsDict():
			v, _ = v.AsDict().Get(key)
		case v.IsList():
			n, err := strconv.Atoi(key)
			if err != nil || n < 0 || n >= v.AsList().Len() {
				return Undefined()
			}
			v = v.AsList().Items[n]
		default:
			return Undefined()
		}
	}
	return v
}

// formatSpec formats v with a str.format spec.
func formatSpec(v Value, spec string) (string, error) {
	s := fieldSpec{fill: ' ', width: -1, prec: -1}
	if r, n := utf8.DecodeRuneInString(spec); n > 0 && n < len(spec) && strings.IndexByte("<>^=", spec[n]) >= 0 {
		s.fill, s.align, spec = r, spec[n], spec[n+1:]
	} else if spec != "" && strings.IndexByte("<>^=", spec[0]) >= 0 {
		s.align, spec = spec[0], spec[1:]
	}
	if spec != "" && strings.IndexByte("+- ", spec[0]) >= 0 {
		s.sign, spec = spec[0], spec[1:]
	}
	if spec != "" && spec[0] == '#' {
		s.alt, spec = true, spec[1:]
	}
	if spec != "" && spec[0] == '0' {
		s.zero, spec = true, spec[1:]
	}
	i, w, err := digits(spec, 0)
	if err != nil {
		return "", err
	}
	s.width, spec = w, spec[i:]
	if spec != "" && (spec[0] == ',' || spec[0] == '_') {
		s.comma, spec = true, spec[1:]
	}
	if spec != "" && spec[0] == '.' {
		if i, s.prec, err = digits(spec, 1); err != nil {
			return "", err
		}
		spec = spec[i:]
	}
	verb := byte(0)
	if spec != "" {
		verb, spec = spec[0], spec[1:]
	}
	if spec != "" {
		return "", fmt.Errorf("%w: invalid format specifier", errFormat)
	}
	numeric := v.IsInt() || v.IsFloat() || v.IsBool()
	if s.align == 0 {
		s.align = '<'
		if numeric {
			s.align = '>'
		}
		if s.zero {
			s.fill, s.align = '0', '='
		}
	}
	var str string
	switch {
	case verb == 0 && !numeric, verb == 's':
		str, err = convert(v, 's', s)
	case verb == 0 && v.IsFloat() && s.prec < 0:
		str = Print(v)
		if s.sign == '+' && v.AsFloat() >= 0 {
			str = "+" + str
		}
	case verb == 0 && v.IsFloat():
		str, err = convert(v, 'g', s)
	case verb == 0, verb == 'n':
		str, err = convert(v, 'd', s)
	case verb == 'b':
		n, _ := toInt64(v)
		str = strconv.FormatInt(n, 2)
	default:
		str, err = convert(v, verb, s)
	}
	if err != nil {
		return "", err
	}
	return s.pad(str), nil
}
