package parse

import (
	"bytes"
	"strings"
)

// A tag of markup never seen before, read whatever its spelling: <x>,
// <|x|>, <｜x｜>, [x], ‹x›, a namespace (NS:x, NS|x, NS｜x) or a suffix
// (x:opensource), and tokenizer residue inside it (Ġ, ▁, a literal
// \u0120) or a dropped space (<invokename="f">). The generic reader
// (generic.go) finds calls by the words of such tags, never by their
// exact bytes.

// gtag is one tag read by lexTag.
type gtag struct {
	start, end int // the tag is b[start:end]
	closing    bool
	// word is the tag's name folded for comparison: lower case, residue
	// and namespace gone, without its attributes ("invoke", "arg_key").
	word string
	// name is the tag's name as written, minus residue and namespace:
	// a parameter's key when the tag's name is the key (<city>Paris</city>).
	name string
	// attr is the value after the tag's first '=' (name="f", =f, ="f"),
	// hasAttr whether there is one; attrKey is the word before the '='.
	attr, attrKey string
	hasAttr       bool
	residue       bool // written with tokenizer residue
	forceString   bool // string="true" (DeepSeek DSML)
}

// maxTag bounds a tag's length: markup is short, and a '<' in prose must
// cost little.
const maxTag = 160

var (
	fullBar   = []byte("｜")
	angleQ    = []byte("‹")
	angleQEnd = []byte("›")
)

// tagStart reports whether a tag may start at b[i]: '<', '[' or '‹'.
func tagStart(b []byte, i int) bool {
	return i < len(b) && (b[i] == '<' || b[i] == '[' || bytes.HasPrefix(b[i:], angleQ))
}

// lexTag reads the tag at b[i]. It is needMore when b ends inside what
// may still be one, noMatch when b[i] starts none.
func lexTag(b []byte, i int, eof bool) (gtag, status) {
	var t gtag
	if i >= len(b) {
		return t, needOrNotStatus(eof)
	}
	var open int
	var close []byte
	switch {
	case b[i] == '<':
		open, close = 1, []byte(">")
		if i+1 < len(b) && b[i+1] == '|' {
			open = 2
		} else if bytes.HasPrefix(b[i+1:], fullBar) {
			open = 1 + len(fullBar)
		} else if i+1 == len(b) || len(b)-i-1 < len(fullBar) && bytes.HasPrefix(fullBar, b[i+1:]) {
			if !eof {
				return t, needMore
			}
		}
	case b[i] == '[':
		open, close = 1, []byte("]")
	case bytes.HasPrefix(b[i:], angleQ):
		open, close = len(angleQ), angleQEnd
	case !eof && len(b)-i < len(angleQ) && bytes.HasPrefix(angleQ, b[i:]):
		return t, needMore
	default:
		return t, noMatch
	}
	win := b[i+open : min(len(b), i+maxTag)]
	e := bytes.Index(win, close)
	if nl := bytes.IndexAny(win, "\n<[{"); nl >= 0 && (e < 0 || nl < e) {
		return t, noMatch
	}
	if e < 0 {
		if !eof && i+maxTag > len(b) {
			return t, needMore
		}
		return t, noMatch
	}
	inner := win[:e]
	t.start, t.end = i, i+open+e+len(close)
	// The bars of <|x|> and <｜x｜>; a trailing one alone closes
	// (<tool_call|>, Gemma 4's spelling of an end).
	trailing := false
	if n := len(inner); n > 0 && inner[n-1] == '|' {
		inner, trailing = inner[:n-1], true
	} else if bytes.HasSuffix(inner, fullBar) {
		inner, trailing = inner[:len(inner)-len(fullBar)], true
	}
	s, residue := foldResidue(inner)
	t.residue = residue
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "/") {
		t.closing, s = true, strings.TrimSpace(s[1:])
	} else if trailing && open == 1 {
		t.closing = true
	}
	if s == "" {
		return t, noMatch
	}
	head := s
	if eq := strings.IndexByte(s, '='); eq >= 0 {
		t.hasAttr = true
		left := strings.TrimSpace(s[:eq])
		t.attr, t.forceString = attrValue(s[eq+1:]), strings.Contains(s, `string="true"`)
		head = left
		if sp := strings.LastIndexAny(left, " \t"); sp >= 0 {
			t.attrKey, head = left[sp+1:], strings.TrimSpace(left[:sp])
		} else if n := len(left); n > 4 && strings.HasSuffix(strings.ToLower(left), "name") {
			// A dropped space: <invokename="f">, <paramname="k">.
			t.attrKey, head = "name", left[:n-4]
		} else {
			t.attrKey = left
		}
	}
	if sp := strings.IndexAny(head, " \t"); sp >= 0 {
		head = head[:sp]
	}
	t.name = unspace(head)
	t.word = strings.ToLower(t.name)
	if !t.closing && (strings.HasSuffix(t.word, "_end") || strings.HasPrefix(t.word, "end_")) {
		t.closing = true
		t.word = strings.TrimSuffix(strings.TrimPrefix(t.word, "end_"), "_end")
	} else if strings.HasSuffix(t.word, "_begin") || strings.HasSuffix(t.word, "_start") {
		t.word = strings.TrimSuffix(strings.TrimSuffix(t.word, "_begin"), "_start")
	}
	if t.word == "" {
		return t, noMatch
	}
	return t, matched
}

