package redact

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/unsafestr"
)

// JSON returns the JSON text raw with secrets replaced in every string,
// object keys included; raw itself when there is none. What is not a
// string is kept byte for byte. A string with a secret is written anew
// (AppendString), so a secret written with escapes is caught too.
func (r *Redactor) JSON(raw []byte) []byte {
	return r.rewriteJSON(raw, nil)
}

// Parts returns raw, the content array of an MCP result, with secrets
// replaced as JSON does, except in the base64 payloads of its parts (an
// image's or audio's "data", a resource's "blob"), which are looked at as
// what they encode (see payload): random data can look like a key, and a
// file is changed only where it holds a secret.
func (r *Redactor) Parts(raw []byte) []byte {
	return r.rewriteJSON(raw, isPartPayload)
}

// isPartPayload reports whether the keys leading to a string of an MCP
// content array ("" for an array element) name a base64 payload.
func isPartPayload(keys []string) bool {
	return len(keys) == 2 && keys[1] == "data" ||
		len(keys) == 3 && keys[1] == "resource" && keys[2] == "blob"
}

// payload redacts a base64 payload of an MCP content part: a secret
// value written as it is (a tool that put the key itself in "data"), and
// any secret in the bytes it decodes to, which are encoded again with the
// secret replaced. The well-known formats are not looked for in the base64
// text, where random bytes can spell one; they are in what it decodes to.
func (r *Redactor) payload(s string) string {
	if r != nil {
		sp := r.valueSpans(s, nil)
		if len(sp) > 0 {
			slices.SortFunc(sp, func(a, b span) int { return cmp.Compare(a.start, b.start) })
			return string(appendRedacted(nil, s, mergeSpans(sp)))
		}
	}
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	if red := r.Bytes(data); !bytes.Equal(red, data) {
		return base64.StdEncoding.EncodeToString(red)
	}
	return s
}

// rewriteJSON redacts the strings of raw, and the numbers (a secret of
// digits alone, given as a number), with the strings for which skip (when
// not nil) is true, given the keys that lead to them, taken as base64
// payloads (see payload).
func (r *Redactor) rewriteJSON(raw []byte, skip func(keys []string) bool) []byte {
	if len(raw) == 0 {
		return raw
	}
	// Most results hold no secret and no escape: one look at the whole
	// (not with --redact expressions, which may be anchored to a string).
	// Payloads are looked at decoded, which this look cannot do.
	payloads := skip != nil && (bytes.Contains(raw, []byte(`"data"`)) || bytes.Contains(raw, []byte(`"blob"`)))
	if !payloads && (r == nil || len(r.extra) == 0) && bytes.IndexByte(raw, '\\') < 0 && len(r.spans(unsafestr.String(raw))) == 0 {
		return raw
	}
	var out []byte
	at := 0
	var keys []string // per open container: its current key, "" in an array
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{', '[':
			keys = append(keys, "")
			continue
		case '}', ']':
			if len(keys) > 0 {
				keys = keys[:len(keys)-1]
			}
			continue
		case '"':
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			end := i + 1
			for end < len(raw) && strings.IndexByte("0123456789+-.eE", raw[end]) >= 0 {
				end++
			}
			if num := unsafestr.String(raw[i:end]); r.String(num) != num {
				// Its digits hold a secret: the number becomes the marker,
				// a string; a reader sees a value replaced, not a number.
				out = append(out, raw[at:i]...)
				out = jsonw.AppendString(out, Marker)
				at = end
			}
			i = end - 1
			continue
		default:
			continue
		}
		end, escaped := stringEnd(raw, i)
		if end < 0 {
			break // not JSON: keep the rest as it is
		}
		tok := raw[i:end]
		var s string
		if escaped {
			if json.Unmarshal(tok, &s) != nil {
				i = end - 1
				continue
			}
		} else {
			s = string(tok[1 : len(tok)-1])
		}
		isKey := isObjectKey(raw, end)
		if isKey && len(keys) > 0 {
			keys[len(keys)-1] = s
		}
		if !isKey && skip != nil && skip(keys) {
			if red := r.payload(s); red != s {
				out = append(out, raw[at:i]...)
				out = jsonw.AppendString(out, red)
				at = end
			}
		} else {
			if red := r.String(s); red != s {
				out = append(out, raw[at:i]...)
				out = jsonw.AppendString(out, red)
				at = end
			}
		}
		i = end - 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[at:]...)
}

// stringEnd returns the index just past the JSON string starting at
// raw[i] (a quote), and whether it has escapes; -1 when it never ends.
func stringEnd(raw []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(raw); {
		k := bytes.IndexAny(raw[j:], "\"\\")
		if k < 0 {
			return -1, escaped
		}
		j += k
		if raw[j] == '"' {
			return j + 1, escaped
		}
		escaped = true
		j += 2
	}
	return -1, escaped
}

// isObjectKey reports whether the string ending at raw[end] is an object
// key: the next token is a colon.
func isObjectKey(raw []byte, end int) bool {
	for ; end < len(raw); end++ {
		switch raw[end] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}
