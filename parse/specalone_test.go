package parse

import "testing"

// TestSpecAlone counts the built-in families read by their spec alone
// (no markers of their own, no Code): go test ./parse -run TestSpecAlone -v.
func TestSpecAlone(t *testing.T) {
	buildMarkers()
	n := 0
	for _, s := range builtins {
		if s.own == nil && s.Code == "" {
			n++
		} else {
			t.Logf("code of its own: %s (%s)", s.Format, s.Code)
		}
	}
	t.Logf("%d of %d families are read by their spec alone", n, len(builtins))
}
