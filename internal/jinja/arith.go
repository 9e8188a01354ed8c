package jinja

import (
	"math"
	"strings"
)

// =============================================================================
// Arithmetic helpers
// =============================================================================

func addValues(a, b Value) Value {
	if a.IsString() || b.IsString() {
		return NewString(printValue(a) + printValue(b))
	}
	if a.IsList() && b.IsList() {
		items := make([]Value, 0, a.AsList().Len()+b.AsList().Len())
		items = append(items, a.AsList().Items...)
		items = append(items, b.AsList().Items...)
		return NewList(items)
	}
	if a.IsFloat() || b.IsFloat() {
		return NewFloat(toFloat64(a) + toFloat64(b))
	}
	return NewInt(toInt64(a) + toInt64(b))
}

func subValues(a, b Value) Value {
	if a.IsFloat() || b.IsFloat() {
		return NewFloat(toFloat64(a) - toFloat64(b))
	}
	return NewInt(toInt64(a) - toInt64(b))
}

func mulValues(a, b Value) Value {
	if a.IsString() && b.IsInt() {
		return NewString(strings.Repeat(a.AsString(), max(int(b.AsInt()), 0)))
	}
	if a.IsFloat() || b.IsFloat() {
		return NewFloat(toFloat64(a) * toFloat64(b))
	}
	return NewInt(toInt64(a) * toInt64(b))
}

func divValues(a, b Value) Value {
	bf := toFloat64(b)
	if bf == 0 {
		return NewFloat(0)
	}
	return NewFloat(toFloat64(a) / bf)
}

func floorDivValues(a, b Value) Value {
	if a.IsFloat() || b.IsFloat() {
		return NewFloat(math.Floor(toFloat64(a) / toFloat64(b)))
	}
	x, y := toInt64(a), toInt64(b)
	if y == 0 {
		return NewInt(0)
	}
	q := x / y
	if (x%y != 0) && ((x < 0) != (y < 0)) {
		q-- // Python floors toward negative infinity
	}
	return NewInt(q)
}

func modValues(a, b Value) Value {
	if a.IsFloat() || b.IsFloat() {
		x, y := toFloat64(a), toFloat64(b)
		m := math.Mod(x, y)
		if m != 0 && (m < 0) != (y < 0) {
			m += y
		}
		return NewFloat(m)
	}
	x, y := toInt64(a), toInt64(b)
	if y == 0 {
		return NewInt(0)
	}
	m := x % y
	if m != 0 && (m < 0) != (y < 0) {
		m += y // Python's sign follows the divisor
	}
	return NewInt(m)
}

func powValues(a, b Value) Value {
	if a.IsInt() && b.IsInt() && b.AsInt() >= 0 {
		// An int to a non-negative int power is an int, as in Python,
		// while it fits in an int64 (toolcall's change).
		x, n := a.AsInt(), b.AsInt()
		switch {
		case n == 0:
			return NewInt(1)
		case x == 0 || x == 1:
			return NewInt(x)
		case x == -1:
			return NewInt(1 - 2*(n%2))
		}
		ax := max(x, -x)
		r := int64(1)
		for range n {
			if r > math.MaxInt64/ax || r < math.MinInt64/ax {
				return NewFloat(math.Pow(toFloat64(a), toFloat64(b)))
			}
			r *= x
		}
		return NewInt(r)
	}
	return NewFloat(math.Pow(toFloat64(a), toFloat64(b)))
}

func valuesEqual(a, b Value) bool {
	// Cross-type numeric comparison.
	if a.IsNumber() && b.IsNumber() {
		return toFloat64(a) == toFloat64(b)
	}
	// None == None.
	if a.IsNone() && b.IsNone() {
		return true
	}
	return a.Equals(b)
}
