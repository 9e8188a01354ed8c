package jsonrepair

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand"
	"strings"
	"testing"
)

// repairCases read successfully; want is the exact output.
var repairCases = []struct {
	in       string
	py       bool
	want     string
	repaired bool
}{
	// Valid JSON: compacted, not repaired.
	{`{"a":1}`, false, `{"a":1}`, false},
	// A bare key then a value: only a ':' can be meant, unless the
	// value is a bare word too (errCases).
	{`{a 1}`, false, `{"a":1}`, true},
	{`{a "b"}`, false, `{"a":"b"}`, true},
	// A line continuation writes nothing: a string closed after one,
	// before the next key, ends past it (its newline is not space).
	{"{\"a\":\"\\\n\"b\":1}", false, `{"a":"","b":1}`, true},
	{"{\"a\":\"x\\\r\n, \"b\":1}", false, `{"a":"x","b":1}`, true},
	{` { "a" : [ 1 , 2 ] } `, false, `{"a":[1,2]}`, false},
	{`[]`, false, `[]`, false},
	{`{}`, false, `{}`, false},
	{`[[[]]]`, false, `[[[]]]`, false},
	{`{"a":{"b":{"c":{}}}}`, false, `{"a":{"b":{"c":{}}}}`, false},
	{`{"":""}`, false, `{"":""}`, false},
	{`"x"`, false, `"x"`, false},
	{`12`, false, `12`, false},
	{`-0.5e-3`, false, `-0.5e-3`, false},
	{`true`, false, `true`, false},
	{`null`, false, `null`, false},
	{`[0, -0, 1E+2, 1e-2, 123456789012345678901234567890]`, false, `[0,-0,1E+2,1e-2,123456789012345678901234567890]`, false},
	{`["it's"]`, false, `["it's"]`, false},
	{`["\u00e9\n\/\"\\\b\f\r\t"]`, false, `["\u00e9\n\/\"\\\b\f\r\t"]`, false},
	{`["a // not a comment", "b # nor this", "/* nor this */"]`, false, `["a // not a comment","b # nor this","/* nor this */"]`, false},
	{`["日本語", "\u2028"]`, false, `["日本語","\u2028"]`, false},
	{"[\"\u2028\"]", false, "[\"\u2028\"]", false},
	{`[1 ,2]`, false, `[1,2]`, false},
	{`{"a":1}garbage`, false, `{"a":1}`, false},
	{`[-1, -2.5]`, true, `[-1,-2.5]`, false},
	{`[true, false, null]`, true, `[true,false,null]`, false},

	// Trailing commas.
	{`{"a":1,}`, false, `{"a":1}`, true},
	{`[1,2,]`, false, `[1,2]`, true},
	{`[1,2 , ]`, false, `[1,2]`, true},
	{`{"a":[1,],}`, false, `{"a":[1]}`, true},
	{`{"a":"b",/*c*/}`, false, `{"a":"b"}`, true},
	{"{\n  a: 1,\n  b: 'two',\n}\n", false, `{"a":1,"b":"two"}`, true},

	// Single quotes.
	{`{'a':'b'}`, false, `{"a":"b"}`, true},
	{`['it\'s']`, false, `["it's"]`, true},
	{`['say "hi"']`, false, `["say \"hi\""]`, true},
	{`['a\"b']`, false, `["a\"b"]`, true},
	{`['\'']`, false, `["'"]`, true},
	{`{'a':1,}`, false, `{"a":1}`, true},

	// Unquoted keys.
	{`{a: 1}`, false, `{"a":1}`, true},
	{`{some_key: "x", $id: 2, data-x: 3}`, false, `{"some_key":"x","$id":2,"data-x":3}`, true},
	{`{1: "a"}`, false, `{"1":"a"}`, true},
	{`{true: 1}`, false, `{"true":1}`, true},
	{`{a//c` + "\n" + `: 1}`, false, `{"a":1}`, true},

	// Python / JS literals.
	{`[True, False, None]`, false, `[true,false,null]`, true},
	{`{"a": True, "b": None} // c`, false, `{"a":true,"b":null}`, true},

	// Comments.
	{"{\"a\": 1 // c\n}", false, `{"a":1}`, true},
	{`{/* c */"a": 1}`, false, `{"a":1}`, true},
	{"{# c\n\"a\": 1}", false, `{"a":1}`, true},
	{"// lead\n{\"a\":1}", false, `{"a":1}`, true},
	{"[1 /* ] } */, 2]", false, `[1,2]`, true},

	// Raw control characters and bad UTF-8 in strings.
	{"[\"a\nb\"]", false, `["a\nb"]`, true},
	{"[\"a\tb\"]", false, `["a\tb"]`, true},
	{"[\"a\x01b\x1f\"]", false, `["a\u0001b\u001f"]`, true},
	{"[\"a\r\nb\"]", false, `["a\r\nb"]`, true},
	{"['a\nb']", true, `["a\nb"]`, true},
	{"[\"a\xffb\"]", false, `["a\ufffdb"]`, true},
	{"[\"\xed\xa0\x80\"]", false, `["\ufffd\ufffd\ufffd"]`, true}, // a UTF-16 surrogate written as UTF-8

	// Escapes JSON lacks.
	{`["\'"]`, false, `["'"]`, true},
	{`["\q"]`, false, `["\\q"]`, true},
	{`["C:\Users\me"]`, false, `["C:\\Users\\me"]`, true},
	{`["\d+\.\d*"]`, false, `["\\d+\\.\\d*"]`, true},
	{`["\x41\x22\x5c\x0a"]`, false, `["A\"\\\u000a"]`, true},
	{`["\xe9"]`, true, `["é"]`, true},
	{"[\"a\\\nb\"]", false, `["ab"]`, true},
	{"[\"a\\\r\nb\"]", false, `["ab"]`, true},
	{"[\"\\\tx\"]", false, `["\\\tx"]`, true},
	{`['\U0001F600']`, true, `["😀"]`, true},
	{`['C:\new\d']`, true, `["C:\new\\d"]`, true}, // as Python reads it

	// Missing commas.
	{`{"a":1 "b":2}`, false, `{"a":1,"b":2}`, true},
	{"{\"a\":1\n\"b\":2}", false, `{"a":1,"b":2}`, true},
	{`{"a":1 b:2}`, false, `{"a":1,"b":2}`, true},
	{`{"a":"x" "b":"y"}`, false, `{"a":"x","b":"y"}`, true},
	{`[1 2]`, false, `[1,2]`, true},
	{`[1 true]`, false, `[1,true]`, true},
	{`["a" "b" 'c' 1 "d"]`, false, `["a","b","c",1,"d"]`, true},
	{"[\"a\"\n\"b\"]", false, `["a","b"]`, true},
	{"[\"a\" // x\n\"b\"]", false, `["a","b"]`, true},
	{`[{"a":1} {"b":2}]`, false, `[{"a":1},{"b":2}]`, true},
	{"[{\"a\":1}\n{\"b\":2}]", false, `[{"a":1},{"b":2}]`, true},

	// Numbers.
	{`[+1]`, false, `[1]`, true},
	{`[.5]`, false, `[0.5]`, true},
	{`[-.5]`, false, `[-0.5]`, true},
	{`[1.]`, false, `[1.0]`, true},
	{`[1.e3]`, false, `[1.0e3]`, true},
	{`[07]`, false, `[7]`, true},
	{`[-007]`, false, `[-7]`, true},
	{`[00]`, false, `[0]`, true},
	{`[00.5]`, false, `[0.5]`, true},
	{`{month: 07, day: 1}`, true, `{"month":7,"day":1}`, true},
	{`1.`, false, `1.0`, true},

	// Quotes the model forgot to escape: a quote closes a string only
	// where ':', a closer, or a ',' before a key or value follows it.
	{`{"text": "The TV has a 24" screen"}`, false, `{"text":"The TV has a 24\" screen"}`, true},
	{`{"cmd": "grep -r "TODO" src/"}`, false, `{"cmd":"grep -r \"TODO\" src/"}`, true},
	{`["he said "hi" to me"]`, false, `["he said \"hi\" to me"]`, true},
	{`{"text": "she said "hi", then left", "n": 1}`, false, `{"text":"she said \"hi\", then left","n":1}`, true},
	{`{"a": 'it's', "b": 'x'}`, false, `{"a":"it's","b":"x"}`, true},
	{`{"a"b": 1}`, false, `{"a\"b":1}`, true},
	{`{"sql": "WHERE name = "bob""}`, false, `{"sql":"WHERE name = \"bob\""}`, true},
	{`["", "", {"": ""}]`, false, `["","",{"":""}]`, false},
	{`["a",  -1, "b",  'c', "d",  .5]`, false, `["a",-1,"b","c","d",0.5]`, true},
	// A string missing its closing quote before the next key.
	{`{"a": "hello, "b": 2}`, false, `{"a":"hello","b":2}`, true},
	{"{\"a\": \"hello\n  \"b\": 2}", false, `{"a":"hello","b":2}`, true},

	// Bare words: literals in any spelling; a word before ',' or a closer
	// is a string.
	{`[TRUE, FALSE, NULL, Null, undefined]`, false, `[true,false,null,null,null]`, true},
	{`[NaN, nan, Infinity, -Infinity, +inf, INF]`, false, `[null,null,null,null,null,null]`, true},
	{`{"timeout": 30s, "unit": seconds}`, false, `{"timeout":"30s","unit":"seconds"}`, true},
	{`["x", red, "y", blue, "z", v1.2]`, false, `["x","red","y","blue","z","v1.2"]`, true},
	{`["x" True, "y" null]`, false, `["x",true,"y",null]`, true},
	{`["a "True" b", "c"]`, false, `["a \"True\" b","c"]`, true},
	{`{"a": TrueBlue, "b": [nullable, v1.2]}`, false, `{"a":"TrueBlue","b":["nullable","v1.2"]}`, true},
	{`{"a": hello }`, false, `{"a":"hello"}`, true},
	{`{"a": True }`, false, `{"a":true}`, true},

	// Typography and encoding.
	{"\uFEFF{\"a\": 1}", false, `{"a":1}`, true},
	{"{\"a\":\u00a01,\u00a0\"b\": \"x\"\u00a0}", false, `{"a":1,"b":"x"}`, true},
	{`{“a”: “say "hi" \n”, ”b”: ”x“}`, false, `{"a":"say \"hi\" \n","b":"x"}`, true},
	{`｛"a"：1，"b"：［1，2］｝`, false, `{"a":1,"b":[1,2]}`, true},
	{`{‘a’: ‘it’s “x” ]’, ‘b’: 1}`, false, `{"a":"it’s “x” ]","b":1}`, true},
	{`["C:\users\u12", "\uZZZZ"]`, false, `["C:\\users\\u12","\\uZZZZ"]`, true},

	// A payload escaped once more as a whole.
	{`{\"a\": 1}`, false, `{"a":1}`, true},
	{`{\n  \"name\": \"f\",\n  \"arguments\": {\"q\": \"say \\\"hi\\\"\", \"p\": \"C:\\\\x\"}\n}`, false, `{"name":"f","arguments":{"q":"say \"hi\"","p":"C:\\x"}}`, true},
	{`[\"a\", \"\u00e9\\n\"]`, false, `["a","é\n"]`, true},

	// Trailing, leading and repeated commas around nothing.
	{`[,1]`, false, `[1]`, true},
	{`{,"a":1}`, false, `{"a":1}`, true},
	{`{,}`, false, `{}`, true},
	{`{"a":1,,}`, false, `{"a":1}`, true},
	{`[1, , ]`, false, `[1]`, true},
	// A repeated comma after a string ends it; it is not an inner quote.
	{`{"a":"x",,"b":2}`, false, `{"a":"x","b":2}`, true},

	// Mismatched closers: the innermost open bracket decides.
	{`{"a": [1, 2}`, false, `{"a":[1,2]}`, true},
	{`[{"a": 1]`, false, `[{"a":1}]`, true},
	{`[{"a": 1,]`, false, `[{"a":1}]`, true},
	{`{"a": {"b": 1]}`, false, `{"a":{"b":1}}`, true},
	{`[[1, 2}]`, false, `[[1,2]]`, true},
	{`{"a":1]`, false, `{"a":1}`, true},
	{`{]`, false, `{}`, true},
	{`[}`, false, `[]`, true},
	{`[1,}`, false, `[1]`, true},

	// Values side by side with no space between.
	{`[{"a":1}{"b":2}]`, false, `[{"a":1},{"b":2}]`, true},
	{`[[1][2]]`, false, `[[1],[2]]`, true},
	{`{"a":"x""b":"y"}`, false, `{"a":"x","b":"y"}`, true},
	{`{"a":1"b":2}`, false, `{"a":1,"b":2}`, true},

	// Missing closers at the end of the input: see truncCases.

	// Python.
	{`(1, 2)`, true, `[1,2]`, true},
	{`()`, true, `[]`, true},
	{`(1,)`, true, `[1]`, true},
	{`(1 2)`, true, `[1,2]`, true},
	{`{'a': (1, 'b'), 'c': None}`, true, `{"a":[1,"b"],"c":null}`, true},
	{`{'a': [1, (2, (3, 4))]}`, true, `{"a":[1,[2,[3,4]]]}`, true},
	{`['a' 'b']`, true, `["ab"]`, true},
	{`['a''b']`, true, `["ab"]`, true},
	{"['a'\n 'b', 'c']", true, `["ab","c"]`, true},
	{`{'k' "ey": 'v' u'w'}`, true, `{"key":"vw"}`, true},
	{`[u'x', U"y"]`, true, `["x","y"]`, true},
	{`{u'k': 1}`, true, `{"k":1}`, true},
	{`'a' "b"` + "\n u'c'", true, `"abc"`, true},
	{`"a" # c`, true, `"a"`, false},
	{`"""abc"""`, true, `"abc"`, true}, // as Python reads it, by luck of the joining rule
	{`[True, None, 'it\'s']`, true, `[true,null,"it's"]`, true},
	{`{"cmd": "ls -la", "n": 1}`, true, `{"cmd":"ls -la","n":1}`, false},
}

