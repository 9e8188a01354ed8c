package ollamabench

import (
	"slices"
	"testing"
)

// TestAgree: on small inputs of each benchmark, fed in tokens and whole,
// Ollama's parser and toolcall's read the same calls with the same
// arguments, and the same text and reasoning around them, so that the
// benchmarks time the same work.
func TestAgree(t *testing.T) {
	ts, opts := ollamaTools(), toolcallOptions()
	for _, c := range cases(true) {
		for _, mode := range []string{"tokens", "whole"} {
			for i, resp := range c.responses() {
				pieces := []string{resp}
				if mode == "tokens" {
					pieces = tokens(resp)
				}
				o, err := readOllama(c.ollama, ts, pieces)
				if err != nil {
					t.Fatalf("%s/%s response %d: ollama: %v", c.name, mode, i, err)
				}
				tc, err := readToolcall(opts, pieces)
				if err != nil {
					t.Fatalf("%s/%s response %d: toolcall: %v", c.name, mode, i, err)
				}
				if len(o.calls) == 0 {
					t.Fatalf("%s/%s response %d: no calls", c.name, mode, i)
				}
				if !slices.Equal(o.calls, tc.calls) {
					t.Errorf("%s/%s response %d: calls differ:\nollama   %q\ntoolcall %q", c.name, mode, i, o.calls, tc.calls)
				}
				// tools.Parser drops what follows a call's tag.
				if c.ollama != "tools" && (o.text != tc.text || o.thinking != tc.thinking) {
					t.Errorf("%s/%s response %d: text differs:\nollama   %q / %q\ntoolcall %q / %q", c.name, mode, i, o.text, o.thinking, tc.text, tc.thinking)
				}
			}
		}
	}
}
