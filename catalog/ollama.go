package catalog

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

// Ollama's API types keep only part of a JSON Schema: the parameters
// object has type, $defs, items, required and properties, and each
// property type, anyOf, items, description, enum, properties and
// required (api.ToolFunctionParameters and api.ToolProperty). Anything
// else a sidecar's schema says would be dropped when Ollama decodes the
// request, so the model would never see it; appendOllamaParams writes it
// into the description of the property that had it, in words, and what
// the parameters object itself had into the tool's description.

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
		case "items", "enum", "required":
			key(k.Str)
			b = jsonw.AppendCompact(b, v.Raw)
		case "description":
			if v.Type == gjson.String {
				desc = v.Str
			}
		case "properties":
			key("properties")
			b = appendOllamaProps(b, v)
		case "anyOf":
			if !v.IsArray() {
				break
			}
			key("anyOf")
			b = append(b, '[')
			i := 0
			v.ForEach(func(_, s gjson.Result) bool {
				if i > 0 {
					b = append(b, ',')
				}
				i++
				b = appendOllamaProp(b, s)
				return true
			})
			b = append(b, ']')
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

// maxWordsJSON cuts a schema quoted in words: enough for a small subschema
// or a default, not a document.
const maxWordsJSON = 200

// constraintWords says in words what keyword k with value v asks, for a
// format that cannot carry the keyword; "" for an annotation that does not
// constrain the value (title, $comment, x-…).
func constraintWords(k string, v gjson.Result) string {
	raw := func() string {
		s := string(jsonw.AppendCompact(nil, v.Raw))
		if len(s) > maxWordsJSON {
			s = s[:maxWordsJSON] + "…"
		}
		return s
	}
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
			return "other properties must match " + raw()
		}
		return ""
	case "deprecated":
		if v.Type == gjson.True {
			return "deprecated"
		}
		return ""
	case "$ref", "oneOf", "allOf", "not", "if", "then", "else", "contains",
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