func TestAppendJSONRepairs(t *testing.T) {
	for _, tc := range repairCases {
		prefix := []byte("prefix:")
		got, res, err := appendJSON(prefix, []byte(tc.in), false, tc.py)
		if err != nil {
			t.Errorf("appendJSON(%q, py=%v): %v", tc.in, tc.py, err)
			continue
		}
		if !bytes.HasPrefix(got, []byte("prefix:")) {
			t.Errorf("appendJSON(%q): dst prefix lost: %q", tc.in, got)
			continue
		}
		got = got[len("prefix:"):]
		if string(got) != tc.want || res.Repaired() != tc.repaired || res.Truncated {
			t.Errorf("appendJSON(%q, py=%v) = %s repaired=%v truncated=%v; want %s repaired=%v", tc.in, tc.py, got, res.Repaired(), res.Truncated, tc.want, tc.repaired)
		}
		if !json.Valid(got) {
			t.Errorf("appendJSON(%q): invalid JSON %s", tc.in, got)
		}
		if res.Cut != len(got) {
			t.Errorf("appendJSON(%q): cut = %d, want %d", tc.in, res.Cut, len(got))
		}
		// Without repairs, strict mode reads it the same; with, it refuses,
		// or reads less (a python string joined to the ones after it).
		sgot, sres, serr := appendJSON(nil, []byte(tc.in), true, tc.py)
		if !tc.repaired && (serr != nil || string(sgot) != tc.want) {
			t.Errorf("strict appendJSON(%q) = %s, %v; want %s", tc.in, sgot, serr, tc.want)
		}
		if tc.repaired && serr == nil && sres.N >= res.N {
			t.Errorf("strict appendJSON(%q) = %s; want an error", tc.in, sgot)
		}
	}
}

