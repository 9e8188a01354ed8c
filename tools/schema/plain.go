package schema

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// plainlyCompiles reports whether schema is known to compile as draft
// 2020-12 without running the compiler: it is an object, every keyword
// the compiler reads is one of the common ones below with a value its
// meta-schema accepts, and nothing in it names another place ($ref, $id,
// $anchor, "$schema" other than 2020-12's). Keywords the compiler does not
// know are ignored, by it and by this check. False means "not known", not
// "does not compile": such a schema goes to the compiler.
//
// This exists for speed: the compiler spends three quarters of its time
// checking a schema against its meta-schema, and a catalog of ten thousand
// tools is checked at every start. A test compiles every schema this
// accepts, fuzzed ones included, to hold the two in agreement.
func plainlyCompiles(schema []byte) bool {
	if !gjson.ValidBytes(schema) {
		return false
	}
	root := gjson.ParseBytes(schema)
	return root.IsObject() && plainSchema(root, 0, true)
}

// plainSchema checks one schema: true, false, or an object of keywords.
func plainSchema(v gjson.Result, depth int, root bool) bool {
	if v.Type == gjson.True || v.Type == gjson.False {
		return true
	}
	if !v.IsObject() || depth > MaxDepth {
		return false
	}
	ok := true
	v.ForEach(func(k, val gjson.Result) bool {
		ok = plainKeyword(k.Str, val, depth, root)
		return ok
	})
	return ok
}

// plainKeyword checks one keyword's value against what draft 2020-12's
// meta-schema asks of it.
func plainKeyword(k string, v gjson.Result, depth int, root bool) bool {
	switch k {
	case "$schema":
		return root && v.Type == gjson.String && strings.TrimSuffix(v.Str, "#") == "https://json-schema.org/draft/2020-12/schema"
	case "$defs", "properties", "dependentSchemas":
		return plainSchemaMap(v, depth, false)
	case "patternProperties":
		return plainSchemaMap(v, depth, true)
	case "$comment", "title", "description", "format", "contentEncoding", "contentMediaType":
		return v.Type == gjson.String
	case "type":
		if v.Type == gjson.String {
			return standardType(v.Str)
		}
		return v.IsArray() && plainStrings(v, true, standardType)
	case "enum", "examples":
		return v.IsArray()
	case "const", "default":
		return true
	case "pattern":
		return v.Type == gjson.String && compilesAsRegexp(v.Str)
	case "required":
		return plainStrings(v, false, nil)
	case "dependentRequired":
		if !v.IsObject() {
			return false
		}
		ok := true
		v.ForEach(func(_, list gjson.Result) bool {
			ok = plainStrings(list, false, nil)
			return ok
		})
		return ok
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return plainNumber(v)
	case "multipleOf":
		if !plainNumber(v) {
			return false
		}
		f, err := strconv.ParseFloat(v.Raw, 64)
		return err == nil && f > 0
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties",
		"maxProperties", "minContains", "maxContains":
		return plainCount(v)
	case "uniqueItems", "readOnly", "writeOnly", "deprecated":
		return v.Type == gjson.True || v.Type == gjson.False
	case "items", "additionalProperties", "unevaluatedItems", "unevaluatedProperties",
		"contains", "propertyNames", "not", "if", "then", "else", "contentSchema":
		return plainSchema(v, depth+1, false)
	case "allOf", "anyOf", "oneOf", "prefixItems":
		if !v.IsArray() {
			return false
		}
		n, ok := 0, true
		v.ForEach(func(_, s gjson.Result) bool {
			n++
			ok = plainSchema(s, depth+1, false)
			return ok
		})
		return ok && n > 0
	case "definitions", "dependencies", "additionalItems", "regexProperties":
		// Older drafts' keywords, and a library extension: the compiler
		// decides what they mean here.
		return false
	}
	// $id, $ref, $anchor and the other core keywords name places; the
	// compiler resolves them. Any other keyword is not read at all.
	return !strings.HasPrefix(k, "$")
}

// plainSchemaMap checks an object of names to subschemas; with patterns,
// each name must be a regular expression.
func plainSchemaMap(v gjson.Result, depth int, patterns bool) bool {
	if !v.IsObject() {
		return false
	}
	ok := true
	v.ForEach(func(name, s gjson.Result) bool {
		ok = (!patterns || compilesAsRegexp(name.Str)) && plainSchema(s, depth+1, false)
		return ok
	})
	return ok
}

// plainStrings checks an array of distinct strings, non-empty when
// nonEmpty, each passing valid when given.
func plainStrings(v gjson.Result, nonEmpty bool, valid func(string) bool) bool {
	if !v.IsArray() {
		return false
	}
	var seen []string
	ok := true
	v.ForEach(func(_, s gjson.Result) bool {
		ok = s.Type == gjson.String && (valid == nil || valid(s.Str)) && !slices.Contains(seen, s.Str)
		seen = append(seen, s.Str)
		return ok
	})
	return ok && (!nonEmpty || len(seen) > 0)
}

// plainNumber accepts a number written without an exponent; others are
// valid too, but left to the compiler.
func plainNumber(v gjson.Result) bool {
	return v.Type == gjson.Number && len(v.Raw) <= 40 && !strings.ContainsAny(v.Raw, "eE")
}

// plainCount accepts a non-negative integer written as digits alone.
func plainCount(v gjson.Result) bool {
	if v.Type != gjson.Number || len(v.Raw) > 9 {
		return false
	}
	for i := 0; i < len(v.Raw); i++ {
		if v.Raw[i] < '0' || v.Raw[i] > '9' {
			return false
		}
	}
	return true
}

// compilesAsRegexp reports whether the compiler will accept p as a
// pattern: it uses Go's regexp package.
func compilesAsRegexp(p string) bool {
	_, err := regexp.Compile(p)
	return err == nil
}
