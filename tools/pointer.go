package tools

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// appendPointerToken appends a property name as a JSON pointer token.
func appendPointerToken(dst []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// pointerToken is appendPointerToken for one name, as a string.
func pointerToken(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return string(appendPointerToken(nil, name))
}

// valueAt follows a JSON pointer in decoded arguments; nil when it leads
// nowhere.
func valueAt(v any, ptr string) any {
	for ptr != "" {
		var tok string
		tok, ptr = nextToken(ptr)
		tok = unescapeToken(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// nextToken splits the first token off a JSON pointer ("/a/b" -> "a", "/b").
func nextToken(p string) (string, string) {
	p = strings.TrimPrefix(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// jsonAt follows a JSON pointer (RFC 6901) from v.
func jsonAt(v gjson.Result, ptr string) gjson.Result {
	for ptr != "" {
		var tok string
		tok, ptr = nextToken(ptr)
		tok = unescapeToken(tok)
		var next gjson.Result
		switch {
		case v.IsObject():
			v.ForEach(func(k, val gjson.Result) bool {
				if k.Str == tok {
					next = val
					return false
				}
				return true
			})
		case v.IsArray():
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 {
				return gjson.Result{}
			}
			n := 0
			v.ForEach(func(_, val gjson.Result) bool {
				if n == i {
					next = val
					return false
				}
				n++
				return true
			})
		}
		if !next.Exists() {
			return gjson.Result{}
		}
		v = next
	}
	return v
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

// unescapeToken decodes ~1 and ~0 in one pointer token.
func unescapeToken(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
}

// cutLastSegment splits "a/b/c" into "a/b" and "c".
func cutLastSegment(p string) (string, string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// lastPointerToken is the last token of a JSON pointer, decoded.
func lastPointerToken(p string) string {
	_, t := cutLastSegment(p)
	return unescapeToken(t)
}