// n is just past the value, leading whitespace included, trailing not.
func TestAppendJSONConsumed(t *testing.T) {
	for _, tc := range []struct {
		in string
		n  int
	}{
		{`{"a":1}garbage`, 7},
		{`  "x"  `, 5},
		{`[1, 2] // done`, 6},
		{"\n\t12 ", 4},
		{`{"a":1}{"b":2}`, 7},
		{`｛"a"：1｝x`, 13},
		{`true,`, 4},
	} {
		_, res, err := appendJSON(nil, []byte(tc.in), false, false)
		if err != nil || res.N != tc.n {
			t.Errorf("appendJSON(%q): n = %d, %v; want %d", tc.in, res.N, err, tc.n)
		}
	}
}

// truncCases end before their closing brackets: closed, truncated, with cut
// at the end of what the input held.
var truncCases = []struct {
	in, want string
	cut      int
}{
	{`{"a": {"b": [1, 2]`, `{"a":{"b":[1,2]}}`, 15},
	{`{"a": [`, `{"a":[]}`, 6},
	{`{`, `{}`, 1},
	{`[`, `[]`, 1},
	{`{"name": "f", "arguments": {"x": 1}`, `{"name":"f","arguments":{"x":1}}`, 31},
	{`[{"a":1}, {"b":"c"} `, `[{"a":1},{"b":"c"}]`, 18},
	{`{"a":1 // trailing`, `{"a":1}`, 6},
	{`{"a":1 /* unterminated`, `{"a":1}`, 6},
	{`{"a":1 /`, `{"a":1}`, 6},
	{"{\"a\":[null\n", `{"a":[null]}`, 10},
}

