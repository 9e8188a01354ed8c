package schema

import (
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonptr"
	"github.com/toolcall/toolcall/internal/jsonw"
)

// The explanation checks parts of the value again, within the call's
// validation budget, where the validator's message would only say that
// something failed: which items a "contains" accepts, which alternatives
// of a "oneOf" match, which items are equal.

// containsCount counts the items of the array at ptr that the compiled
// subschema at loc (a "contains") accepts; false when either is not found.
func (b *errorBuilder) containsCount(loc, ptr string) (int, bool) {
	sub := compiledAt(b.compiled, loc)
	items, ok := jsonptr.ValueAt(b.value, ptr).([]any)
	if sub == nil || !ok {
		return 0, false
	}
	n := 0
	for _, item := range items {
		switch err := b.steps.check(sub, item); {
		case err == nil:
			n++
		case errors.Is(err, ErrTooCostly):
			return 0, false
		}
	}
	return n, true
}

// equalItems finds the first item of the array at ptr equal to an
// earlier one (j) and that earlier one (i), equal as JSON values: 1 and
// 1.0 are the same number, objects are the same whatever their key order.
func (b *errorBuilder) equalItems(ptr string) (i, j int, ok bool) {
	items, _ := jsonptr.ValueAt(b.value, ptr).([]any)
	first := make(map[string]int, len(items))
	var key []byte
	for j, item := range items {
		key = appendCanonical(key[:0], item)
		if i, ok := first[string(key)]; ok {
			return i, j, true
		}
		first[string(key)] = j
	}
	return 0, 0, false
}

// appendCanonical appends a form of a decoded arguments value (see
// argDecoder) that is the same for equal JSON values and differs for
// others: numbers as exact fractions, object keys sorted.
func appendCanonical(b []byte, v any) []byte {
	switch v := v.(type) {
	case json.Number:
		var r big.Rat
		if _, ok := r.SetString(string(v)); ok {
			return append(append(b, 'n'), r.RatString()...)
		}
		return append(append(b, 'N'), v...)
	case string:
		return jsonw.AppendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case nil:
		return append(b, "null"...)
	case []any:
		b = append(b, '[')
		for _, x := range v {
			b = append(appendCanonical(b, x), ',')
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for _, k := range keys {
			b = append(jsonw.AppendString(b, k), ':')
			b = append(appendCanonical(b, v[k]), ',')
		}
		return append(b, '}')
	}
	return append(b, '?')
}

// accepting returns the indexes of the alternatives of the "oneOf" at loc
// (whose value is sv) that accept the value at ptr.
func (b *errorBuilder) accepting(loc string, sv gjson.Result, ptr string) []int {
	v := jsonptr.ValueAt(b.value, ptr)
	var ok []int
	for i := range sv.Array() {
		sub := compiledAt(b.compiled, loc+"/"+strconv.Itoa(i))
		if sub == nil {
			return nil
		}
		switch err := b.steps.check(sub, v); {
		case err == nil:
			ok = append(ok, i)
		case errors.Is(err, ErrTooCostly):
			return nil
		}
	}
	return ok
}
