package jsonw

import (
	"encoding/json"
	"testing"
)

// ValidString gives back what a JSON reader makes of AppendString's
// literal, for any bytes.
func FuzzValidString(f *testing.F) {
	for _, s := range []string{"", "plain", "caf\xc3\xa9", "a\xffb", "\xff\xfe\xfd", "\xe2\x82", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		if err := json.Unmarshal(AppendString(nil, s), &back); err != nil {
			t.Fatalf("AppendString(%q) is not JSON: %v", s, err)
		}
		if got := ValidString(s); got != back {
			t.Errorf("ValidString(%q) = %q, a reader of the literal gets %q", s, got, back)
		}
	})
}