func TestAppendJSONTruncated(t *testing.T) {
	for _, tc := range truncCases {
		got, res, err := appendJSON(nil, []byte(tc.in), false, false)
		if err != nil {
			t.Errorf("appendJSON(%q): %v", tc.in, err)
			continue
		}
		if string(got) != tc.want || !res.Truncated || !res.Repaired() || res.Cut != tc.cut || res.N != len(tc.in) {
			t.Errorf("appendJSON(%q) = %s %+v; want %s truncated cut=%d n=%d", tc.in, got, res, tc.want, tc.cut, len(tc.in))
		}
		// Strict mode refuses, as a truncation unless a comment came first.
		_, _, serr := appendJSON(nil, []byte(tc.in), true, false)
		var se *SyntaxError
		if !errors.As(serr, &se) || se.Truncated == strings.Contains(tc.in, "/") {
			t.Errorf("strict appendJSON(%q): %v; want a Truncated error", tc.in, serr)
		}
	}
	// python: a tuple closes as an array.
	got, res, err := appendJSON(nil, []byte(`{'a': (1, 2`+`, [3]`), false, true)
	if err != nil || string(got) != `{"a":[1,2,[3]]}` || res.Cut != 13 {
		t.Errorf("python truncated tuple = %s %+v %v", got, res, err)
	}
}

