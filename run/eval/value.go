package eval

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Values are JSON decoded with json.Number, and compared the way BFCL's
// checker compares the Python values it decodes: a number with no
// fraction or exponent is an int, any other a float; ints and floats (and
// booleans, Python's 1 and 0) are equal when their values are; lists and
// dicts are equal member by member.

// pyType is the name of the Python type a decoded JSON value becomes.
func pyType(v any) string {
	switch v := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number:
		if isIntText(string(v)) {
			return "int"
		}
		return "float"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return "object"
}

func isIntText(s string) bool {
	return !strings.ContainsAny(s, ".eE") && s != "" && s != "-"
}

// pyEqual is Python's == on decoded values.
func pyEqual(a, b any) bool {
	if x, ok := numeric(a); ok {
		y, ok := numeric(b)
		return ok && x.Cmp(y) == 0
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case string:
		s, ok := b.(string)
		return ok && a == s
	case []any:
		l, ok := b.([]any)
		if !ok || len(l) != len(a) {
			return false
		}
		for i := range a {
			if !pyEqual(a[i], l[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		m, ok := b.(map[string]any)
		if !ok || len(m) != len(a) {
			return false
		}
		for k, v := range a {
			w, ok := m[k]
			if !ok || !pyEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// numeric is a number's exact value, a bool's 1 or 0, or false.
func numeric(v any) (*big.Rat, bool) {
	switch v := v.(type) {
	case bool:
		if v {
			return big.NewRat(1, 1), true
		}
		return new(big.Rat), true
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok {
			if !isIntText(string(v)) {
				// A float is the nearest double, as Python reads it.
				if f, err := strconv.ParseFloat(string(v), 64); err == nil {
					return new(big.Rat).SetFloat64(f), true
				}
			}
			return r, true
		}
	}
	return nil, false
}

// pyIn is Python's `v in list`.
func pyIn(v any, list []any) bool {
	for _, x := range list {
		if pyEqual(v, x) {
			return true
		}
	}
	return false
}

// standardize is BFCL's standardize_string: spaces and the punctuation
// ,./-_*^ removed, lower case, single quotes made double, so that
// "April 1, 2024" and "april 1 2024" are the same answer.
func standardize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case ' ', ',', '.', '/', '-', '_', '*', '^':
			continue
		case '\'':
			b.WriteByte('"')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// pyRepr is a short Python-like rendering of a value for a miss's reason.
func pyRepr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case string:
		return strconv.Quote(v)
	case json.Number:
		return string(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}
