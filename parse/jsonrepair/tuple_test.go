package jsonrepair

import "testing"

// A Python tuple inside a JSON-ish body is an array, as in a pythonic call;
// a parenthesised value with no comma is not a tuple, and is refused.
func TestTupleInJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"point": (1, 2)}`, `{"point":[1,2]}`},
		{`{"a": [(1, 2), (3,)], "b": ()}`, `{"a":[[1,2],[3]],"b":[]}`},
		{`{"a": ("x", {"y": (1, 2)}), "b": 1}`, `{"a":["x",{"y":[1,2]}],"b":1}`},
		{`[(1, 2,), 3]`, `[[1,2],3]`},
	} {
		got, set, err := Repair(nil, []byte(tc.in))
		if err != nil || string(got) != tc.want || set&Tuple == 0 {
			t.Errorf("Repair(%q) = %s %v %v; want %s with tuple", tc.in, got, set.Names(), err, tc.want)
		}
	}
	for _, in := range []string{`{"a": (1)}`, `{"a": ("x")}`, `(1, 2)`} {
		if got, _, err := Repair(nil, []byte(in)); err == nil {
			t.Errorf("Repair(%q) = %s; want an error", in, got)
		}
	}
	if got, _, err := Append(nil, []byte(`{"a": (1, 2)}`), Options{Strict: true}); err == nil {
		t.Errorf("strict Append = %s; want an error", got)
	}
}
