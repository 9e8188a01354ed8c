// Package bfcl holds the BFCL v4 subset of this directory (README.md) as
// files built into the binary: toolcall eval's default cases, shipped
// with their licence. The data stays in testdata, where everything this
// project did not write lives; this file, ours, only embeds it.
package bfcl

import "embed"

// Files are the cases (BFCL_v4_*.json), their answers
// (possible_answer/), the licence and the note on where they come from.
//
//go:embed *.json possible_answer/*.json LICENSE README.md
var Files embed.FS
