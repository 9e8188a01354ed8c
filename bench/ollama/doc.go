// Package ollamabench measures toolcall's parse against the output
// parsers of Ollama (github.com/ollama/ollama, model/parsers, harmony and
// tools), in process, on the same model output fed the same way: in
// pieces of a few bytes, as a server streams tokens to its parser, and
// whole. Only parsing is timed: each side's events or calls are made and
// dropped, nothing is written out.
//
// It is a module of its own so that the main module does not depend on
// Ollama. Run it from this directory (or make bench-ollama at the root):
//
//	go test -run X -bench . -benchtime 20x
//
// TestAgree checks first, on small inputs, that both sides read the same
// calls (and the same text around them), so that the figures compare the
// same work.
package ollamabench
