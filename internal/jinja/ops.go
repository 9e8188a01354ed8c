package jinja

import (
	"math"
	"strings"
)

// Python's operators on template values. Every operator that builds a
// string or a list sizes the result first, against Limits.

func isNum(v Value) bool     { return v.k == KindInt || v.k == KindFloat || v.k == KindBool }
func isIntLike(v Value) bool { return v.k == KindInt || v.k == KindBool }

func unary(op string, v Value) (Value, error) {
	switch op {
	case "not":
		return NewBool(!v.IsTruthy()), nil
	case "-":
		switch v.k {
		case KindInt, KindBool:
			if v.int() == math.MinInt64 {
				return NewFloat(-float64(v.int())), nil
			}
			return NewInt(-v.int()), nil
		case KindFloat:
			return NewFloat(-v.flt()), nil
		case KindUndefined:
			return Value{}, undefinedError(v)
		}
		return Value{}, typeErrorf("bad operand type for unary -: '%s'", typeName(v))
	case "+":
		switch v.k {
		case KindInt, KindBool:
			return NewInt(v.int()), nil
		case KindFloat:
			return v, nil
		case KindUndefined:
			return Value{}, undefinedError(v)
		}
		return Value{}, typeErrorf("bad operand type for unary +: '%s'", typeName(v))
	}
	return Value{}, typeErrorf("unknown operator %s", op)
}

func operandError(op string, a, b Value) error {
	if a.k == KindUndefined {
		return undefinedError(a)
	}
	if b.k == KindUndefined {
		return undefinedError(b)
	}
	if op == "+" && (a.k == KindString || a.k == KindList) {
		return typeErrorf("can only concatenate %s (not \"%s\") to %s", typeName(a), typeName(b), typeName(a))
	}
	return typeErrorf("unsupported operand type(s) for %s: '%s' and '%s'", op, typeName(a), typeName(b))
}

func (r *renderer) binary(op string, a, b Value) (Value, error) {
	if op == "~" {
		sa, sb := Print(a), Print(b)
		if err := r.sized(len(sa) + len(sb)); err != nil {
			return Value{}, err
		}
		return NewString(sa + sb), nil
	}
	if isNum(a) && isNum(b) {
		return arith(op, a, b)
	}
	switch op {
	case "+":
		switch {
		case a.k == KindString && b.k == KindString:
			if err := r.sized(len(a.str()) + len(b.str())); err != nil {
				return Value{}, err
			}
			// markupsafe's Markup escapes the plain str it is added to.
			switch {
			case a.fl&flagSafe != 0 && b.fl&flagSafe == 0:
				return safeString(a.str() + escapeHTML(b.str())), nil
			case b.fl&flagSafe != 0 && a.fl&flagSafe == 0:
				return safeString(escapeHTML(a.str()) + b.str()), nil
			}
			return Value{k: KindString, fl: a.fl & flagSafe}.withStr(a.str() + b.str()), nil
		case a.k == KindList && b.k == KindList && (a.fl|b.fl)&(flagIter|flagRange) == 0 && (a.fl&flagTuple) == (b.fl&flagTuple):
			x, y := a.AsList().Items, b.AsList().Items
			if err := r.counted(len(x) + len(y)); err != nil {
				return Value{}, err
			}
			out := make([]Value, 0, len(x)+len(y))
			out = append(append(out, x...), y...)
			return listOf(a.fl&flagTuple, out), nil
		}
	case "*":
		seq, n := a, b
		if isIntLike(a) {
			seq, n = b, a
		}
		if !isIntLike(n) {
			break
		}
		count := max(n.int(), 0)
		switch seq.k {
		case KindString:
			if count > 0 && int64(len(seq.str())) > math.MaxInt32*4/count {
				return Value{}, r.sized(-1)
			}
			if err := r.sized(len(seq.str()) * int(count)); err != nil {
				return Value{}, err
			}
			return Value{k: KindString, fl: seq.fl & flagSafe}.withStr(strings.Repeat(seq.str(), int(count))), nil
		case KindList:
			if seq.fl&(flagIter|flagRange) != 0 {
				break
			}
			items := seq.AsList().Items
			if count > 0 && int64(len(items)) > math.MaxInt32*4/count {
				return Value{}, r.counted(-1)
			}
			if err := r.counted(len(items) * int(count)); err != nil {
				return Value{}, err
			}
			out := make([]Value, 0, len(items)*int(count))
			for range count {
				out = append(out, items...)
			}
			return listOf(seq.fl&flagTuple, out), nil
		}
	case "%":
		if a.k == KindString {
			if err := r.step(); err != nil {
				return Value{}, err
			}
			var s string
			var err error
			// Python's %: a tuple gives the values; anything else is one
			// value, and a dict (or a list: both take []) may go unused.
			switch {
			case b.k == KindList && b.fl&flagTuple != 0:
				s, err = percentFormat(a.str(), b.AsList().Items, Undefined())
			case b.k == KindDict:
				s, err = percentFormat(a.str(), []Value{b}, b)
			case b.k == KindList || b.k == KindUndefined:
				s, err = percentFormat(a.str(), []Value{b}, NewDict())
			default:
				s, err = percentFormat(a.str(), []Value{b}, Undefined())
			}
			if err != nil {
				return Value{}, formatError(err)
			}
			return NewString(s), r.sized(len(s))
		}
	}
	return Value{}, operandError(op, a, b)
}

