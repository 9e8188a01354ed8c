package parse

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/parse/jsonrepair"
)

// FuzzLeanCall checks that reading strict call objects in one pass
// (leanObject, and the members jsonrepair.AppendCompact finds) changes no
// event: on any input, split anywhere, with and without repair and known
// tools, the events are byte for byte those of the full reading.
func FuzzLeanCall(f *testing.F) {
	addFileSeeds(f, "testdata/formats/*.txt")
	for _, s := range []string{
		string(denseJSONL(400)), string(denseHermes(400)),
		"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, 2], \"b\": {\"c\": \"d\"}}}\n</tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\":[1]}, \"id\": \"x\"}",
		"{\"name\":\"f\",\"arguments\":{\"a\":[1,{\"b\":\"c\"}]}}\n{\"name\":\"g\",\"parameters\":{}}",
		"x\n{\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"f\",\"arguments\":{}}\n{\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"f\",\"arguments\":[]}\n",
		"{\"type\":\"final_answer\",\"content\":\"done\"}\n{\"tool_name\":\"f\",\"arguments\":\"{}\"}",
		"{\"name\":\"f\",\"arguments\":{},\"arguments\":{}}\n{\"name\":\"f\",\"name\":\"g\",\"arguments\":{\"a\":1e400}}",
		"<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":\"\\ud800\"}}</tool_call>\n[{\"name\":\"f\",\"arguments\":{}}]",
		"{\"name\":\"f\",\"arguments\":{\"a\":" + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "}}\n",
		`{"a":"x","b":-0,"c":12,"d":true,"e":null,"f":false}`, `{"a":01}`, `{"a":-}`, `{"a":1.5,"b":"\u00e9"}`,
		"{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\",\"d\":\"4\",\"e\":\"5\",\"f\":\"6\",\"name\":\"f\",\"arguments\":{}}\n",
	} {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	// Every prefix of a lean call: cut off (leanShort) or not lean at all;
	// and of one written with whitespace, as json.dumps writes it.
	for _, call := range []string{
		"{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{\"a\":\"b\",\"n\":-12,\"t\":true,\"o\":[1]}}",
		"{ \"name\" : \"f\",\n\t\"arguments\": { \"a\": \"b\", \"n\" :-12 , \"t\": true,\"e\":{ } } }\n",
	} {
		for k := range len(call) {
			f.Add([]byte(call[:k]), uint16(k/2))
		}
	}
	opts := []Options{{}, {NoRepair: true}, knownTools("f", "g", "get_weather")}
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		var m jsonMembers
		var c leanCopy
		if n, last, _ := leanObject(in, &m, &c); n > 0 {
			var m2 jsonMembers
			out, n2, last2, ok2 := jsonrepair.AppendCompact(nil, in, &m2)
			lean := in[:n]
			if c.gaps > 0 {
				if lean, _ = c.end(nil, in, n); lean == nil {
					lean = out // too many runs of whitespace: AppendCompact's
				}
			}
			if !ok2 || n != n2 || last != last2 || m != m2 || !bytes.Equal(out, lean) {
				t.Fatalf("leanObject(%q) = %d %d %+v %q; AppendCompact: %q %d %d %+v %v", in, n, last, m, lean, out, n2, last2, m2, ok2)
			}
		}
		c = leanCopy{}
		if n := flatObjectEnd(in, 0, &c); n > 0 {
			if c.gaps == 0 {
				if k, ok := jsonrepair.CompactEnd(in, 1); !ok || k != n {
					t.Fatalf("flatObjectEnd(%q) = %d; CompactEnd: %d %v", in, n, k, ok)
				}
			} else if out, k, _, ok := jsonrepair.AppendCompact(nil, in, nil); !ok || k != n || !bytes.Equal(out, leanCompact(&c, in, n)) {
				t.Fatalf("flatObjectEnd(%q) = %d %q; AppendCompact: %d %q %v", in, n, leanCompact(&c, in, n), k, out, ok)
			}
		} else if n == leanShort {
			if k, ok := jsonrepair.CompactEnd(in, 1); ok {
				t.Fatalf("flatObjectEnd(%q) says it is cut off; CompactEnd reads %d", in, k)
			}
			if _, k, _, ok := jsonrepair.AppendCompact(nil, in, nil); ok {
				t.Fatalf("flatObjectEnd(%q) says it is cut off; AppendCompact reads %d", in, k)
			}
		}
		// jsonEnd leaves what leanObject says is cut off to the scanner,
		// untranscoded: no reading may take it as a whole value.
		if n, _, _ := leanObject(in, &m, &leanCopy{}); n == leanShort {
			var m2 jsonMembers
			if _, k, _, ok := jsonrepair.AppendCompact(nil, in, &m2); ok {
				t.Fatalf("leanObject(%q) says it is cut off; AppendCompact reads %d", in, k)
			}
			for _, noRepair := range []bool{false, true} {
				for _, python := range []bool{false, true} {
					if _, res, err := appendJSON(nil, in, noRepair, python); err == nil && !res.Truncated {
						t.Fatalf("leanObject(%q) says it is cut off; appendJSON (no repair %v, python %v) reads %d", in, noRepair, python, res.N)
					}
				}
			}
		}
		cut := int(split) % (len(in) + 1)
		for _, o := range opts {
			for _, sizes := range [][]int{nil, {max(cut, 1), len(in)}} {
				lean := parseAll(t, in, o, sizes)
				noMembers = true
				full := parseAll(t, in, o, sizes)
				noMembers = false
				if lean != full {
					t.Fatalf("%q (split %v, %+v): one pass gives\n%s\nthe full reading\n%s", in, sizes, o, lean, full)
				}
			}
		}
	})
}

// leanCompact is c.end, or where c had too many runs to note, src[:n]
// without the whitespace, as AppendCompact gives it.
func leanCompact(c *leanCopy, src []byte, n int) []byte {
	if out, ok := c.end(nil, src, n); ok {
		return out
	}
	out, _, _, _ := jsonrepair.AppendCompact(nil, src[:n], nil)
	return out
}

// TestLeanWord holds the word-at-a-time reading of a string to the
// byte-at-a-time one: every byte value at every place in a word, after
// every other (a borrow or carry from one byte must not hide the next).
func TestLeanWord(t *testing.T) {
	slow := func(b []byte, i int) int {
		for i < len(b) && leanStr[b[i]] {
			i++
		}
		return i
	}
	b := make([]byte, 11)
	for c := range 256 {
		for prev := range 256 {
			for at := 1; at < len(b); at++ {
				for k := range b {
					b[k] = 'a'
				}
				b[at-1], b[at] = byte(prev), byte(c)
				for from := range 3 {
					want := from // too few bytes left for a word
					if from+8 <= len(b) {
						want = min(slow(b, from), from+8)
					}
					if got := leanWord(b, from); got != want {
						t.Fatalf("leanWord(%q, %d) = %d, want %d", b, from, got, want)
					}
				}
			}
		}
	}
}
