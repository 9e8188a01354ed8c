package unsafestr

import "testing"

func TestRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", `{"name":"x"}`, "é\x00\xff"} {
		if got := String([]byte(s)); got != s {
			t.Errorf("String(%q) = %q", s, got)
		}
		if got := string(Bytes(s)); got != s {
			t.Errorf("Bytes(%q) = %q", s, got)
		}
	}
	if String(nil) != "" || len(Bytes("")) != 0 {
		t.Error("empty input must give an empty result")
	}
}

// TestShares: the views are the same memory, which is why they cost
// nothing (and why the caller must not write).
func TestShares(t *testing.T) {
	b := []byte("abc")
	s := String(b)
	b[0] = 'x'
	if s != "xbc" {
		t.Errorf("String copied: %q", s)
	}
	if n := testing.AllocsPerRun(100, func() { _ = String(b); _ = Bytes(s) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
