package jsonrepair

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzFastPath checks that appendJSON's fast path (compactEnd, a copy) gives
// exactly what the transcoder gives, bytes and Result, wherever it
// accepts, in every mode.
func FuzzFastPath(f *testing.F) {
	addLenientSeeds(f, func(src string, py bool) { f.Add([]byte(src)) })
	for _, s := range fastPathAccepts {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var m Members
		fast, fres, ok := copyCompact([]byte("dst"), src, &m)
		if !ok {
			if m.N != -1 {
				t.Fatalf("%q declined, members %+v", src, m)
			}
			return
		}
		checkMembers(t, src, fast[len("dst"):], m)
		for _, mode := range [][2]bool{{false, false}, {true, false}, {false, true}} {
			noFastPath = true
			slow, sres, err := appendJSON([]byte("dst"), src, mode[0], mode[1])
			noFastPath = false
			if err != nil || !bytes.Equal(fast, slow) || !reflect.DeepEqual(fres, sres) {
				t.Fatalf("%q strict=%v python=%v: fast %q %+v, slow %q %+v %v", src, mode[0], mode[1], fast, fres, slow, sres, err)
			}
		}
	})
}

// checkMembers checks that m splits the compact JSON out into its
// top-level members: each a JSON string key, ':', a JSON value, joined by
// ',' between '{' and '}'.
func checkMembers(t *testing.T, src, out []byte, m Members) {
	t.Helper()
	if m.N < 0 {
		if out[0] != '{' || bytes.Count(out, []byte(":")) <= len(m.At) {
			t.Fatalf("%q: members not recorded for %q", src, out)
		}
		return
	}
	if out[0] != '{' {
		if m.N != 0 {
			t.Fatalf("%q: %d members in an array", src, m.N)
		}
		return
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for k := range m.N {
		key, val := m.At[k][0], m.At[k][1]
		end := len(out) - 1
		if k+1 < m.N {
			end = m.At[k+1][0] - 1
		}
		if key >= val || val > end || out[val-1] != ':' || !json.Valid(out[key:val-1]) || out[key] != '"' || !json.Valid(out[val:end]) {
			t.Fatalf("%q: member %d of %q at %v, to %d", src, k, out, m.At[k], end)
		}
		if k > 0 {
			b.WriteByte(',')
		}
		b.Write(out[key:end])
	}
	b.WriteByte('}')
	if !bytes.Equal(b.Bytes(), out) {
		t.Fatalf("%q: members %+v rebuild %q, not %q", src, m, b.Bytes(), out)
	}
}

// fastPathAccepts are values the fast path must take, lest it never fire.
var fastPathAccepts = []string{
	`{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris","day":3}}` + "\n",
	`{}`, `[]`, `[{},[],"",0,-0.5,19,true,false,null]x`, `{"a":{"b":[1,{"c":"\u00e9\/\"\\ é 'x'"}]},"d":[]}`,
	// Whitespace between tokens, as models pretty-print.
	"{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": [1, 2], \"s\": \"a b\"}}\n</tool_call>",
	" \n{\n  \"a\" : { } ,\r\n  \"b\":\t[ ]\n} x", "[ 1 , \"x y\" ,true ]",
	// More runs of whitespace than compactEnd records.
	"[ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, \" a \\\" b \", 18 ]",
}

func TestFastPathAccepts(t *testing.T) {
	for _, s := range fastPathAccepts {
		if _, _, ok := compactEnd([]byte(s), &spaces{}); !ok {
			t.Errorf("compactEnd(%q) declined", s)
		}
	}
	for _, s := range []string{"{\"a\":1\v}", "{\"a\":1\u00a0}", `{"a":1 "b":2}`, `[1 -2]`, `{"a":01}`, `[1.]`, `[-]`, `[1e]`, `[1e9]`, `{"a":-0.5E+3}`, `{"a":1,}`, `["\x"]`, "[\"\xff\"]", "[\"\t\"]", `{'a':1}`, `[1`, `{"a":[}`, `[True]`} {
		if _, _, ok := compactEnd([]byte(s), &spaces{}); ok {
			t.Errorf("compactEnd(%q) accepted", s)
		}
	}
}
