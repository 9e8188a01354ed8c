package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// A format file is a Spec as JSON (docs/formats.md). Reading one is
// strict: an unknown field is an error that suggests the field meant, a
// value of the wrong type names its field, and the spec must pass Check.

// FormatFileError is what is wrong with a format file.
type FormatFileError struct {
	File  string
	Field string // "" when the file is not JSON at all
	Msg   string
}

func (e *FormatFileError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("format file %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("format file %s: field %q: %s", e.File, e.Field, e.Msg)
}

// maxFormatFile bounds a format file: a spec is a few hundred bytes.
const maxFormatFile = 1 << 20

// LoadFormatFile reads the format file at path: a regular file (a FIFO
// or a device would never end) of at most maxFormatFile bytes.
func LoadFormatFile(path string) (*Spec, error) {
	bad := func(msg string) error { return &FormatFileError{File: path, Msg: msg} }
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, bad(fmt.Sprintf("%v; give the path of a JSON file as docs/formats.md describes", errors.Unwrap(err)))
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, bad("not a regular file; give the path of a JSON file as docs/formats.md describes")
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFormatFile+1))
	if err != nil {
		return nil, bad(err.Error())
	}
	if len(b) > maxFormatFile {
		return nil, bad(fmt.Sprintf("larger than %d MiB; a format file is one small JSON object", maxFormatFile>>20))
	}
	return ParseFormatFile(path, b)
}

// ParseFormatFile reads a format file's contents; name is its path, for
// errors and the spec's Source.
func ParseFormatFile(name string, data []byte) (*Spec, error) {
	bad := func(field, format string, args ...any) error {
		return &FormatFileError{File: name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	var raw any
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(&raw); err != nil {
		return nil, bad("", "not JSON: %v; write one JSON object, as docs/formats.md shows", err)
	}
	if d.More() {
		return nil, bad("", "more than one JSON value: write one object per file")
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, bad("", "not a JSON object: write {\"format\": …, \"call\": {…}, \"body\": …}")
	}
	if err := checkFields(name, "", obj, specFields); err != nil {
		return nil, err
	}
	var s Spec
	if err := json.Unmarshal(data, &s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, bad(te.Field, "is %s here; it must be %s", te.Value, jsonTypeName(te.Type.String()))
		}
		return nil, bad("", "%v", err)
	}
	if err := s.Check(); err != nil {
		var se *SpecError
		if errors.As(err, &se) {
			return nil, bad(se.Field, "%s", se.Msg)
		}
		return nil, bad("", "%v", err)
	}
	s.Source = name
	return &s, nil
}

// jsonTypeName says a Go type the way a JSON writer thinks of it.
func jsonTypeName(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "an object"
}

// specFields lists the fields a format file may have, each with the
// fields of its object (nil for a value that is not one). The entries
// of an array (reasoning) have the fields listed for it.
var specFields = map[string]map[string]any{
	"": {
		"format": nil, "models": nil, "example": nil, "body": nil,
		"name_keys": nil, "arguments_keys": nil, "name_is_key": nil, "string_quote": nil, "fenced": nil, "lines": nil, "after_reasoning": nil, "skip": nil, "prompt": nil, "tag_suffix": nil,
		"json_arguments": nil, "empty_needs_section": nil,
		"also_spelled": "spelling",
		"escaped":      nil,
		"json_tags":    "markers",
		"section":      "markers",
		"call":         "call",
		"param":        "param",
		"key":          "markers",
		"value":        "markers",
		"reasoning":    "markers",
		"result":       "result",
	},
	"markers":  {"start": nil, "end": nil},
	"spelling": {"from": nil, "to": nil},
	"result":   {"start": nil, "end": nil, "json": nil},
	"call":     {"start": nil, "name_start": nil, "name_end": nil, "name_prefix": nil, "index_sep": nil, "end": nil, "spaced": nil, "no_end": nil, "id_start": nil, "name_end_optional": nil, "name_suffix": nil, "word": nil, "attribute": nil, "tag_end": nil, "name_end_exact": nil},
	"param":    {"start": nil, "key_end": nil, "end": nil, "wrapped": nil, "attribute": nil, "type_attribute": nil, "tag_end": nil},
}

// allFields lists every field path, for suggestions.
func allFields() []string {
	var out []string
	for k, v := range specFields[""] {
		out = append(out, k)
		if kind, ok := v.(string); ok {
			for f := range specFields[kind] {
				out = append(out, k+"."+f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkFields reports the first unknown field of obj (at path prefix),
// with the known field it most likely means.
func checkFields(file, prefix string, obj map[string]any, kinds map[string]map[string]any) error {
	level := ""
	if prefix != "" {
		level = specKind(prefix)
	}
	known := kinds[level]
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		kind, ok := known[k]
		if !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			// A field of another level first: "name_end" for
			// "call.name_end"; then the closest of this level's.
			all := allFields()
			hint := ""
			if n := slices.IndexFunc(all, func(f string) bool { return strings.HasSuffix(f, "."+k) || f == k }); n >= 0 {
				hint = fmt.Sprintf(" (did you mean %q?)", all[n])
			} else if hint = didYouMean(k, names); hint == "" {
				hint = didYouMean(path, all)
			}
			where := "a format file"
			if prefix != "" {
				where = fmt.Sprintf("%q", prefix)
			}
			return &FormatFileError{File: file, Field: path, Msg: fmt.Sprintf("is not a field of %s%s; the fields are %s (docs/formats.md)", where, hint, strings.Join(names, ", "))}
		}
		if kind == nil {
			continue
		}
		switch v := obj[k].(type) {
		case map[string]any:
			if err := checkFields(file, path, v, kinds); err != nil {
				return err
			}
		case []any:
			for n, e := range v {
				if m, ok := e.(map[string]any); ok {
					if err := checkFields(file, fmt.Sprintf("%s[%d]", path, n), m, kinds); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// specKind is the kind of object at a field path.
func specKind(path string) string {
	top, _, _ := strings.Cut(path, ".")
	top, _, _ = strings.Cut(top, "[")
	kind, _ := specFields[""][top].(string)
	return kind
}

// MarshalSpec writes s as a format file: indented JSON, markers as
// written (no \u003c for '<').
func MarshalSpec(s *Spec) ([]byte, error) {
	if !s.FileForm() {
		return nil, fmt.Errorf("format %q is read by code of its own (%s), not by a spec: it has no format file form", s.Format, s.Code)
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
