package jsonrepair

import (
	"bytes"
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
		fast, fres, ok := copyCompact([]byte("dst"), src)
		if !ok {
			return
		}
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
