package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonptr"
	"github.com/toolcall/toolcall/internal/phrase"
)

// kwKind says what the value of a JSON Schema keyword holds, so a walk over
// a schema can tell subschemas from property names and from instance data.
type kwKind uint8

const (
	kwOther      kwKind = iota // an annotation, an assertion, or an unknown keyword
	kwSchema                   // one subschema (or, for items, a list of them)
	kwSchemaList               // a list of subschemas
	kwSchemaMap                // an object of names (never keywords) to subschemas
	kwData                     // instance values: never a schema, never walked
)

// keywordKind classifies the keywords of drafts 4 to 2020-12 that hold
// subschemas or data; a switch, because it runs for every key of every schema.
func keywordKind(k string) kwKind {
	switch k {
	case "items", "additionalItems", "additionalProperties", "unevaluatedItems",
		"unevaluatedProperties", "contains", "propertyNames", "not", "if", "then",
		"else", "contentSchema":
		return kwSchema
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return kwSchemaList
	case "properties", "patternProperties", "$defs", "definitions",
		"dependentSchemas", "dependencies":
		return kwSchemaMap
	case "const", "enum", "default", "examples":
		return kwData
	}
	return kwOther
}

// schemaWalk visits every keyword of every schema object under a root. With
// unknown set it also walks the object and array values of keywords it does
// not know, as if they were schemas: a local $ref may point anywhere in the
// document ("#/x-extra/thing"), and a compiler then compiles what it finds
// there, so a check for refs must look there too.
type schemaWalk struct {
	unknown   bool
	inUnknown int      // how many unknown keywords the walk is inside
	path      []string // JSON pointer tokens of the schema being visited
	visit     func(w *schemaWalk, key string, v gjson.Result)
}

func (w *schemaWalk) schema(r gjson.Result) {
	if !r.IsObject() {
		return // true, false, or not a schema at all
	}
	r.ForEach(func(k, v gjson.Result) bool {
		key := k.Str
		w.visit(w, key, v)
		switch keywordKind(key) {
		case kwSchema, kwSchemaList:
			w.path = append(w.path, key)
			w.sub(v)
			w.path = w.path[:len(w.path)-1]
		case kwSchemaMap:
			if v.IsObject() {
				w.path = append(w.path, key)
				v.ForEach(func(name, sub gjson.Result) bool {
					w.path = append(w.path, name.Str)
					w.sub(sub)
					w.path = w.path[:len(w.path)-1]
					return true
				})
				w.path = w.path[:len(w.path)-1]
			}
		case kwOther:
			if w.unknown && (v.IsObject() || v.IsArray()) {
				w.path = append(w.path, key)
				w.inUnknown++
				w.sub(v)
				w.inUnknown--
				w.path = w.path[:len(w.path)-1]
			}
		}
		return true
	})
}

// sub walks a value that is a schema or a list of schemas; "items" is either,
// depending on the draft, so every schema keyword accepts both.
func (w *schemaWalk) sub(v gjson.Result) {
	if v.IsArray() {
		i := 0
		v.ForEach(func(_, e gjson.Result) bool {
			w.path = append(w.path, strconv.Itoa(i))
			w.schema(e)
			w.path = w.path[:len(w.path)-1]
			i++
			return true
		})
		return
	}
	w.schema(v)
}

// pointer is the JSON pointer of the schema being visited, plus key.
func (w *schemaWalk) pointer(key string) string { return pathPointer(w.path, key) }

// pathPointer is the JSON pointer of the tokens of path, then key.
func pathPointer(path []string, key string) string {
	var b strings.Builder
	for _, t := range path {
		b.WriteByte('/')
		b.WriteString(jsonptr.Token(t))
	}
	b.WriteByte('/')
	b.WriteString(jsonptr.Token(key))
	return b.String()
}

// checkRefs reports every reference in schema that leaves the document:
// "$ref", "$dynamicRef" and "$recursiveRef" values must resolve inside the
// sidecar (see fetchingRefs): a fragment ("#/$defs/x", "#name"), an
// embedded resource's "$id", or a meta-schema the compiler carries.
// Nothing is ever fetched, so a remote or file reference could never
// resolve; saying so at load time beats a compile error later.
//
// Refs are found by walking the schema's structure: a property that happens
// to be named "$ref" (a key of "properties") is a name, not a reference, and
// the instance values of "const", "enum", "default" and "examples" are data.
// Unknown keywords are walked too, since a local ref may point into them.
//
// "$id" is allowed, even an absolute URL: it only names a resource. A ref
// starting with "#" resolves within the resource that holds it, which is
// part of the sidecar, so an "$id" cannot make a local ref reach out. The
// schema compiler refuses to load any URL as well, so this check is the
// friendly message, not the only guard.
func checkRefs(schema []byte) error {
	if !gjson.ValidBytes(schema) {
		return errors.New("schema is not valid JSON")
	}
	return errors.Join(inspectSchema(gjson.ParseBytes(schema), schemaURL("schema")).RefErrors...)
}

// Facts is what one walk over a sidecar's schema finds: the references
// that leave the document and the BFCL/Gorilla type names to map (see
// MapTypes), outside unknown keywords, which are kept verbatim.
type Facts struct {
	// RefErrors says of each reference that does not resolve inside the
	// document why (see checkRefs); the schema cannot be used.
	RefErrors []error
	mapped    map[string]bool
}

// BFCL reports whether the schema writes types with BFCL/Gorilla names
// (dict, float, ...), which MapTypes rewrites.
func (f Facts) BFCL() bool { return f.mapped != nil }

// Inspect walks the schema of the tool called name (name+".output" for
// its outputSchema) once for everything loading a sidecar checks, since
// the walk is most of the cost of reading one. Refs that are not a bare
// fragment, rare, are resolved against the schema's made-up address (see
// Compile) in a second walk.
func Inspect(schema gjson.Result, name string) Facts {
	return inspectSchema(schema, schemaURL(name))
}

func inspectSchema(schema gjson.Result, base string) Facts {
	var f Facts
	outward := false
	noteType := func(t gjson.Result) {
		if t.Type == gjson.String && !standardType(t.Str) {
			if _, ok := bfclTypes[t.Str]; ok {
				if f.mapped == nil {
					f.mapped = map[string]bool{}
				}
				f.mapped[t.Str] = true
			}
		}
	}
	w := &schemaWalk{unknown: true}
	w.visit = func(w *schemaWalk, key string, v gjson.Result) {
		switch key {
		case "type":
			if w.inUnknown > 0 {
				return
			}
			if v.IsArray() {
				v.ForEach(func(_, t gjson.Result) bool { noteType(t); return true })
			} else {
				noteType(v)
			}
			return
		case "$ref", "$dynamicRef", "$recursiveRef":
		default:
			return
		}
		if v.Type != gjson.String {
			f.RefErrors = append(f.RefErrors, fmt.Errorf("%s at %s must be a string, found %s", key, w.pointer(key), phrase.Describe(v)))
			return
		}
		outward = outward || !strings.HasPrefix(v.Str, "#")
	}
	w.schema(schema)
	if outward {
		f.RefErrors = append(f.RefErrors, fetchingRefs(schema, base)...)
	}
	return f
}
