package jsonrepair

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Benchmark inputs. testdata/repairbench builds the same ones to compare
// with another repair library; keep the two in step.

// benchArgs is the arguments of a typical editing call: a path, a few
// scalars and a code snippet with escapes, about 3 KB of compact JSON.
func benchArgs() []byte {
	var code strings.Builder
	for i := range 40 {
		fmt.Fprintf(&code, "\\tif err := step%d(ctx, \\\"item-%d\\\"); err != nil {\\n\\t\\treturn fmt.Errorf(\\\"step %d: %%w\\\", err)\\n\\t}\\n", i, i, i)
		if code.Len() > 2500 {
			break
		}
	}
	return []byte(`{"path":"/home/user/project/internal/service/handler.go","old_string":"func (h *Handler) Serve() error {\n\treturn nil\n}","new_string":"func (h *Handler) Serve(ctx context.Context) error {\n` +
		code.String() + `\treturn nil\n}","replace_all":false,"line_hint":128,"confidence":0.93,"tags":["refactor","errors","context"],"options":{"dry_run":false,"backup":null,"encoding":"utf-8"}}`)
}

// benchValid is an array of varied call objects, compact, about size bytes.
func benchValid(size int) []byte {
	args := benchArgs()
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"name":"edit_file","arguments":%s}`, args)
		case 1:
			fmt.Fprintf(&b, `{"name":"get_weather","arguments":{"city":"São Paulo","days":%d,"units":"metric","include":["hourly","alerts"],"lat":-23.55,"lon":-46.63}}`, i%14)
		default:
			fmt.Fprintf(&b, `{"name":"search","arguments":{"query":"how to \"escape\" quotes in JSON strings","limit":%d,"filters":{"lang":"en","after":"2024-01-01"},"safe":true}}`, i%50)
		}
	}
	b.WriteByte(']')
	return b.Bytes()
}

// benchRepairHeavy is an array of records written the way models get JSON
// wrong: a defect every few bytes (single quotes, trailing commas, unquoted
// keys, comments, Python literals, raw newlines, missing commas).
func benchRepairHeavy(size int) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `  { name: 'get_weather', // the tool
    'arguments': {city: 'Paris', "days": %d, verbose: True, extra: None,
      "note": "line one
line two	tabbed", tags: ['a', 'it\'s', 'c',], /* hint */ ratio: .5 },
    "id": 'call_%d', "n": %d "ok": False
  },
`, i%9, i, i%7)
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// benchModelDefects is an array of call objects with the defects issue 16
// added to the repair, one every few bytes: quotes left unescaped, bare
// words, NaN, mismatched closers, values side by side, typographic quotes,
// fullwidth punctuation and a payload escaped once more.
func benchModelDefects(size int) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `  {"name": "bash", "arguments": {"command": "grep -rn "TODO" src/ | head -%d", "timeout": 30s, "score": NaN,
    "tags": [a, b, c}, "note": “the "%d" run”, "n": %d "ok": TRUE}
  ｛"name"："x"，"arguments"：{\"q\": \"say \\\"hi\\\"\", \"k\": [1, 2]}｝,
`, i%9, i, i%7)
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// benchTruncatedDeep is about size bytes nested depth levels deep, cut off
// after a complete array at the bottom: every bracket above it is still
// open. (It ends in ']', not in a string: a quote that ends the input may
// be one the model forgot to escape, so such an input is refused as cut.)
func benchTruncatedDeep(size, depth int) []byte {
	pad := max(size/depth-len(`{"k":"","v":[`), 0)
	level := `{"k":"` + strings.Repeat("x", pad) + `","v":[`
	var b bytes.Buffer
	for range depth {
		b.WriteString(level)
	}
	b.WriteString(`"end"]`)
	return b.Bytes()
}

// benchStrings is string-heavy JSON (long prose values), for the scanner.
func benchStrings(size int) []byte {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog; ", 40)
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"text":"%s\"quoted\" %d","more":"%s"}`, i, prose, i, prose[:200])
	}
	b.WriteByte(']')
	return b.Bytes()
}

func benchAppend(b *testing.B, src []byte, strict, python bool) {
	dst := make([]byte, 0, 2*len(src))
	if _, _, err := appendJSON(dst, src, strict, python); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := appendJSON(dst, src, strict, python); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	b.Run("args-3KB", func(b *testing.B) { benchAppend(b, benchArgs(), false, false) })
	b.Run("valid-1MB", func(b *testing.B) { benchAppend(b, benchValid(1<<20), false, false) })
	b.Run("valid-1MB-strict", func(b *testing.B) { benchAppend(b, benchValid(1<<20), true, false) })
	b.Run("repair-heavy-2MB", func(b *testing.B) { benchAppend(b, benchRepairHeavy(2<<20), false, false) })
	b.Run("repair-heavy-2MB-python", func(b *testing.B) { benchAppend(b, benchRepairHeavy(2<<20), false, true) })
	b.Run("model-defects-2MB", func(b *testing.B) { benchAppend(b, benchModelDefects(2<<20), false, false) })
	b.Run("truncated-deep10000-1MB", func(b *testing.B) { benchAppend(b, benchTruncatedDeep(1<<20, 10000), false, false) })
	b.Run("strings-1MB", func(b *testing.B) { benchAppend(b, benchStrings(1<<20), false, false) })
}

func benchScan(b *testing.B, src []byte, chunk int) {
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var s Scanner
	for b.Loop() {
		s.Reset(false)
		end, done := 0, false
		for k := min(chunk, len(src)); !done; k = min(k+chunk, len(src)) {
			end, done = s.Scan(src[:k])
			if k == len(src) {
				break
			}
		}
		if !done || end != len(src) {
			b.Fatalf("scan: %d, %v", end, done)
		}
	}
}

func BenchmarkJSONScanner(b *testing.B) {
	b.Run("strings-1MB", func(b *testing.B) { benchScan(b, benchStrings(1<<20), 1<<30) })
	b.Run("valid-1MB", func(b *testing.B) { benchScan(b, benchValid(1<<20), 1<<30) })
	b.Run("args-3KB", func(b *testing.B) { benchScan(b, benchArgs(), 1<<30) })
	// As a stream delivers it: 16-byte pieces, each scan resuming.
	b.Run("valid-1MB-16B-chunks", func(b *testing.B) { benchScan(b, benchValid(1<<20), 16) })
}

// The benchmark inputs are what they claim to be.
func TestBenchInputs(t *testing.T) {
	for name, src := range map[string][]byte{
		"args": benchArgs(), "valid": benchValid(1 << 16), "strings": benchStrings(1 << 16),
	} {
		_, res, err := appendJSON(nil, src, true, false)
		if err != nil || res.Repaired() || res.N != len(src) {
			t.Errorf("%s: %+v %v", name, res, err)
		}
	}
	_, res, err := appendJSON(nil, benchRepairHeavy(1<<16), false, false)
	if err != nil || !res.Repaired() || res.Truncated {
		t.Errorf("repair-heavy: %+v %v", res, err)
	}
	src := benchModelDefects(1 << 16)
	_, res, err = appendJSON(nil, src, false, false)
	if err != nil || !res.Repaired() || res.Truncated || res.N != len(bytes.TrimSpace(src)) {
		t.Errorf("model-defects: %+v %v", res, err)
	}
	_, res, err = appendJSON(nil, benchTruncatedDeep(1<<16, 1000), false, false)
	if err != nil || !res.Truncated {
		t.Errorf("truncated-deep: %+v %v", res, err)
	}
}

// BenchmarkAppendJSONDepth shows the cost of nesting is linear: ns/op at
// 200,000 levels is about ten times that at 20,000.
func BenchmarkAppendJSONDepth(b *testing.B) {
	for _, depth := range []int{20000, 200000} {
		src := deep(`{"a":[`, `1]`, "", depth)
		dst := make([]byte, 0, 4*len(src))
		b.Run(fmt.Sprint(depth), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, _, err := appendJSON(dst, src, false, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
