package parse

import "testing"

// With known tools, as parse --tools and run parse, every '<', '[' and
// '‹' no family claims is looked at by the generic reader: these
// measure what that costs on prose (with HTML-ish tags and typographic
// quotes in it) and on dense JSONL.

func benchParseKnown(b *testing.B, in []byte) {
	opts := knownTools("lookup", "get_weather")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		p, _ := NewParser(opts, func(*Event) error { return nil })
		for off := 0; off < len(in); off += 4096 {
			p.Write(in[off:min(len(in), off+4096)])
		}
		p.Close()
	}
}

func proseWithTags(size int) []byte {
	const para = "The committee’s <b>review</b> of the [quarterly] figures noted that revenue rose, while costs held steady <i>across</i> most regions.\n"
	out := make([]byte, 0, size+len(para))
	for len(out) < size {
		out = append(out, para...)
	}
	return out
}

func BenchmarkParseProseKnown(b *testing.B)     { benchParseKnown(b, proseWithCalls(8<<20, 1<<20)) }
func BenchmarkParseProseTagsKnown(b *testing.B) { benchParseKnown(b, proseWithTags(8<<20)) }
func BenchmarkParseJSONLKnown(b *testing.B)     { benchParseKnown(b, denseJSONL(8<<20)) }
