package schema

import (
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// bfclTypes maps the type names of the BFCL/Gorilla dialect (Python names,
// and the Java and JavaScript names of its java and javascript categories)
// to JSON Schema types. An empty value means "any type": the "type" keyword
// is removed. Every name that occurs in the BFCL v4 data is here (dict,
// float, tuple, any, String, Array, HashMap, long, ArrayList, Boolean,
// double, char, and one empty ""), plus their close relatives.
var bfclTypes = map[string]string{
	"dict": "object", "Dict": "object", "map": "object", "Map": "object",
	"HashMap": "object", "Hashtable": "object", "Object": "object",
	"float": "number", "Float": "number", "double": "number", "Double": "number",
	"Number": "number", "BigDecimal": "number", "decimal": "number",
	"int": "integer", "Integer": "integer", "long": "integer", "Long": "integer",
	"short": "integer", "Short": "integer", "byte": "integer", "Byte": "integer",
	"BigInteger": "integer", "bigint": "integer", "BigInt": "integer",
	"str": "string", "String": "string", "char": "string", "Character": "string",
	"bool": "boolean", "Boolean": "boolean",
	"tuple": "array", "Tuple": "array", "list": "array", "List": "array",
	"ArrayList": "array", "LinkedList": "array", "Array": "array",
	"set": "array", "Set": "array", "HashSet": "array",
	"any": "", "Any": "", "": "",
}

// standardType reports whether t is one of JSON Schema's own type names.
func standardType(t string) bool {
	switch t {
	case "object", "array", "string", "number", "integer", "boolean", "null":
		return true
	}
	return false
}

// MapTypes rewrites the BFCL/Gorilla type names in schema, which Inspect
// found (f.BFCL()), to JSON Schema ones, keeping everything else, key
// order included, as written (compact). It returns the rewritten schema and the mappings applied ("dict -> object"),
// sorted. Only real "type" keywords are touched: a property named "type" is
// a name, and unknown keywords are left verbatim (JSON Schema ignores them).
func (f Facts) MapTypes(schema gjson.Result) ([]byte, []string) {
	seen := f.mapped
	mapped := make([]string, 0, len(seen))
	for from := range seen {
		to := bfclTypes[from]
		if to == "" {
			to = "any type (\"type\" removed)"
		}
		mapped = append(mapped, quoteName(from)+" -> "+to)
	}
	sort.Strings(mapped)
	return rewriteSchema(make([]byte, 0, len(schema.Raw)), schema), mapped
}

func quoteName(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// rewriteSchema appends schema r with its type names mapped, following the
// same structure as schemaWalk (without unknown keywords).
func rewriteSchema(dst []byte, r gjson.Result) []byte {
	if !r.IsObject() {
		return jsonw.AppendCompact(dst, r.Raw)
	}
	dst = append(dst, '{')
	first := true
	r.ForEach(func(k, v gjson.Result) bool {
		if k.Str == "type" {
			t, keep := mapTypeValue(v)
			if !keep {
				return true
			}
			dst = appendKey(dst, k.Raw, &first)
			dst = jsonw.AppendCompact(dst, t)
			return true
		}
		dst = appendKey(dst, k.Raw, &first)
		switch keywordKind(k.Str) {
		case kwSchema, kwSchemaList:
			dst = rewriteSub(dst, v)
		case kwSchemaMap:
			if !v.IsObject() {
				dst = jsonw.AppendCompact(dst, v.Raw)
				break
			}
			dst = append(dst, '{')
			inner := true
			v.ForEach(func(name, sub gjson.Result) bool {
				dst = appendKey(dst, name.Raw, &inner)
				dst = rewriteSub(dst, sub)
				return true
			})
			dst = append(dst, '}')
		default:
			dst = jsonw.AppendCompact(dst, v.Raw)
		}
		return true
	})
	return append(dst, '}')
}

func rewriteSub(dst []byte, v gjson.Result) []byte {
	if !v.IsArray() {
		return rewriteSchema(dst, v)
	}
	dst = append(dst, '[')
	first := true
	v.ForEach(func(_, e gjson.Result) bool {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = rewriteSchema(dst, e)
		return true
	})
	return append(dst, ']')
}

func appendKey(dst []byte, raw string, first *bool) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = append(dst, raw...) // a raw key holds no space
	return append(dst, ':')
}

// mapTypeValue maps the value of one "type" keyword: a name, or a list of
// names. keep is false when the type allows anything, so the keyword goes.
func mapTypeValue(v gjson.Result) (out string, keep bool) {
	one := func(t gjson.Result) (name string, anyType bool) {
		if t.Type != gjson.String || standardType(t.Str) {
			return t.Raw, false
		}
		to, ok := bfclTypes[t.Str]
		if !ok {
			return t.Raw, false // unknown: left for the compiler to report
		}
		if to == "" {
			return "", true
		}
		return `"` + to + `"`, false
	}
	if !v.IsArray() {
		s, anyType := one(v)
		return s, !anyType
	}
	var names []string
	anyType := false
	v.ForEach(func(_, t gjson.Result) bool {
		s, a := one(t)
		if a {
			anyType = true
			return false
		}
		// Two names may map to one ("int", "long"); JSON Schema wants
		// the list without repeats.
		if !slices.Contains(names, s) {
			names = append(names, s)
		}
		return true
	})
	if anyType {
		return "", false
	}
	return "[" + strings.Join(names, ",") + "]", true
}
