package jsonptr

import (
	"testing"

	"github.com/tidwall/gjson"
)

// Pointers are ordered token by token, indexes as numbers.
func TestCompare(t *testing.T) {
	ordered := []string{"", "/a", "/a/2", "/a/10", "/a/b", "/b", "/b~1c"}
	for i := range ordered {
		for j := range ordered {
			c := Compare(ordered[i], ordered[j])
			if (i < j) != (c < 0) || (i == j) != (c == 0) {
				t.Errorf("Compare(%q, %q) = %d", ordered[i], ordered[j], c)
			}
		}
	}
}

// A name written as a token reads back as the name, and the pointer leads
// to its value, in decoded values and in JSON text alike.
func TestTokenRoundTrip(t *testing.T) {
	for _, name := range []string{"a", "a/b", "~x", "~1", ""} {
		tok := Token(name)
		if got := Unescape(tok); got != name {
			t.Errorf("Unescape(Token(%q)) = %q", name, got)
		}
		ptr := "/o/" + tok
		if got := Last(ptr); got != name {
			t.Errorf("Last(%q) = %q, want %q", ptr, got, name)
		}
		v := map[string]any{"o": map[string]any{name: 7.0}}
		if got := ValueAt(v, ptr); got != 7.0 {
			t.Errorf("ValueAt(%q) = %v", ptr, got)
		}
		doc := `{"o":{` + string(gjson.AppendJSONString(nil, name)) + `:[1,{"x":2}]}}`
		if got := At(gjson.Parse(doc), ptr+"/1/x"); got.Raw != "2" {
			t.Errorf("At(%s, %q) = %q", doc, ptr+"/1/x", got.Raw)
		}
	}
	if got := ValueAt([]any{1.0}, "/5"); got != nil {
		t.Errorf("an index past the end gave %v", got)
	}
	if Label("") != "arguments" || Label("/a") != "/a" {
		t.Errorf("Label: %q, %q", Label(""), Label("/a"))
	}
}
