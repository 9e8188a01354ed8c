package catalog

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

// Ollama's API types keep only part of a JSON Schema. The narrowest are
// those of its JavaScript client (the npm package ollama, Tool): the
// parameters object has type, $defs, items, required and properties, and
// each property only type (a name or a list of names), items, description
// and enum. Ollama's server reads a little more (anyOf, and properties
// and required inside a property), but a request written for the narrow
// type reaches every client. Anything else a sidecar's schema says would
// be dropped on the way, so the model would never see it:
// appendOllamaParams writes it into the description of the property that
// had it, in words (a nested object or a choice of types as its compact
// schema), and what the parameters object itself had into the tool's
// description.

// appendOllamaParams appends schema as Ollama's parameters object, and
// returns the words for the tool's description about what the object
// itself asked that Ollama cannot carry ("" when nothing).
func appendOllamaParams(b []byte, schema []byte) ([]byte, string) {
	if len(schema) == 0 {
		return append(b, openObject...), ""
	}
	root := gjson.ParseBytes(schema)
	typ := "object"
	if t := root.Get("type"); t.Type == gjson.String {
		typ = t.Str
	}
	b = append(b, `{"type":`...)
	b = jsonw.AppendString(b, typ)
	var words []string
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type", "properties":
		case "$defs", "items", "required":
			b = append(b, ',')
			b = jsonw.AppendString(b, k.Str)
			b = append(b, ':')
			b = jsonw.AppendCompact(b, v.Raw)
		default:
			if w := constraintWords(k.Str, v); w != "" {
				words = append(words, w)
			}
		}
		return true
	})
	b = append(b, `,"properties":`...)
	b = appendOllamaProps(b, root.Get("properties"))
	b = append(b, '}')
	if len(words) == 0 {
		return b, ""
	}
	return b, "Arguments: " + strings.Join(words, "; ") + "."
}

// appendOllamaProps appends an object of properties ({} when there are
// none).
func appendOllamaProps(b []byte, props gjson.Result) []byte {
	b = append(b, '{')
	first := true
	props.ForEach(func(name, p gjson.Result) bool {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonw.AppendString(b, name.Str)
		b = append(b, ':')
		b = appendOllamaProp(b, p)
		return true
	})
	return append(b, '}')
}

// appendOllamaProp appends one property as api.ToolProperty: the keywords
// it has fields for as they are (anyOf and properties converted in turn),
// and the others in words at the end of its description.
func appendOllamaProp(b []byte, p gjson.Result) []byte {
	if !p.IsObject() {
		// true, false: any value, or none. Ollama has no such property.
		if p.Type == gjson.False {
			return append(b, `{"description":"No value is allowed."}`...)
		}
		return append(b, '{', '}')
	}
	b = append(b, '{')
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonw.AppendString(b, k)
		b = append(b, ':')
	}
	var words []string
	desc := ""
	p.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			if v.Type == gjson.String || v.IsArray() {
				key("type")
				b = jsonw.AppendCompact(b, v.Raw)
			}
		case "items", "enum":
			key(k.Str)
			b = jsonw.AppendCompact(b, v.Raw)
		case "description":
			if v.Type == gjson.String {
				desc = v.Str
			}
		case "anyOf", "oneOf":
			// The choice is said in words; its types, when each branch
			// names one, are the property's type as well.
			if types := branchTypes(v); types != nil && !p.Get("type").Exists() {
				key("type")
				b = jsonw.AppendCompact(b, types)
			}
			words = append(words, constraintWords(k.Str, v))
		default:
			if w := constraintWords(k.Str, v); w != "" {
				words = append(words, w)
			}
		}
		return true
	})
	if len(words) > 0 {
		w := strings.Join(words, "; ")
		if desc == "" {
			desc = strings.ToUpper(w[:1]) + w[1:] + "."
		} else {
			desc = strings.TrimRight(desc, " ") + " (" + w + ")"
		}
	}
	if desc != "" {
		key("description")
		b = jsonw.AppendString(b, desc)
	}
	return append(b, '}')
}