// arith is op on two numbers: ints stay ints (a result past int64 is a
// float), / is always a float, // and % floor as Python's do.
func arith(op string, a, b Value) (Value, error) {
	if isIntLike(a) && isIntLike(b) {
		x, y := a.int(), b.int()
		switch op {
		case "+":
			if s := x + y; (s > x) == (y > 0) {
				return NewInt(s), nil
			}
			return NewFloat(float64(x) + float64(y)), nil
		case "-":
			if s := x - y; (s < x) == (y > 0) {
				return NewInt(s), nil
			}
			return NewFloat(float64(x) - float64(y)), nil
		case "*":
			if x == 0 || y == 0 {
				return NewInt(0), nil
			}
			if p := x * y; p/y == x && !(x == -1 && y == math.MinInt64) && !(y == -1 && x == math.MinInt64) {
				return NewInt(p), nil
			}
			return NewFloat(float64(x) * float64(y)), nil
		case "/":
			if y == 0 {
				return Value{}, runtimeErrorf("ZeroDivisionError", "division by zero")
			}
			return NewFloat(float64(x) / float64(y)), nil
		case "//":
			if y == 0 {
				return Value{}, runtimeErrorf("ZeroDivisionError", "integer division or modulo by zero")
			}
			q := x / y
			if (x%y != 0) && ((x < 0) != (y < 0)) {
				q--
			}
			return NewInt(q), nil
		case "%":
			if y == 0 {
				return Value{}, runtimeErrorf("ZeroDivisionError", "integer modulo by zero")
			}
			m := x % y
			if m != 0 && (m < 0) != (y < 0) {
				m += y
			}
			return NewInt(m), nil
		case "**":
			if y < 0 {
				return NewFloat(math.Pow(float64(x), float64(y))), nil
			}
			result := int64(1)
			base := x
			for e := y; e > 0; e-- {
				next := result * base
				if base != 0 && next/base != result {
					return NewFloat(math.Pow(float64(x), float64(y))), nil
				}
				result = next
				if result == 0 || result == 1 && base == 1 {
					break
				}
			}
			return NewInt(result), nil
		}
	}
	x, _ := number(a)
	y, _ := number(b)
	switch op {
	case "+":
		return NewFloat(x + y), nil
	case "-":
		return NewFloat(x - y), nil
	case "*":
		return NewFloat(x * y), nil
	case "/":
		if y == 0 {
			return Value{}, runtimeErrorf("ZeroDivisionError", "float division by zero")
		}
		return NewFloat(x / y), nil
	case "//":
		if y == 0 {
			return Value{}, runtimeErrorf("ZeroDivisionError", "float floor division by zero")
		}
		return NewFloat(floorDiv(x, y)), nil
	case "%":
		if y == 0 {
			return Value{}, runtimeErrorf("ZeroDivisionError", "float modulo")
		}
		m := math.Mod(x, y)
		if m != 0 && (m < 0) != (y < 0) {
			m += y
		}
		return NewFloat(m), nil
	case "**":
		return NewFloat(math.Pow(x, y)), nil
	}
	return Value{}, typeErrorf("unknown operator %s", op)
}

