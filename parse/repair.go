package parse

// The JSON repair itself is the leaf package jsonrepair; this is parse's
// side of it: the public RepairJSON and RepairKinds, and the short names
// the rest of parse reads it by.

import "github.com/toolcall/toolcall/parse/jsonrepair"

type (
	repairSet    = jsonrepair.Set
	repairResult = jsonrepair.Result
	syntaxError  = jsonrepair.SyntaxError
	jsonScanner  = jsonrepair.Scanner
	jsonMembers  = jsonrepair.Members
)

// The kinds of repair parse itself makes or looks for, beside those of the
// JSON inside a call.
const (
	repairLoneSurrogate     = jsonrepair.LoneSurrogate
	repairExtraCloser       = jsonrepair.ExtraCloser
	repairDoubleEncoded     = jsonrepair.DoubleEncoded
	repairMissingClosingTag = jsonrepair.MissingClosingTag
	repairTagSpelling       = jsonrepair.TagSpelling
)

// RepairJSON is the lenient JSON repair toolcall uses: it appends src, one
// JSON value written leniently (single quotes, trailing commas, comments,
// Python literals, missing closing brackets, ...), to dst as strict compact
// JSON. It fails rather than guess: on text it cannot read unambiguously, on
// a payload cut inside a string, number or key, and on anything but
// whitespace or comments after the value.
func RepairJSON(dst, src []byte) ([]byte, error) {
	out, _, err := jsonrepair.Repair(dst, src)
	return out, err
}

// RepairKinds lists the names a tool_call's "repairs" may hold, in the
// order they appear there.
func RepairKinds() []string { return jsonrepair.Kinds() }

// appendJSON is jsonrepair.Append with parse's two switches: strict (the
// user's --no-repair) and python.
func appendJSON(dst, src []byte, strict, python bool) ([]byte, repairResult, error) {
	return jsonrepair.Append(dst, src, jsonrepair.Options{Strict: strict, Python: python})
}

// appendJSONTypo is jsonrepair.Append in lenient mode with Options.Typo
// as given.
func appendJSONTypo(dst, src []byte, typo bool) ([]byte, repairResult, error) {
	return jsonrepair.Append(dst, src, jsonrepair.Options{Typo: typo})
}