// maxWordsJSON cuts a value quoted in words: enough for a default or an
// example, not a document. maxSchemaWords cuts a subschema quoted in words
// (a nested object, a choice of types), which the model needs whole to
// write a valid value, to what a description can reasonably hold.
const (
	maxWordsJSON   = 200
	maxSchemaWords = 2000
)

// branchTypes is the JSON list of the types the branches of an anyOf or
// oneOf name, each once, in order; nil unless every branch names exactly
// one type.
func branchTypes(v gjson.Result) []byte {
	var types []string
	ok := v.IsArray()
	v.ForEach(func(_, s gjson.Result) bool {
		t := s.Get("type")
		if t.Type != gjson.String {
			ok = false
			return false
		}
		if !slices.Contains(types, t.Str) {
			types = append(types, t.Str)
		}
		return true
	})
	if !ok || len(types) == 0 {
		return nil
	}
	b := []byte{'['}
	for i, t := range types {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, t)
	}
	return append(b, ']')
}

// constraintWords says in words what keyword k with value v asks, for a
// format that cannot carry the keyword; "" for an annotation that does not
// constrain the value (title, $comment, x-…).
func constraintWords(k string, v gjson.Result) string {
	quote := func(max int) string {
		s := string(jsonw.AppendCompact(nil, v.Raw))
		if len(s) > max {
			s = strings.ToValidUTF8(s[:max], "") + "…"
		}
		return s
	}
	raw := func() string { return quote(maxWordsJSON) }
	schema := func() string { return quote(maxSchemaWords) }
	switch k {
	case "minimum":
		return "at least " + v.Raw
	case "maximum":
		return "at most " + v.Raw
	case "exclusiveMinimum":
		return "more than " + v.Raw
	case "exclusiveMaximum":
		return "less than " + v.Raw
	case "multipleOf":
		return "a multiple of " + v.Raw
	case "minLength":
		return "at least " + counted(v.Raw, "character")
	case "maxLength":
		return "at most " + counted(v.Raw, "character")
	case "pattern":
		return "matching the regular expression " + raw()
	case "format":
		if v.Type != gjson.String {
			return "format " + raw()
		}
		return "in the format " + v.Str
	case "default":
		return "default " + raw()
	case "const":
		return "must be " + raw()
	case "examples":
		return "for example " + raw()
	case "minItems":
		return "at least " + counted(v.Raw, "item")
	case "maxItems":
		return "at most " + counted(v.Raw, "item")
	case "uniqueItems":
		if v.Type == gjson.True {
			return "no item twice"
		}
		return ""
	case "minProperties":
		return "at least " + counted(v.Raw, "property")
	case "maxProperties":
		return "at most " + counted(v.Raw, "property")
	case "additionalProperties":
		switch {
		case v.Type == gjson.False:
			return "no properties other than those listed"
		case v.IsObject():
			return "other properties must match " + schema()
		}
		return ""
	case "deprecated":
		if v.Type == gjson.True {
			return "deprecated"
		}
		return ""
	case "anyOf":
		return "any of " + schema()
	case "oneOf":
		return "exactly one of " + schema()
	case "properties":
		return "an object with the properties " + schema()
	case "required":
		return "with " + raw() + " required"
	case "$ref", "allOf", "not", "if", "then", "else", "contains",
		"prefixItems", "patternProperties", "propertyNames", "dependentRequired",
		"dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "minContains",
		"maxContains", "contentMediaType", "contentEncoding":
		return k + " " + raw()
	}
	return ""
}

// appendOllamaFunction appends the description and parameters of t's
// function object for Ollama (the name is written already).
func appendOllamaFunction(b []byte, t *tools.Tool) []byte {
	var params []byte
	params, words := appendOllamaParams(params, t.InputSchema)
	desc := t.Description
	if words != "" {
		if desc != "" {
			desc = strings.TrimRight(desc, " ") + " "
		}
		desc += words
	}
	b = append(b, `,"description":`...)
	b = jsonw.AppendString(b, desc)
	b = append(b, `,"parameters":`...)
	return append(b, params...)
}

// counted is "1 item", "3 items": n as written, and noun in the plural
// unless n is 1.
func counted(n, noun string) string {
	if n == "1" {
		return n + " " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return n + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return n + " " + noun + "s"
}
