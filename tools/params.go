package tools

import (
	"strings"

	"github.com/tidwall/gjson"
)

// ParamType returns the JSON Schema type the tool's schema gives the
// top-level parameter param ("string", "integer", "object", ...), or ""
// when the schema does not say or allows several types. Parsers of formats
// that write values as bare text use it to keep "007" a string where the
// schema asks for one.
func (t *Tool) ParamType(param string) string {
	if t.InputSchema == nil {
		return ""
	}
	prop := gjson.GetBytes(t.InputSchema, "properties."+gjsonEscape(param))
	return schemaType(t.InputSchema, prop, 0)
}

// schemaType reads the single type of a schema, following local $refs and
// a nullable type list like ["string","null"].
func schemaType(root []byte, s gjson.Result, depth int) string {
	if !s.IsObject() || depth > 8 {
		return ""
	}
	if ref := s.Get(`\$ref`); ref.Type == gjson.String && depth < 8 {
		if target, ok := localRef(root, ref.Str); ok {
			return schemaType(root, target, depth+1)
		}
		return ""
	}
	typ := s.Get("type")
	switch {
	case typ.Type == gjson.String:
		return typ.Str
	case typ.IsArray():
		found := ""
		for _, v := range typ.Array() {
			if v.Str == "null" {
				continue
			}
			if found != "" {
				return ""
			}
			found = v.Str
		}
		return found
	}
	if e := s.Get("enum"); e.IsArray() {
		// An enum of strings is a string, whatever its text looks like.
		all := true
		e.ForEach(func(_, v gjson.Result) bool {
			all = v.Type == gjson.String
			return all
		})
		if all && len(e.Array()) > 0 {
			return "string"
		}
	}
	return ""
}

// localRef finds the target of a "#/..." reference in root.
func localRef(root []byte, ref string) (gjson.Result, bool) {
	if !strings.HasPrefix(ref, "#/") {
		return gjson.Result{}, false
	}
	parts := strings.Split(ref[2:], "/")
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		parts[i] = gjsonEscape(p)
	}
	r := gjson.GetBytes(root, strings.Join(parts, "."))
	return r, r.Exists()
}

// gjsonEscape escapes the characters gjson gives meaning to in a path.
func gjsonEscape(s string) string {
	if !strings.ContainsAny(s, `.*?|#@\!=<>%`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`.*?|#@\!=<>%`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
