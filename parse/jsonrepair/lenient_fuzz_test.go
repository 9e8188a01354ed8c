package jsonrepair

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func addLenientSeeds(f *testing.F, add func(src string, py bool)) {
	for _, tc := range repairCases {
		add(tc.in, tc.py)
	}
	for _, tc := range errCases {
		add(tc.in, tc.py)
	}
	for _, tc := range truncCases {
		add(tc.in, false)
	}
	for _, tc := range scanCases {
		add(tc.in, tc.py)
	}
	for _, v := range callObjects {
		add(v, false)
		add(v[:len(v)/2], false)
	}
	for _, v := range pyObjects {
		add(v, true)
		add(v[:len(v)/2], true)
	}
}

func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

func FuzzAppendJSON(f *testing.F) {
	addLenientSeeds(f, func(src string, py bool) {
		f.Add([]byte(src), false, py)
		f.Add([]byte(src), true, py)
	})
	f.Fuzz(func(t *testing.T, src []byte, strict, python bool) {
		dst := []byte("dst")
		out, res, err := appendJSON(dst, src, strict, python)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v, want *SyntaxError", err, err)
			}
			if string(out) != "dst" {
				t.Fatalf("dst changed on error: %q", out)
			}
			if se.Offset < 0 || se.Offset > len(src) || se.Msg == "" {
				t.Fatalf("error %+v for %d bytes", se, len(src))
			}
			if json.Valid(src) && utf8.Valid(src) {
				t.Fatalf("valid JSON %q refused: %v", src, err)
			}
			// Lenient mode accepts what strict mode does; but python may
			// join a top-level string to a cut literal after it.
			if sout, _, serr := appendJSON(nil, src, true, python); !strict && serr == nil && !(python && sout[0] == '"') {
				t.Fatalf("appendJSON(%q): lenient refuses (%v), strict accepts", src, err)
			}
			return
		}
		if !bytes.HasPrefix(out, []byte("dst")) {
			t.Fatalf("dst prefix lost: %q", out)
		}
		out = out[3:]
		// encoding/json stops at 10,000 levels; fuzz inputs stay far below.
		if !json.Valid(out) {
			t.Fatalf("appendJSON(%q) = %q: invalid JSON", src, out)
		}
		if res.N <= 0 || res.N > len(src) || res.Cut < 0 || res.Cut > len(out) {
			t.Fatalf("appendJSON(%q) = %q %+v: n or cut out of range", src, out, res)
		}
		if res.Repairs>>kindCount != 0 || res.Truncated != (res.Repairs&MissingCloser != 0) {
			t.Fatalf("appendJSON(%q) = %q: repairs %b, truncated %v", src, out, res.Repairs, res.Truncated)
		}
		if res.Truncated {
			if strict || res.N != len(src) || !res.Repaired() {
				t.Fatalf("appendJSON(%q, strict=%v) = %q %+v: bad truncation", src, strict, out, res)
			}
			if strings.Trim(string(out[res.Cut:]), "]}") != "" || res.Cut == len(out) {
				t.Fatalf("appendJSON(%q) = %q %+v: added more than closers", src, out, res)
			}
		} else if res.Cut != len(out) {
			t.Fatalf("appendJSON(%q) = %q %+v: cut inside a complete value", src, out, res)
		}
		if strict && res.Repaired() {
			t.Fatalf("strict appendJSON(%q) = %q repaired", src, out)
		}
		if !res.Repaired() {
			// Nothing repaired: the input was JSON, and out is it compacted.
			var c bytes.Buffer
			if err := json.Compact(&c, src[:res.N]); err != nil {
				t.Fatalf("appendJSON(%q) = %q not repaired, but the input is not JSON: %v", src, out, err)
			}
			if !bytes.Equal(c.Bytes(), out) {
				t.Fatalf("appendJSON(%q) = %q, compact input %q", src, out, c.Bytes())
			}
		}
		if !strict {
			// Strict mode accepts exactly the unrepaired reads; but for a
			// top-level python string joined to the literals after it,
			// which strict mode reads alone.
			sout, sres, serr := appendJSON(nil, src, true, python)
			joined := python && serr == nil && sres.N < res.N && out[0] == '"'
			if !joined && (res.Repaired() != (serr != nil) || serr == nil && !bytes.Equal(sout, out)) {
				t.Fatalf("appendJSON(%q): lenient %q repaired=%v, strict %q %v", src, out, res.Repaired(), sout, serr)
			}
		}
		if !res.Truncated && bytes.ContainsAny(bytes.TrimLeft(src, " \t\r\n")[:1], "{[(") {
			checkPrefixes(t, src[:res.N], out, python)
		}
		if json.Valid(src) && utf8.Valid(src) {
			if res.Repaired() || res.Truncated || len(bytes.TrimSpace(src[res.N:])) != 0 {
				t.Fatalf("valid JSON %q read as %q %+v", src, out, res)
			}
			if a, b := decodeNumbers(t, src), decodeNumbers(t, out); !reflect.DeepEqual(a, b) {
				t.Fatalf("valid JSON %q read as %q: %v != %v", src, out, a, b)
			}
		}
	})
}

func FuzzJSONScanner(f *testing.F) {
	addLenientSeeds(f, func(src string, py bool) {
		f.Add([]byte(src), py, uint8(1))
		f.Add([]byte(src), py, uint8(7))
	})
	f.Fuzz(func(t *testing.T, src []byte, python bool, chunk uint8) {
		end, done := scanAll(src, python)
		if end < 0 || end > len(src) || !done && end != 0 {
			t.Fatalf("scan(%q) = %d, %v", src, end, done)
		}
		sizes := []int{1 + int(chunk%16), 1 + int(chunk/16)}
		if e, d := scanChunks(src, python, sizes); e != end || d != done {
			t.Fatalf("scan(%q) in chunks %v = %d, %v; all at once %d, %v", src, sizes, e, d, end, done)
		}
		if len(src) == 0 || !(src[0] == '{' || src[0] == '[' || src[0] == '(' && python) {
			return
		}
		_, res, err := appendJSON(nil, src, false, python)
		if err != nil {
			return
		}
		if res.Truncated && done {
			t.Fatalf("scan(%q) = %d, done; appendJSON needed closers", src, end)
		}
		if !res.Truncated && (!done || end != res.N) {
			t.Fatalf("scan(%q) = %d, %v; appendJSON n = %d", src, end, done, res.N)
		}
	})
}

// checkPrefixes: a container read whole as out is read, cut anywhere, as a
// prefix of out plus closers, or refused as cut; never as something else.
func checkPrefixes(t *testing.T, src, out []byte, python bool) {
	for _, k := range []int{len(src) - 1, len(src) / 2, len(src) / 3, 2 * len(src) / 3} {
		got, res, err := appendJSON(nil, src[:k], false, python)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !se.Truncated {
				t.Fatalf("appendJSON(%q) = %q, but its prefix %q: %v, not a Truncated error", src, out, src[:k], err)
			}
			continue
		}
		if !res.Truncated || !bytes.HasPrefix(out, got[:res.Cut]) || strings.Trim(string(got[res.Cut:]), "]}") != "" {
			t.Fatalf("appendJSON(%q) = %q, but its prefix %q = %q %+v", src, out, src[:k], got, res)
		}
	}
}
