package redact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/leaktest"
)

// A secret written JSON-escaped, by any encoder and in any case of hex,
// is found as surely as the raw one: in plain text, and in JSON whose
// strings hold escaped JSON.
func TestRedactEscapedForms(t *testing.T) {
	secret := `p&ss<w0rd>é/"q\` + "\t😀"
	r := New([]string{"DB_PASSWORD=" + secret}, nil)
	for _, form := range leaktest.Forms(secret) {
		text := "before " + form + " after"
		if got := r.String(text); got != "before [REDACTED] after" {
			t.Errorf("form %q:\n got %q", form, got)
		}
		// The same, printed by a tool as a JSON document.
		doc := []byte(`{"log":"` + strings.ReplaceAll(strings.ReplaceAll(text, `\`, `\\`), `"`, `\"`) + `"}`)
		if got := r.JSON(doc); leaktest.Find(string(got), leaktest.Forms(secret)) != "" {
			t.Errorf("JSON with form %q: %s", form, got)
		}
	}
	// The issue's own example, as Go and Python write it.
	r = New(nil, nil, "p&ss<w0rd>é")
	for _, text := range []string{`{"password":"p\u0026ss\u003cw0rd\u003e\u00e9"}`, `{"password": "p&ss<w0rd>\u00E9"}`} {
		if got := r.String(text); strings.Contains(got, "w0rd") {
			t.Errorf("String(%s) = %s", text, got)
		}
	}
}

// Text that merely looks like escapes, or holds part of a secret, is
// kept as it is.
func TestRedactEscapesLeaveOrdinaryText(t *testing.T) {
	r := New(nil, nil, "p&ss<w0rd>é")
	for _, s := range []string{
		`C:\Users\p\u0026ss\u003cw0rd`,            // the secret cut short
		`{"a":"p\u0026ss\u003cw0rd\u003e\u00e8"}`, // one character off
		`\u00zz \ud83d \\\\ \u`,                   // broken escapes
		strings.Repeat(`\n\t\"`, 1000),
	} {
		if got := r.String(s); got != s {
			t.Errorf("String(%q) = %q", s, got)
		}
	}
}

// FuzzRedactEscaped: for any secret, every form leaktest knows is
// replaced, whole, and the text around it is kept.
func FuzzRedactEscaped(f *testing.F) {
	for _, s := range []string{"p&ss<w0rd>é", "hunter2/\"\\", "\x00\x01\x1f\u2028\u2029", "😀😀😀", "ab\\u0026cd", "aaaaaaaa"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, secret string) {
		if len(secret) < minSecretLen || !utf8.ValidString(secret) || strings.Contains(secret, "|") || strings.TrimSpace(secret) == "" {
			t.Skip()
		}
		forms := leaktest.Forms(secret)
		const kept = "x | " + Marker + " | y"
		if leaktest.Find(kept, forms) != "" {
			t.Skip() // the secret is a piece of what redaction writes
		}
		r := New(nil, nil, secret)
		for _, form := range forms {
			got := r.String("x | " + form + " | y")
			if f := leaktest.Find(got, forms); f != "" {
				t.Fatalf("form %q of %q: %q is left in %q", form, secret, f, got)
			}
			if !strings.HasPrefix(got, "x | ") || !strings.HasSuffix(got, " | y") {
				t.Fatalf("form %q of %q: the text around it changed: %q", form, secret, got)
			}
		}
	})
}

// A value of white space alone is no secret: output keeps its spaces.
func TestRedactIgnoresBlankValues(t *testing.T) {
	r := New([]string{"API_KEY=        "}, nil, "\t\t\t\t\t\t")
	for _, s := range []string{"a        b", "\t\t\t\t\t\t\tx"} {
		if got := r.String(s); got != s {
			t.Errorf("String(%q) = %q", s, got)
		}
	}
}
