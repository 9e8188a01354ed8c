// Package jsonptr reads and writes JSON pointers (RFC 6901): the schema
// check names every value it speaks of by one, and the aliases of a
// sidecar rename properties by them.
package jsonptr

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// AppendToken appends a property name as a JSON pointer token.
func AppendToken(dst []byte, name string) []byte {
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

// Token is AppendToken for one name, as a string.
func Token(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return string(AppendToken(nil, name))
}

// ValueAt follows a JSON pointer in decoded arguments; nil when it leads
// nowhere.
func ValueAt(v any, ptr string) any {
	for ptr != "" {
		var tok string
		tok, ptr = Next(ptr)
		tok = Unescape(tok)
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

// Next splits the first token off a JSON pointer ("/a/b" -> "a", "/b").
func Next(p string) (string, string) {
	p = strings.TrimPrefix(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// At follows a JSON pointer (RFC 6901) from v.
func At(v gjson.Result, ptr string) gjson.Result {
	for ptr != "" {
		var tok string
		tok, ptr = Next(ptr)
		tok = Unescape(tok)
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

// Unescape decodes ~1 and ~0 in one pointer token.
func Unescape(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
}

// CutLast splits "a/b/c" into "a/b" and "c".
func CutLast(p string) (string, string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// Last is the last token of a JSON pointer, decoded.
func Last(p string) string {
	_, t := CutLast(p)
	return Unescape(t)
}

// Compare orders JSON pointers token by token, array indexes by
// number, so /a/2 comes before /a/10.
func Compare(a, b string) int {
	for a != "" && b != "" {
		var ta, tb string
		ta, a = Next(a)
		tb, b = Next(b)
		if ta == tb {
			continue
		}
		na, errA := strconv.Atoi(ta)
		nb, errB := strconv.Atoi(tb)
		if errA == nil && errB == nil {
			return na - nb
		}
		return strings.Compare(ta, tb)
	}
	return len(a) - len(b)
}

// Label is how a pointer into a call's arguments starts a message: the
// arguments object itself has the empty pointer, which would read as
// nothing.
func Label(p string) string {
	if p == "" {
		return "arguments"
	}
	return p
}