// compare is one comparison of a chain: a op b; work, when not nil,
// counts the items it looked at.
func compare(op string, a, b Value, work *int) (bool, error) {
	switch op {
	case "==":
		return equal(a, b, 0, work), nil
	case "!=":
		return !equal(a, b, 0, work), nil
	case "in", "notin":
		ok, err := contains3(b, a, work)
		return ok == (op == "in"), err
	}
	c, err := order(a, b, op, 0, work)
	if err != nil {
		return false, err
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

// order compares a and b as Python's < does: numbers, strs, lists.
func order(a, b Value, op string, depth int, work *int) (int, error) {
	if work != nil {
		*work++
	}
	if isNum(a) && isNum(b) {
		if isIntLike(a) && isIntLike(b) {
			return cmp3(a.int(), b.int()), nil
		}
		x, _ := number(a)
		y, _ := number(b)
		return cmpFloat(x, y), nil
	}
	if a.k == KindString && b.k == KindString {
		return strings.Compare(a.str(), b.str()), nil
	}
	if a.k == KindList && b.k == KindList && depth < maxPrintDepth &&
		(a.fl|b.fl)&(flagRange|flagIter) == 0 && a.fl&flagTuple == b.fl&flagTuple {
		x, y := a.AsList().Items, b.AsList().Items
		for i := 0; i < len(x) && i < len(y); i++ {
			if equal(x[i], y[i], 0, work) {
				continue
			}
			return order(x[i], y[i], op, depth+1, work)
		}
		return cmp3(int64(len(x)), int64(len(y))), nil
	}
	if a.k == KindUndefined {
		return 0, undefinedError(a)
	}
	if b.k == KindUndefined {
		return 0, undefinedError(b)
	}
	return 0, typeErrorf("'%s' not supported between instances of '%s' and '%s'", op, typeName(a), typeName(b))
}

func cmp3(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// contains3 is Python's x in container.
func contains3(container, x Value, work *int) (bool, error) {
	switch container.k {
	case KindString:
		if x.k != KindString {
			return false, typeErrorf("'in <string>' requires string as left operand, not %s", typeName(x))
		}
		return strings.Contains(container.str(), x.str()), nil
	case KindList:
		for _, it := range container.AsList().Items {
			if equal(it, x, 0, work) {
				return true, nil
			}
		}
		return false, nil
	case KindDict, kindNamespace:
		if x.k == KindList && x.fl&(flagTuple|flagRange) == 0 || x.k == KindDict {
			return false, typeErrorf("unhashable type: '%s'", typeName(x))
		}
		_, ok := container.AsDict().Data[keyString(x)]
		return ok, nil
	case KindUndefined:
		return false, nil
	}
	return false, typeErrorf("argument of type '%s' is not iterable", typeName(container))
}

// escapeHTML is markupsafe's escape: & < > ' " as entities.
func escapeHTML(s string) string {
	if !strings.ContainsAny(s, "&<>'\"") {
		return s
	}
	return htmlEscaper.Replace(s)
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&#39;", "\"", "&#34;")

// floorDiv is Python's float //: from the remainder, as CPython computes
// it (1e3 // 0.1 is 9999.0, where floor(1e3 / 0.1) is 10000).
func floorDiv(x, y float64) float64 {
	mod := math.Mod(x, y)
	div := (x - mod) / y
	if mod != 0 && (y < 0) != (mod < 0) {
		div -= 1
	}
	if div == 0 {
		return math.Copysign(0, x/y)
	}
	f := math.Floor(div)
	if div-f > 0.5 {
		f++
	}
	return f
}