// errCases are refused, at off.
var errCases = []struct {
	in        string
	py        bool
	strict    bool
	off       int
	truncated bool
	msg       string // a part of the message
}{
	// Ambiguous or not representable (both modes).
	{`[1,,2]`, false, false, 3, false, "two commas in a row"},
	{`["x",,"y"]`, false, false, 5, false, "two commas in a row"},
	{`[1 -2]`, false, false, 3, false, "without a ',' the sign reads as arithmetic"},
	{"[1\n+2]", true, false, 3, false, "the sign reads as arithmetic"},
	{`{"a":1 -b:2}`, false, false, 7, false, "expected ',' or '}'"},
	{`[0x1F]`, false, false, 1, false, "hexadecimal"},
	{`[0o7]`, true, false, 1, false, "octal"},
	{`[1_000]`, true, false, 1, false, "'_' in a number"},
	{`[1j]`, true, false, 1, false, "unexpected 'j' after a number"},
	{`[1.5.3]`, false, false, 1, false, "write a version or other dotted text as a string"},
	{`[1e]`, false, false, 2, false, "exponent"},
	{`[.]`, false, false, 1, false, "no digits"},
	{`[-]`, false, false, 1, false, "expected digits after '-'"},
	{`[- 1]`, false, false, 1, false, "expected digits after '-'"},
	{`[r'x']`, true, false, 1, false, "python string prefix 'r'"},
	{`[b"x"]`, true, false, 1, false, "python string prefix 'b'"},
	{`{rb'x': 1}`, true, false, 1, false, "python string prefix 'rb'"},
	{`[f'{x}']`, true, false, 1, false, "python string prefix 'f'"},
	{`["\a"]`, false, false, 2, false, "ambiguous escape '\\a'"},
	{`["\v"]`, false, false, 2, false, "ambiguous escape"},
	{`["\0"]`, false, false, 2, false, "ambiguous escape"},
	{`['\N{DASH}']`, true, false, 2, false, "ambiguous escape"},
	{`["C:\Users"]`, true, false, 4, false, `\U must be followed by eight hex digits`},
	{`["\xZ1"]`, false, false, 2, false, `\x must be followed by two hex digits`},
	{`['\U00110000']`, true, false, 2, false, "names no Unicode character"},
	{`{"a" 1}`, false, true, 5, false, "expected ':' after object key, found '1'"},
	{`{invalid json}`, false, false, 9, false, "two bare words in braces are not a member"},
	{`{"a":1, b c}`, false, false, 10, false, "after object key 'b', found 'c'"},
	{`{"a" "b": 1}`, false, false, 8, false, "after object member, found ':'"},
	{`{"a":}`, false, false, 5, false, "expected a value after ':', found '}'"},
	{`(1)`, true, false, 2, false, "not a tuple"},
	{`('a')`, true, false, 4, false, "not a tuple"},
	{`(1, 2)`, false, false, 0, false, "expected a JSON value, found '('"},
	{`[/]`, false, false, 1, false, "found '/'"},
	{`{"a":1 "b"}`, false, false, 10, false, "expected ':' after object key, found '}'"},
	{`[1, 2, ...]`, false, false, 7, false, "left out (elided)"},
	{`{"a": 1, ...}`, false, false, 9, false, "left out (elided)"},
	{`{"a": …}`, false, false, 6, false, "'…' stands for content that was left out"},
	{`{"path": "C:\users\bob"}`, false, false, 18, false, `a string with both '\b' and '\u'`},
	{`{"path": "C:\new\d"}`, false, false, 12, false, `a string with both '\n' and '\d'`},
	{`{‘a’: 1}`, false, true, 1, false, "typographic quotes are not JSON's"},
	{`{"a": ‘it’s`, false, false, 6, true, "right after a quote"},
	{`[{"a": 1}, …]`, false, false, 11, false, "elided"},
	{`["a", …]`, false, false, 6, false, "elided"},
	{`{"a":1,,"b":2}`, false, true, 7, false, "another ','"},
	{`{"a":1,,[2]}`, false, false, 7, false, "another ','"},
	{`{“a”: 1}`, false, true, 1, false, "expected an object key (a string in double quotes), found '“'"},
	{`{"a"：1}`, false, true, 4, false, "expected ':' after object key"},
	{`["a"]`[:0] + `{a.b: 1}`, false, false, 2, false, "expected ':' after object key, found '.'"},

	// The payload was cut: Truncated, never completed.
	{`[1 2`, false, false, 3, true, "inside a number"},
	{`[1`, false, false, 1, true, "inside a number"},
	{`{"a": "abc`, false, false, 6, true, "inside a string"},
	{`["a\`, false, false, 1, true, "inside a string"},
	{`["\u00`, false, false, 1, true, "inside a string"},
	{`["\x4`, false, false, 1, true, "inside a string"},
	{`{"a": tr`, false, false, 6, true, "inside the literal 'true'"},
	{`{"a": n`, false, false, 6, true, "inside the literal 'null'"},
	{`{"a": N`, false, false, 6, true, "inside the literal 'None'"},
	{`{"a":`, false, false, 1, true, "after the ':'"},
	{`{"a"`, false, false, 1, true, "right after a quote inside a string"},
	{`{"a":1,`, false, false, 6, true, "after ','"},
	{`[1, `, false, false, 2, true, "after ','"},
	{`{ab`, false, false, 1, true, "inside an object key"},
	{``, false, false, 0, true, "expected a JSON value, found the end of the input"},
	{`   `, false, false, 3, true, "expected a JSON value"},
	{`[1e`, false, false, 1, true, "inside a number"},
	{`[1e+`, false, false, 1, true, "inside a number"},
	{`[-`, false, false, 1, true, "inside a number"},
	{`[1.`, false, false, 1, true, "inside a number"},
	{`-`, false, false, 0, true, "inside a number"},
	{`"abc`, false, false, 0, true, "inside a string"},
	{`{"a":1 "b`, false, false, 7, true, "inside a string"},
	{`("a", 1`, true, false, 6, true, "inside a number"},
	{`['a' 'b'`, true, false, 1, true, "which Python would join"},
	{`{'k': 'v' `, true, false, 6, true, "which Python would join"},
	{`[u`, true, false, 1, true, "inside a string"},
	{`{''u`, true, false, 3, true, "inside a string"},
	{`['a' U`, true, false, 5, true, "inside a string"},
	{`"""`, true, false, 2, true, "inside a string"},

	{`{"a": "x"`, false, false, 6, true, "right after a quote inside a string"},
	{`{"a": "x" `, false, false, 6, true, "right after a quote inside a string"},
	{`{"a": "x", "b`, false, false, 11, true, "inside a string"},
	{`{"a": "x", b`, false, false, 6, true, "right after a quote inside a string"},
	{`{"name": "f", "arguments": {"x": true`, false, false, 33, true, "inside a word"},
	{`{"a": tru`, false, false, 6, true, "inside the literal 'true'"},
	{`{"a": hello`, false, false, 6, true, "inside a word"},
	{`{"a": hello `, false, false, 6, true, "after unquoted text"},
	{`{"a": 30s`, false, false, 6, true, "after unquoted text"},
	{`[-Inf`, false, false, 1, true, "inside a number"},
	{`{\"a\": \"x`, false, false, 8, true, "inside a string"},
	{`{\"a\": \"\\x4\"}`, false, false, 8, false, "in a payload escaped once more (write it unescaped): invalid escape: \\x"},

	// Strict mode: every repair is refused where it would apply.
	{`["\u12"]`, false, true, 2, false, `\u must be followed by four hex digits`},
	{"\uFEFF{}", false, true, 0, false, "byte order mark"},
	{"{\u00a0}", false, true, 1, false, "non-breaking space"},
	{`[}`, false, true, 1, false, "expected a value or ']', found '}'"},
	{`{]`, false, true, 1, false, "expected an object key or '}', found ']'"},
	{`[1}`, false, true, 2, false, "the innermost open bracket is '['"},
	{`{"a":1]`, false, true, 6, false, "expected ',' or '}' after object member, found ']'; the innermost open bracket is '{'"},
	{`{"a":1,,}`, false, true, 7, false, "another ','"},
	{`{,}`, false, true, 1, false, "expected an object key, found another ','"},
	{`[,1]`, false, true, 1, false, "expected a value or ']', found ','"},
	{`[NaN]`, false, true, 1, false, "'NaN' is not representable"},
	{`[-Infinity]`, false, true, 1, false, "'-Infinity' is not representable"},
	{`{"a": undefined}`, false, true, 6, false, "'undefined' is not a JSON value"},
	{`[TRUE]`, false, true, 1, false, "'TRUE' is not JSON"},
	{`{"a": hello}`, false, true, 6, false, "unquoted text 'hello'"},
	{`["he said "hi" to me"]`, false, true, 11, false, `escape it as \"`},
	{`'abc'`, false, true, 0, false, "single-quoted string"},
	{`[True]`, false, true, 1, false, "'True' is Python; JSON writes it true"},
	{`{a:1}`, false, true, 1, false, "unquoted object key 'a'"},
	{`[1,]`, false, true, 2, false, "trailing comma"},
	{`{"a":1,}`, false, true, 6, false, "trailing comma"},
	{"// c\n[1]", false, true, 0, false, "comments are not allowed"},
	{"[1 # c\n]", false, true, 3, false, "comments are not allowed"},
	{"[\"a\nb\"]", false, true, 3, false, "a raw control character (a newline) in a string"},
	{`["\'"]`, false, true, 2, false, "invalid escape '\\''"},
	{`["\q"]`, false, true, 2, false, "invalid escape '\\q'"},
	{`["\x41"]`, false, true, 2, false, "invalid escape '\\x'"},
	{`[+1]`, false, true, 1, false, "'+' before a number"},
	{`[.5]`, false, true, 1, false, "digit before '.'"},
	{`[1.]`, false, true, 1, false, "digit after '.'"},
	{`[07]`, false, true, 1, false, "leading zero"},
	{`[1 2]`, false, true, 3, false, "expected ',' or ']'"},
	{`["a" "b"]`, false, true, 5, false, "expected ',' or ']' after array element, found '\"'"},
	{`{"a":1 "b":2}`, false, true, 7, false, "expected ',' or '}'"},
	{"[\"\xff\"]", false, true, 2, false, "invalid UTF-8"},
	{`(1, 2)`, true, true, 0, false, "expected a JSON value, found '('"},
	{`['a']`, true, true, 1, false, "single-quoted"},
	{`[1`, false, true, 1, true, "inside a number"},
	{`[1 `, false, true, 3, true, "the JSON ends before the ']' that closes the innermost open '['"},
	{`{"a":[1,2]`, false, true, 10, true, "before the '}'"},
	{`{"a":"x`, false, true, 5, true, "inside a string"},
}

func TestAppendJSONErrors(t *testing.T) {
	for _, tc := range errCases {
		dst := []byte("keep")
		got, res, err := appendJSON(dst, []byte(tc.in), tc.strict, tc.py)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("appendJSON(%q, py=%v, strict=%v) = %s %+v, %v; want a *SyntaxError", tc.in, tc.py, tc.strict, got, res, err)
			continue
		}
		if string(got) != "keep" {
			t.Errorf("appendJSON(%q): dst = %q on error, want it unchanged", tc.in, got)
		}
		if se.Offset != tc.off || se.Truncated != tc.truncated || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("appendJSON(%q, py=%v, strict=%v): offset %d truncated=%v %q; want offset %d truncated=%v, message with %q",
				tc.in, tc.py, tc.strict, se.Offset, se.Truncated, se.Msg, tc.off, tc.truncated, tc.msg)
		}
		if se.Msg != strings.ToLower(se.Msg[:1])+se.Msg[1:] {
			t.Errorf("message %q starts with a capital", se.Msg)
		}
		if !strings.Contains(se.Error(), se.Msg) {
			t.Errorf("Error() = %q lacks the message", se.Error())
		}
	}
}

