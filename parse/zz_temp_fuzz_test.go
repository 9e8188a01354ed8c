package parse

import "testing"

func FuzzTempLast(f *testing.F) {
	addLenientSeeds(f, func(src string, py bool) { f.Add([]byte(src), false, py) })
	f.Add([]byte(`{"a":1,"b":{"c":[1,2]}}`), false, false)
	f.Add([]byte(`{a:1 b:2,}`), false, false)
	f.Fuzz(func(t *testing.T, src []byte, strict, python bool) {
		out, res, err := appendJSON(nil, src, strict, python)
		if err != nil || len(out) == 0 || out[0] != '{' {
			return
		}
		// walk members
		i, lastStart := 1, -1
		for i < len(out) && out[i] != '}' {
			if out[i] == ',' {
				i++
			}
			lastStart = i
			ke := stringEnd(out, i)
			if ke < 0 || out[ke] != ':' {
				t.Fatalf("bad key %q", out)
			}
			i = valueEnd(out, ke+1)
			if i < 0 {
				t.Fatalf("bad value %q", out)
			}
		}
		if i != len(out)-1 {
			t.Fatalf("walk ended at %d of %q", i, out)
		}
		if res.last != 0 && res.last != lastStart && lastStart != -1 {
			t.Fatalf("last %d, want %d in %q (src %q)", res.last, lastStart, out, src)
		}
	})
}
