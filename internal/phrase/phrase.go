// Package phrase words JSON values and counts in the messages that people
// and models read: a kind with its article, a count with its noun.
package phrase

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Plural writes a count and a noun, adding "s" unless the count is one.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Article puts "a" or "an" before a type name.
func Article(kind string) string {
	if kind == "null" {
		return kind
	}
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// Kind names the JSON type of v the way a message says it: integer
// for a number without fraction or exponent.
func Kind(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return "string"
	case gjson.True, gjson.False:
		return "boolean"
	case gjson.Null:
		return "null"
	case gjson.Number:
		if strings.ContainsAny(v.Raw, ".eE") {
			return "number"
		}
		return "integer"
	case gjson.JSON:
		if strings.HasPrefix(v.Raw, "[") {
			return "array"
		}
		return "object"
	}
	return "nothing"
}

// Describe names the kind of a JSON value, for messages.
func Describe(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return fmt.Sprintf("the string %q", v.Str)
	case gjson.Number:
		return "the number " + v.Raw
	case gjson.True, gjson.False:
		return v.Raw
	case gjson.Null:
		return "null"
	}
	if v.IsArray() {
		return "an array"
	}
	if v.IsObject() {
		return "an object"
	}
	return "nothing"
}