// callObjects are valid values as models write them; every prefix of each is
// read either as the prefix plus closers, or refused as cut.
var callObjects = []string{
	`{"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "units": ["c", "f"], "detail": true, "ratio": -1.5e3, "note": null}}`,
	`[{"name":"a","arguments":{"x":[1,{"y":"z\"w\\"}]}},{"name":"b","arguments":{}}]`,
	`{"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"q\": 1}"}}]}`,
	`{"s": "日本語 \u00e9 \n", "nested": {"a": [[], {}, [0.5, 10]], "b": false}}`,
}

// pyObjects are Python literals, as pythonic calls write their arguments.
var pyObjects = []string{
	`{'city': 'Paris', 'days': (1, 2), 'ok': True, 'none': None, 'q': "it's", 'n': -3.5, 'l': [(1,), ()]}`,
}

func TestAppendJSONEveryPrefix(t *testing.T) {
	for _, v := range append(callObjects, pyObjects...) {
		py := v[1] == '\''
		want, _, err := appendJSON(nil, []byte(v), !py, py)
		if err != nil {
			t.Fatalf("appendJSON(%q): %v", v, err)
		}
		for k := 0; k <= len(v); k++ {
			p := v[:k]
			for _, strict := range []bool{false, true} {
				if strict && py {
					continue
				}
				got, res, err := appendJSON(nil, []byte(p), strict, py)
				if err != nil {
					var se *SyntaxError
					if !errors.As(err, &se) || !se.Truncated {
						t.Errorf("prefix %q (strict=%v): %v; want a Truncated error", p, strict, err)
					}
					if se.Offset > k {
						t.Errorf("prefix %q: offset %d past the end", p, se.Offset)
					}
					continue
				}
				if strict && k < len(v) {
					t.Errorf("strict prefix %q = %s; want an error", p, got)
				}
				if k == len(v) {
					if string(got) != string(want) || res.Truncated || res.Repaired() != py {
						t.Errorf("whole %q = %s %+v", p, got, res)
					}
					continue
				}
				if !res.Truncated || res.N != k {
					t.Errorf("prefix %q = %s %+v; want truncated", p, got, res)
				}
				// Nothing invented: what precedes the cut is a prefix of the
				// whole value's output, and only closers follow it.
				if !bytes.HasPrefix(want, got[:res.Cut]) {
					t.Errorf("prefix %q = %s: %s is not a prefix of %s", p, got, got[:res.Cut], want)
				}
				if strings.Trim(string(got[res.Cut:]), "]}") != "" {
					t.Errorf("prefix %q = %s: added %q, not only closers", p, got, got[res.Cut:])
				}
				if !json.Valid(got) {
					t.Errorf("prefix %q = %s: invalid JSON", p, got)
				}
			}
		}
	}
}

