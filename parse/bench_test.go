package parse

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
)

// The figures the issue asks for: a Parser fed 4 KiB pieces, as a server
// streaming a response would, with events handed to a callback that does
// nothing (BenchmarkParse*) or encoded as JSONL (BenchmarkStream*).

func proseWithCalls(size, every int) []byte {
	const para = "The committee reviewed the quarterly figures and noted that revenue rose, while costs held steady across most regions.\n"
	var b strings.Builder
	n := 0
	for b.Len() < size {
		if b.Len() >= n*every {
			n++
			fmt.Fprintf(&b, "<tool_call>{\"name\":\"lookup\",\"arguments\":{\"id\":%d}}</tool_call>\n", n)
		}
		b.WriteString(para)
	}
	return []byte(b.String())
}

func denseHermes(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\", \"day\": %d, \"detail\": true}}\n</tool_call>\nNext.\n", i)
	}
	return []byte(b.String())
}

func denseQwenCoder(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=day>\n%d\n</parameter>\n</function>\n</tool_call>\n", i)
	}
	return []byte(b.String())
}

func denseJSONL(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "{\"type\":\"tool_call\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\",\"day\":%d}}\n", i)
	}
	return []byte(b.String())
}

func benchParse(b *testing.B, in []byte) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		p, _ := NewParser(Options{}, func(*Event) error { return nil })
		for off := 0; off < len(in); off += 4096 {
			p.Write(in[off:min(len(in), off+4096)])
		}
		p.Close()
	}
}

func BenchmarkParseProse(b *testing.B)      { benchParse(b, proseWithCalls(8<<20, 1<<20)) }
func BenchmarkParseHermes(b *testing.B)     { benchParse(b, denseHermes(8<<20)) }
func BenchmarkParseQwen3Coder(b *testing.B) { benchParse(b, denseQwenCoder(8<<20)) }
func BenchmarkParseJSONL(b *testing.B)      { benchParse(b, denseJSONL(8<<20)) }

// chunkReader returns at most 4 KiB per Read.
type chunkReader struct{ b []byte }

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 4096)], r.b)
	r.b = r.b[n:]
	return n, nil
}

func benchStream(b *testing.B, in []byte) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Stream(context.Background(), &chunkReader{in}, io.Discard, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStreamProse(b *testing.B)  { benchStream(b, proseWithCalls(8<<20, 1<<20)) }
func BenchmarkStreamHermes(b *testing.B) { benchStream(b, denseHermes(8<<20)) }
func BenchmarkStreamJSONL(b *testing.B)  { benchStream(b, denseJSONL(8<<20)) }

// A long call streamed a token (8 bytes) at a time, as SSE deltas arrive:
// the work must stay linear in its size.
func BenchmarkParseTokens(b *testing.B) {
	body := strings.Repeat("fmt.Println(\"line\") // a line of the file being written\n", 4<<10)
	cases := map[string]string{
		"qwen3_coder": "<tool_call>\n<function=write_file>\n<parameter=path>\nmain.go\n</parameter>\n<parameter=content>\n" + body + "</parameter>\n</function>\n</tool_call>",
		"hermes":      "<tool_call>{\"name\":\"write_file\",\"arguments\":{\"path\":\"main.go\",\"content\":" + strings.ReplaceAll(fmt.Sprintf("%q", body), "\\n", "\\n") + "}}</tool_call>",
		"harmony":     "<|channel|>analysis<|message|>" + body + "<|end|>",
	}
	for name, in := range cases {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				calls := 0
				p, _ := NewParser(Options{}, func(e *Event) error {
					if e.Type == "tool_call" || e.Type == "reasoning" {
						calls++
					}
					return nil
				})
				for off := 0; off < len(in); off += 8 {
					p.Write([]byte(in[off:min(len(in), off+8)]))
				}
				p.Close()
				if calls == 0 {
					b.Fatal("no event")
				}
			}
		})
	}
}
