package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
)

// How the errors word what they quote: values cut short, type names, the
// hints that tell a model how to write what was wanted.

// compactJSON is raw JSON without whitespace, cut to n bytes.
func compactJSON(raw string, n int) string {
	if raw == "" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return clip.Head(raw, n)
	}
	return clip.Head(b.String(), n)
}

// typeNames reads the value of a "type" keyword: a name or a list.
func typeNames(v gjson.Result) []string {
	if v.Type == gjson.String {
		return []string{v.Str}
	}
	var out []string
	for _, t := range v.Array() {
		out = append(out, t.Str)
	}
	return out
}

// typeListJSON writes type names as the value of a "type" keyword.
func typeListJSON(types []string) string {
	if len(types) == 1 {
		return jsonw.Quote(types[0])
	}
	b := []byte{'['}
	for i, t := range types {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, t)
	}
	return string(append(b, ']'))
}

// describeValue says what a value is for a message: `string "42"`,
// `integer 7`, `null`, or `nothing` where there is no value.
func describeValue(v gjson.Result) string {
	if !v.Exists() {
		return "nothing"
	}
	if v.Type == gjson.Null {
		return "null"
	}
	return phrase.Kind(v) + " " + compactJSON(v.Raw, maxGotLen)
}

// typeHint tells the model how to write a string that spells a value of
// the wanted type, such as "42" where an integer is wanted, or an array
// or object it wrote as a string of JSON ("[\"a\"]"), which models often
// do for nested values.
func typeHint(got gjson.Result, types []string) string {
	if got.Type == gjson.String {
		if to, ok := coerceString(got.Str, types); ok {
			return fmt.Sprintf("; write %s without quotes", to)
		}
		inner := strings.TrimSpace(got.Str)
		if inner != "" && (inner[0] == '[' || inner[0] == '{') && gjson.Valid(inner) {
			if kind := phrase.Kind(gjson.Parse(inner)); slices.Contains(types, kind) {
				return fmt.Sprintf("; write the %s itself, not a string holding its JSON", kind)
			}
		}
	}
	if len(types) == 1 && types[0] == "array" && got.Exists() && !got.IsArray() {
		// {"edits": {...}} or {"files": "a.txt"} for a list of one.
		if raw := compactJSON(got.Raw, maxGotLen); !strings.HasSuffix(raw, "…") {
			return fmt.Sprintf("; an array is needed even for one item: [%s]", raw)
		}
		return "; an array is needed even for one item: put it inside [ ]"
	}
	return ""
}

// hasKey reports whether the object v has the property name.
func hasKey(v gjson.Result, name string) bool {
	found := false
	v.ForEach(func(k, _ gjson.Result) bool {
		found = k.Str == name
		return !found
	})
	return found
}

func containsString(list []string, s string) bool {
	return slices.Contains(list, s)
}

// quoteNames quotes up to n names, for messages.
func quoteNames(names []string, n int) string {
	var parts []string
	for i, s := range names {
		if i == n {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, jsonw.Quote(s))
	}
	return strings.Join(parts, ", ")
}

// fromLibPointer turns a location as the validator writes it (each token
// also URL-path-escaped) into a plain JSON pointer.
func fromLibPointer(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	toks := strings.Split(p, "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return strings.Join(toks, "/")
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
