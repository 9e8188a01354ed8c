// Package leaktest helps tests prove that nothing leaks: that a secret
// never reaches output, and that no goroutine outlives the call that
// started it (NoGoroutine). For secrets, it writes a secret in the forms
// JSON encoders give it, and looks for every form in text and in the
// strings of JSON events.
package leaktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf16"
)

// RandomSecret is a secret of at least 8 bytes made of the characters
// escapes are about: HTML specials, quotes, slashes, controls, accents,
// CJK and emoji.
func RandomSecret(r *rand.Rand) string {
	pieces := []string{"a", "Z", "7", "&", "<", ">", `"`, `\`, "/", "'", "\n", "\t", "\x01", "é", "ß", "中", "😀", "\u2028", " ", "%", "u00"}
	var b strings.Builder
	for b.Len() < 8 || r.IntN(6) > 0 {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// Forms returns secret raw and JSON-escaped as encoders write it: Go's
// json.Marshal (HTML-safe: \u0026 \u003c \u003e), Go without HTML
// escaping, Python's json.dumps (\uXXXX for all but ASCII), the same with
// upper-case hex, with / escaped as \/ (PHP), every character as \uXXXX,
// and the Go form escaped a second time (JSON in a JSON string).
func Forms(secret string) []string {
	goHTML := marshal(secret, true)
	forms := []string{
		secret,
		goHTML,
		marshal(secret, false),
		escapeEach(secret, false, "%04x"),
		escapeEach(secret, false, "%04X"),
		strings.ReplaceAll(goHTML, "/", `\/`),
		escapeEach(secret, true, "%04x"),
		escapeEach(secret, true, "%04X"),
		marshal(goHTML, true),
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range forms {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// marshal is s as encoding/json writes it, without the quotes.
func marshal(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// escapeEach writes s as JSON string content with \uXXXX (in hexFormat)
// for every non-ASCII character, or for every character when all is set,
// and short escapes for the rest where JSON needs one.
func escapeEach(s string, all bool, hexFormat string) string {
	var b strings.Builder
	u := func(r rune) { fmt.Fprintf(&b, `\u`+hexFormat, r) }
	for _, r := range s {
		switch {
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			u(hi)
			u(lo)
		case all, r >= 0x7F:
			u(r)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20, r == '"', r == '\\':
			u(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Find returns the first of forms found in text, or in a string of text
// when text is JSON (or JSON lines): the decoded strings, keys included,
// are looked in as well, since a form there may be escaped once more in
// the text. "" when there is none.
func Find(text string, forms []string) string {
	for _, f := range forms {
		if strings.Contains(text, f) {
			return f
		}
	}
	dec := json.NewDecoder(strings.NewReader(text))
	for {
		var v any
		if dec.Decode(&v) != nil {
			return ""
		}
		if f := findIn(v, forms); f != "" {
			return f
		}
	}
}

func findIn(v any, forms []string) string {
	switch v := v.(type) {
	case string:
		for _, f := range forms {
			if strings.Contains(v, f) {
				return f
			}
		}
	case []any:
		for _, x := range v {
			if f := findIn(x, forms); f != "" {
				return f
			}
		}
	case map[string]any:
		for k, x := range v {
			if f := findIn(k, forms); f != "" {
				return f
			}
			if f := findIn(x, forms); f != "" {
				return f
			}
		}
	}
	return ""
}