func deep(open, leaf, close string, depth int) []byte {
	var b bytes.Buffer
	for range depth {
		b.WriteString(open)
	}
	b.WriteString(leaf)
	for range depth {
		b.WriteString(close)
	}
	return b.Bytes()
}

// encoding/json stops at 10,000 levels, so deep outputs are compared whole.
func TestAppendJSONDeep(t *testing.T) {
	const depth = 10000
	for _, tc := range []struct {
		src, want []byte
	}{
		{deep("[", "", "]", depth), deep("[", "", "]", depth)},
		{deep(`{"a":`, "1", "}", depth), deep(`{"a":`, "1", "}", depth)},
		{deep(`{'a': [`, "1", "]}", depth), deep(`{"a":[`, "1", "]}", depth)},
		{deep("(", "1", ",)", depth), deep("[", "1", "]", depth)},
	} {
		got, res, err := appendJSON(nil, tc.src, false, true)
		if err != nil || res.N != len(tc.src) || !bytes.Equal(got, tc.want) {
			t.Errorf("deep %.20s...: n=%d %v, output %.30s...", tc.src, res.N, err, got)
		}
	}
	// Cut 10,000 deep: the brackets are closed.
	src := deep(`{"a":[`, `1]`, "", depth)
	want := append(deep(`{"a":[`, `1]`, "", depth), deep("", "", "}]", depth)[:2*depth-1]...)
	got, res, err := appendJSON(nil, src, false, false)
	if err != nil || !res.Truncated || !bytes.Equal(got, want) || res.Cut != len(src) {
		t.Fatalf("truncated deep: %+v %v", res, err)
	}
	// Errors deep inside carry the right offset.
	src = append(deep("[", "", "", depth), '}')
	_, _, err = appendJSON(nil, src, true, false)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != depth {
		t.Errorf("deep mismatch: %v", err)
	}
}

