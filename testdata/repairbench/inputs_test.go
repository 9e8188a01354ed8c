package repairbench

import (
	"bytes"
	"fmt"
	"strings"
)

// The inputs of parse/jsonrepair/lenient_bench_test.go, built the same way (that file
// is in another module's test package, so it cannot be imported).

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
