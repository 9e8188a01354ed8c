// Package jsonread holds the few ways the event decoders read a field of
// a line (with gjson): what the encoder would have written, and the zero
// value for anything else, so that a hand-edited line is read as far as
// it makes sense.
package jsonread

import "github.com/tidwall/gjson"

// EachField calls fn with each top-level key and value of line, in order:
// of a key given twice, the last one read wins, as in most JSON readers.
func EachField(line []byte, fn func(k string, v gjson.Result)) {
	gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
		fn(k.Str, v)
		return true
	})
}

// Str is v's text when it is a JSON string, else "".
func Str(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// Strings is the strings of v when it is an array, the rest left out.
func Strings(v gjson.Result) []string {
	var ss []string
	v.ForEach(func(_, s gjson.Result) bool {
		if s.Type == gjson.String {
			ss = append(ss, s.Str)
		}
		return true
	})
	return ss
}

// Raw is v as written, unless it is absent or null.
func Raw(v gjson.Result) []byte {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	return []byte(v.Raw)
}