// needOrNotStatus is needMore until the end of the input, then noMatch.
func needOrNotStatus(eof bool) status {
	if eof {
		return noMatch
	}
	return needMore
}

// foldResidue returns b as a string with tokenizer residue made plain:
// Ġ and a literal \u0120 are spaces, ▁ an underscore between words.
func foldResidue(b []byte) (string, bool) {
	if !bytes.Contains(b, []byte("Ġ")) && !bytes.Contains(b, []byte("▁")) && !bytes.Contains(b, []byte(`\u0120`)) {
		return string(b), false
	}
	s := string(b)
	residue := strings.Contains(s, "Ġ") || strings.Contains(s, `\u0120`)
	if strings.Contains(s, "▁") {
		// Between words ▁ is how DeepSeek's tokens are spelled
		// (tool▁calls▁begin); at a word's edge it is residue.
		t := strings.TrimPrefix(s, "/")
		residue = residue || strings.HasPrefix(t, "▁") || strings.HasSuffix(t, "▁") || strings.Contains(t, " ▁") || strings.Contains(t, "▁ ")
	}
	s = strings.ReplaceAll(s, "Ġ", " ")
	s = strings.ReplaceAll(s, `\u0120`, " ")
	s = strings.ReplaceAll(s, "▁", "_")
	return s, residue
}

// unspace returns the part of a tag's name that names it: of NS:x,
// NS|x, NS｜x and x:suffix, the part that reads as markup (tool_call,
// invoke, arg_key, ...), else the last; residue's underscores trimmed.
func unspace(s string) string {
	s = strings.Trim(s, "_ ")
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == '|' || r == '｜' })
	if len(parts) <= 1 {
		return s
	}
	for _, p := range parts {
		if markupWord(strings.ToLower(p)) {
			return strings.Trim(p, "_ ")
		}
	}
	return strings.Trim(parts[len(parts)-1], "_ ")
}

// markupWord reports whether a tag's word reads as tool-call markup.
func markupWord(w string) bool {
	for _, k := range [...]string{"tool", "call", "func", "invoke", "action", "plugin", "param", "arg", "key", "value"} {
		if strings.Contains(w, k) {
			return true
		}
	}
	return false
}

// callWord reports whether a tag's word reads as a call's or a call
// section's marker (tool_call, function_calls, invoke), not a
// parameter's or any other tag's (<b>, <div>).
func callWord(w string) bool {
	for _, k := range [...]string{"tool", "call", "func", "invoke", "action", "plugin"} {
		if strings.Contains(w, k) {
			return true
		}
	}
	return false
}

// nameAttr reports whether t's attribute names the call's tool:
// name="f", tool="f", or the tag's own word (function=f, invokename="f").
func nameAttr(t *gtag) bool {
	k := strings.ToLower(t.attrKey)
	return t.hasAttr && (k == "name" || k == "tool" || k == "tool_name" || k == "to" || strings.HasSuffix(k, "name") || callWord(k))
}

// attrValue is an attribute's value: quoted, or up to a space.
func attrValue(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 0 && (s[0] == '"' || s[0] == '\'') {
		if e := strings.IndexByte(s[1:], s[0]); e >= 0 {
			return s[1 : 1+e]
		}
		return s[1:]
	}
	if sp := strings.IndexAny(s, " \t"); sp >= 0 {
		return s[:sp]
	}
	return s
}
