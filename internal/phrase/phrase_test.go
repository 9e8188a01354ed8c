package phrase

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestWords(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Plural(1, "call"), "1 call"},
		{Plural(3, "call"), "3 calls"},
		{Article("integer"), "an integer"},
		{Article("string"), "a string"},
		{Article("null"), "null"},
		{Kind(gjson.Parse(`3`)), "integer"},
		{Kind(gjson.Parse(`3.5`)), "number"},
		{Kind(gjson.Parse(`[1]`)), "array"},
		{Kind(gjson.Parse(`{}`)), "object"},
		{Describe(gjson.Parse(`"x"`)), `the string "x"`},
		{Describe(gjson.Parse(`[]`)), "an array"},
		{Describe(gjson.Parse(`true`)), "true"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
