package schema

import (
	"slices"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonptr"
)

// maxCoercionRounds bounds how often arguments are coerced and checked
// again. One round fixes the strings the first check reports; a second can
// reach values inside alternatives that only fail once an outer value is
// fixed. More would only spin.
const maxCoercionRounds = 4

// coercions lists the coercions the errors ask for and that have not been
// made yet: a string where the schema's "type" wants a number, integer,
// boolean or null, and whose text is exactly such a value.
func (b *errorBuilder) coercions(done []Coercion) []Coercion {
	var out []Coercion
	for _, e := range b.out {
		if e.Keyword != "type" {
			continue
		}
		if slices.ContainsFunc(done, func(c Coercion) bool { return c.Pointer == e.Pointer }) ||
			slices.ContainsFunc(out, func(c Coercion) bool { return c.Pointer == e.Pointer }) {
			continue
		}
		cur := b.argAt(e.Pointer)
		if cur.Type != gjson.String {
			continue
		}
		if to, ok := coerceString(cur.Str, typeNames(gjson.Parse(e.Expected))); ok {
			out = append(out, Coercion{Pointer: e.Pointer, From: cur.Str, To: to})
		}
	}
	return out
}

// coerceString returns the JSON a string stands for when the text is
// exactly a value of one of types: an integer or number in JSON syntax
// ("42", "-3.5", "1e3"; not " 42", "42abc", "0x10", "+1"), true or false,
// or null. Anything else stays a string.
func coerceString(s string, types []string) ([]byte, bool) {
	has := func(t string) bool { return slices.Contains(types, t) }
	switch {
	case s == "true" || s == "false":
		if has("boolean") {
			return []byte(s), true
		}
	case s == "null":
		if has("null") {
			return []byte(s), true
		}
	case s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')):
		if !has("number") && !has("integer") {
			return nil, false
		}
		d := argDecoder{src: []byte(s), strict: true}
		d.number()
		if d.fail != nil || d.pos != len(s) {
			return nil, false
		}
		integer := !slices.ContainsFunc([]byte(s), func(c byte) bool { return c == '.' || c == 'e' || c == 'E' })
		if has("number") || integer {
			return []byte(s), true
		}
	}
	return nil, false
}

// recode parses the arguments again with the coercions in place, giving
// the value to check and its compact text; refs, when not nil, are
// offered for swapping as in Check.
func recode(obj []byte, coerced []Coercion, refs Refs) (any, []byte, *Error) {
	replace := make(map[string][]byte, len(coerced))
	for _, c := range coerced {
		replace[c.Pointer] = c.To
	}
	d := argDecoder{src: obj, strict: true, replace: replace, refs: refs}
	return d.decode()
}

// Recode is the arguments as written, normalized (see Check), with the
// coercions applied, in compact form: false when they are not an object
// that decodes. Refs are left as written, so that a call with its
// coercions can be shown as the model wrote it.
func Recode(args []byte, coerced []Coercion) ([]byte, bool) {
	obj, bad := Normalize(args)
	if bad != nil {
		return nil, false
	}
	_, out, err := recode(obj, coerced, nil)
	return out, err == nil
}

// sortCoercions puts coercions in pointer order.
func sortCoercions(cs []Coercion) []Coercion {
	slices.SortFunc(cs, func(a, b Coercion) int { return jsonptr.Compare(a.Pointer, b.Pointer) })
	return cs
}