// scanCases are complete values (with trailing text) for the scanner, with
// their lengths.
var scanCases = []struct {
	in     string
	py     bool
	end    int
	closed bool
}{
	{`{"a":1}`, false, 7, true},
	{`{"a":"}"} tail`, false, 9, true},
	{`['}', "]"]`, false, 10, true},
	{`["\"]"]`, false, 7, true},
	{`["\\"]]`, false, 6, true},
	{`["\\\"]"]`, false, 9, true},
	{`['it\'s', "]"]`, false, 14, true},
	{`{"a": // }` + "\n" + `1}`, false, 13, true},
	{`{"a": # }` + "\n" + `1}`, false, 12, true},
	{`{"a": /* } */ 1}`, false, 16, true},
	{`{"a": /* } **/ 1}`, false, 17, true},
	{`[1, (2, 3)]`, false, 11, true},
	{`(1, (2, ")"))x`, true, 13, true},
	{`[1, ")"`, true, 0, false},
	{`{"a": [1, 2]`, false, 0, false},
	{`{"a": "}`, false, 0, false},
	{`{"a": /* }`, false, 0, false},
	{`{"a": 1 /`, false, 0, false},
	{`["\`, false, 0, false},
	{`{"a":[1,2]}}`, false, 11, true},
	{`x{}`, false, 0, true},
	{`{"a": “}”}x`, false, 14, true},
	{`{"a": [1｝x`, false, 11, true},
	{`{"a": “}`, false, 0, false},
	{`{‘a’: ‘}’s}’}x`, false, 23, true},
	{`{\"a\": \"}\\\"]\"}x`, false, 19, true},
	{`{\"a\": \"}`, false, 0, false},
}

func scanAll(src []byte, py bool) (int, bool) {
	var s Scanner
	s.Reset(py)
	return s.Scan(src)
}

// scanChunks feeds src to a scanner in pieces of the given sizes (cycled),
// as a stream delivers it, and returns what the scanner reports first.
func scanChunks(src []byte, py bool, sizes []int) (int, bool) {
	var s Scanner
	s.Reset(py)
	k := 0
	for i := 0; ; i++ {
		k = min(k+sizes[i%len(sizes)], len(src))
		end, done := s.Scan(src[:k])
		if done || k == len(src) {
			return end, done
		}
	}
}

func TestJSONScanner(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, tc := range scanCases {
		src := []byte(tc.in)
		end, done := scanAll(src, tc.py)
		if end != tc.end || done != tc.closed {
			t.Errorf("scan(%q) = %d, %v; want %d, %v", tc.in, end, done, tc.end, tc.closed)
		}
		checkScanChunks(t, src, tc.py, end, done, rng)
	}
}

func checkScanChunks(t *testing.T, src []byte, py bool, end int, done bool, rng *rand.Rand) {
	t.Helper()
	if e, d := scanChunks(src, py, []int{1}); e != end || d != done {
		t.Errorf("scan(%q) byte by byte = %d, %v; all at once %d, %v", src, e, d, end, done)
	}
	for range 20 {
		sizes := []int{1 + rng.Intn(7), 1 + rng.Intn(3), 1 + rng.Intn(20)}
		if e, d := scanChunks(src, py, sizes); e != end || d != done {
			t.Errorf("scan(%q) in chunks %v = %d, %v; all at once %d, %v", src, sizes, e, d, end, done)
		}
	}
}

// The scanner and appendJSON agree on where a value ends.
func TestJSONScannerAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var srcs []struct {
		in string
		py bool
	}
	for _, tc := range repairCases {
		srcs = append(srcs, struct {
			in string
			py bool
		}{tc.in, tc.py})
	}
	for _, v := range callObjects {
		srcs = append(srcs, struct {
			in string
			py bool
		}{v + " trailing", false})
	}
	for _, s := range srcs {
		src := []byte(s.in)
		if len(src) == 0 || !(src[0] == '{' || src[0] == '[' || src[0] == '(' && s.py) {
			continue
		}
		_, res, err := appendJSON(nil, src, false, s.py)
		if err != nil || res.Truncated {
			continue
		}
		end, done := scanAll(src, s.py)
		if !done || end != res.N {
			t.Errorf("%q: scanner %d, %v; appendJSON n=%d", s.in, end, done, res.N)
		}
		checkScanChunks(t, src, s.py, end, done, rng)
	}
	for _, tc := range truncCases {
		if _, done := scanAll([]byte(tc.in), false); done {
			t.Errorf("%q: the scanner saw an end; appendJSON needed closers", tc.in)
		}
	}
	deepSrc := deep(`{"a":[`, `"x"`, `]}`, 10000)
	if end, done := scanChunks(deepSrc, false, []int{3, 1000}); !done || end != len(deepSrc) {
		t.Errorf("deep: %d, %v", end, done)
	}
}

// A scanner fed a long value a byte at a time does linear work: it never
// rescans what it has seen (checked by its resume offset).
func TestJSONScannerResumes(t *testing.T) {
	src := []byte(`{"a":"` + strings.Repeat(`x\\y\"`, 1000) + `", "b": /* ` + strings.Repeat("*", 100) + ` */ 1}`)
	var s Scanner
	s.Reset(false)
	for k := 1; k <= len(src); k++ {
		end, done := s.Scan(src[:k])
		if done {
			if k != len(src) || end != len(src) {
				t.Fatalf("done at %d (end %d), want %d", k, end, len(src))
			}
			return
		}
		if s.off < k-quoteWindow {
			t.Fatalf("after %d bytes the scanner resumes at %d", k, s.off)
		}
	}
	t.Fatal("never done")
}
