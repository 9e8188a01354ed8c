package ollamabench

import (
	"testing"

	"github.com/toolcall/toolcall/parse"
)

// BenchmarkParse times each case on each side, fed in tokens (pieces of
// 1 to 7 bytes) and whole (one Add or Write a response), as
// Case/mode/side. The pieces are cut before the timer starts; toolcall's
// are []byte already, as a server's reader hands them over, Ollama's are
// strings, as its runner's completions are.
func BenchmarkParse(b *testing.B) {
	ts, opts := ollamaTools(), toolcallOptions()
	for _, c := range cases(false) {
		b.Run(c.name, func(b *testing.B) {
			responses := c.responses()
			size := 0
			for _, r := range responses {
				size += len(r)
			}
			for _, mode := range []string{"tokens", "whole"} {
				b.Run(mode, func(b *testing.B) {
					pieces := make([][]string, len(responses))
					for i, r := range responses {
						pieces[i] = []string{r}
						if mode == "tokens" {
							pieces[i] = tokens(r)
						}
					}
					b.Run("ollama", func(b *testing.B) {
						b.SetBytes(int64(size))
						b.ReportAllocs()
						for b.Loop() {
							for _, resp := range pieces {
								p := newOllama(c.ollama, ts)
								for i, s := range resp {
									if _, _, _, err := p(s, i == len(resp)-1); err != nil {
										b.Fatal(err)
									}
								}
							}
						}
					})
					b.Run("toolcall", func(b *testing.B) {
						bytePieces := make([][][]byte, len(pieces))
						for i, resp := range pieces {
							for _, s := range resp {
								bytePieces[i] = append(bytePieces[i], []byte(s))
							}
						}
						b.SetBytes(int64(size))
						b.ReportAllocs()
						for b.Loop() {
							for _, resp := range bytePieces {
								p, err := parse.NewParser(opts, func(*parse.Event) error { return nil })
								if err != nil {
									b.Fatal(err)
								}
								for _, s := range resp {
									p.Write(s)
								}
								if err := p.Close(); err != nil {
									b.Fatal(err)
								}
							}
						}
					})
				})
			}
		})
	}
}
