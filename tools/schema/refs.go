package schema

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/tidwall/gjson"
)

// Refs that are not a bare fragment ("#/$defs/x", "#name") may still
// resolve inside the sidecar: to an embedded resource with its own "$id"
// (absolute, relative or urn:), to the schema's own address, or to a
// meta-schema the compiler carries. fetchingRefs finds the ones that would
// not, resolving each as the compiler does: against the base URI of the
// resource that holds it, which each "$id" on the way down changes.

// fetchingRefs returns an error for every reference in schema (whose own
// address is base) that resolves outside the document.
func fetchingRefs(schema gjson.Result, base string) []error {
	rs := refScan{idKey: "$id", resources: map[string]bool{docPart(base): true}}
	switch draftOf(schema) {
	case "draft-04":
		rs.idKey, rs.refHidesID = "id", true
	case "draft-06", "draft-07":
		rs.refHidesID = true
	}
	rs.schema(schema, base, false)
	var errs []error
	for _, r := range rs.refs {
		switch {
		case r.bad != nil:
			errs = append(errs, fmt.Errorf("%s %q at %s is not a valid URI reference (%v); refer to a definition in the sidecar, as in \"#/$defs/NAME\"", r.key, r.value, r.ptr, r.bad))
		case rs.resources[r.doc] || carriedMetaSchema(r.resolved):
		default:
			where := ""
			if r.doc != docPart(r.value) && !strings.HasPrefix(r.doc, "toolcall:") {
				where = fmt.Sprintf(" (it resolves to %s)", r.doc)
			}
			errs = append(errs, fmt.Errorf("%s %q at %s leaves the sidecar%s: remote and file references are not allowed and nothing is fetched; move the definition under \"$defs\" and refer to it as \"#/$defs/NAME\", or embed it with its own \"$id\"",
				r.key, r.value, r.ptr, where))
		}
	}
	return errs
}

// refScan walks a schema for fetchingRefs.
type refScan struct {
	idKey      string // "$id", or draft-04's "id"
	refHidesID bool   // up to draft-07, an id beside "$ref" is ignored
	resources  map[string]bool
	refs       []foundRef
	path       []string
}

// foundRef is one reference that is not a bare fragment.
type foundRef struct {
	key, value, ptr string
	resolved, doc   string // the absolute URI, and that without its fragment
	bad             error  // the value is no URI reference
}

// schema visits one schema object whose base URI is base. Inside a
// keyword the compiler does not know (unknown), an "$id" names nothing,
// but refs are still checked: a local ref may point there.
func (rs *refScan) schema(r gjson.Result, base string, unknown bool) {
	if !r.IsObject() {
		return
	}
	if !unknown {
		var id gjson.Result
		hasRef := false
		r.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case rs.idKey:
				id = v
			case "$ref":
				hasRef = true
			}
			return true
		})
		if id.Type == gjson.String && !(hasRef && rs.refHidesID) {
			if doc := docPart(id.Str); doc != "" {
				if u, err := resolveReference(base, doc); err == nil {
					base = u
					rs.resources[docPart(u)] = true
				}
			}
		}
	}
	r.ForEach(func(k, v gjson.Result) bool {
		key := k.Str
		switch key {
		case "$ref", "$dynamicRef", "$recursiveRef":
			if v.Type == gjson.String && !strings.HasPrefix(v.Str, "#") {
				f := foundRef{key: key, value: v.Str, ptr: rs.pointer(key)}
				f.resolved, f.bad = resolveReference(base, v.Str)
				f.doc = docPart(f.resolved)
				rs.refs = append(rs.refs, f)
			}
		}
		switch keywordKind(key) {
		case kwSchema, kwSchemaList:
			rs.sub(key, v, base, unknown)
		case kwSchemaMap:
			if v.IsObject() {
				rs.path = append(rs.path, key)
				v.ForEach(func(name, s gjson.Result) bool {
					rs.sub(name.Str, s, base, unknown)
					return true
				})
				rs.path = rs.path[:len(rs.path)-1]
			}
		case kwOther:
			if v.IsObject() || v.IsArray() {
				rs.sub(key, v, base, true)
			}
		}
		return true
	})
}

// sub visits the schema, or list of schemas, v under the token tok.
func (rs *refScan) sub(tok string, v gjson.Result, base string, unknown bool) {
	rs.path = append(rs.path, tok)
	defer func() { rs.path = rs.path[:len(rs.path)-1] }()
	if !v.IsArray() {
		rs.schema(v, base, unknown)
		return
	}
	i := 0
	v.ForEach(func(_, e gjson.Result) bool {
		rs.path = append(rs.path, fmt.Sprint(i))
		rs.schema(e, base, unknown)
		rs.path = rs.path[:len(rs.path)-1]
		i++
		return true
	})
}

func (rs *refScan) pointer(key string) string { return pathPointer(rs.path, key) }

// resolveReference resolves ref against base as the compiler does; a urn:
// is absolute, and a fragment resolves against a urn: base by appending.
func resolveReference(base, ref string) (string, error) {
	if ref == "" {
		return base, nil
	}
	if strings.HasPrefix(ref, "urn:") {
		return ref, nil
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if r.IsAbs() {
		return ref, nil
	}
	if strings.HasPrefix(base, "urn:") {
		return docPart(base) + ref, nil
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	return b.ResolveReference(r).String(), nil
}

// docPart is a URI without its fragment.
func docPart(u string) string {
	doc, _, _ := strings.Cut(u, "#")
	return doc
}

// draftOf names the draft a schema's "$schema" declares ("draft-07"), or ""
// for none or one toolcall does not know.
func draftOf(schema gjson.Result) string {
	v := schema.Get(`\$schema`)
	if v.Type != gjson.String {
		return ""
	}
	return knownDraft(v.Str)
}

// knownDraft names the draft whose meta-schema is at u, as the compiler
// recognises it (http or https, with or without an empty fragment), or "".
func knownDraft(u string) string {
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = "https://" + rest
	}
	if i := strings.IndexByte(u, '#'); i >= 0 && (u[i:] == "#" || u[i:] == "#/") {
		u = u[:i]
	}
	switch u {
	case "https://json-schema.org/draft-04/schema":
		return "draft-04"
	case "https://json-schema.org/draft-06/schema":
		return "draft-06"
	case "https://json-schema.org/draft-07/schema":
		return "draft-07"
	case "https://json-schema.org/draft/2019-09/schema":
		return "2019-09"
	case "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/schema":
		return "2020-12"
	}
	return ""
}

// carriedMetaSchema reports whether the compiler has the document u refers
// to built in: a draft's meta-schema, referred to as a whole, or one of the
// vocabulary meta-schemas of 2019-09 and 2020-12.
func carriedMetaSchema(u string) bool {
	if knownDraft(u) != "" {
		return true
	}
	doc := docPart(u)
	if name, ok := strings.CutPrefix(doc, "https://json-schema.org/draft/2019-09/meta/"); ok {
		switch name {
		case "core", "applicator", "validation", "meta-data", "format", "content":
			return true
		}
	}
	if name, ok := strings.CutPrefix(doc, "https://json-schema.org/draft/2020-12/meta/"); ok {
		switch name {
		case "core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "format-assertion", "content":
			return true
		}
	}
	return false
}
