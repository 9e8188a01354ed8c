package parse

import "math/bits"

// repairSet records which kinds of change the repair of one call made,
// one bit a kind: the transcoder sets a bit where it used to set a flag,
// which costs no allocation and no more than the flag did, and a call's
// "repairs" is built from the bits only when it is written. The order of
// the bits is the order of the list in the event: fixed, so that the same
// repairs read the same way whatever order the model made them in.
type repairSet uint64

// The kinds of change, as README.md (JSON repair) lists them.
const (
	repairBOM                 repairSet = 1 << iota // a byte order mark before the JSON
	repairNBSP                                      // non-breaking spaces as whitespace
	repairComment                                   // // line, /* block */ and # line comments
	repairTypographicQuote                          // “ ” ‘ ’ as the quotes of a string
	repairFullwidth                                 // ｛ ｝ ［ ］ ： ， as JSON's punctuation
	repairSingleQuotes                              // 'single-quoted' strings and keys
	repairUnquotedKey                               // {a: 1}
	repairBareWord                                  // "timeout": 30s, an unquoted word as a string
	repairLiteral                                   // True, None, TRUE, Null, undefined: other spellings of true, false, null
	repairNonFinite                                 // NaN, Infinity, -Infinity → null
	repairNumberForm                                // +1, 07, .5, 5.
	repairUnescapedQuote                            // a '"' inside a string left unescaped
	repairMissingClosingQuote                       // a string ended before the next key, its closing quote missing
	repairControlCharacter                          // a raw newline, tab... in a string
	repairInvalidUTF8                               // bytes that are not UTF-8 in a string → U+FFFD
	repairLoneSurrogate                             // a \u escape of half a surrogate pair → U+FFFD
	repairInvalidEscape                             // an escape JSON lacks: \' \x41 \d, a \u without four hex digits, a line continuation
	repairEscapedPayload                            // the whole payload escaped once more: {\"a\": 1}
	repairTrailingComma                             // a ',' (or several) before a closer
	repairLeadingComma                              // a ',' right after an opener: [,1]
	repairRepeatedComma                             // a ',' repeated between two members: {"a":1,,"b":2}
	repairMissingComma                              // two values or members with no ',' between them
	repairMissingColon                              // a key and its value with no ':' between them: {"a" 1}
	repairMissingOpeningQuote                       // a key or word that lost its opening quote: {c": 1}, "a": b"
	repairMismatchedCloser                          // a closer that is not the innermost bracket's
	repairExtraCloser                               // a closer with no bracket to close, inside a call's markers
	repairMissingCloser                             // closers the end of the output left out (of the envelope, never inside a value)
	repairTuple                                     // a Python tuple (1, 2) → [1,2]
	repairPySet                                     // a Python set {'a', 'b'} → ["a","b"]
	repairStringPrefix                              // a Python u'' string
	repairStringConcatenation                       // adjacent Python strings 'a' 'b' → "ab"
	repairDoubleEncoded                             // arguments given as a JSON string that holds a JSON string
	repairMissingClosingTag                         // a tagged call without its </parameter>, </function>, </invoke> or </tool_call>
	repairKindCount           = iota
)

// repairKindNames are the kinds' names in the "repairs" of a tool_call,
// in bit order.
var repairKindNames = [repairKindCount]string{
	"bom",
	"nbsp",
	"comment",
	"typographic_quote",
	"fullwidth_punctuation",
	"single_quotes",
	"unquoted_key",
	"bare_word",
	"literal",
	"non_finite_number",
	"number_form",
	"unescaped_quote",
	"missing_closing_quote",
	"control_character",
	"invalid_utf8",
	"lone_surrogate",
	"invalid_escape",
	"escaped_payload",
	"trailing_comma",
	"leading_comma",
	"repeated_comma",
	"missing_comma",
	"missing_colon",
	"missing_opening_quote",
	"mismatched_closer",
	"extra_closer",
	"missing_closer",
	"tuple",
	"set",
	"string_prefix",
	"string_concatenation",
	"double_encoded",
	"missing_closing_tag",
}

// RepairKinds lists the names a tool_call's "repairs" may hold, in the
// order they appear there.
func RepairKinds() []string { return append([]string(nil), repairKindNames[:]...) }

// names returns the set's kind names in bit order; nil for the empty set.
func (s repairSet) names() []string {
	if s == 0 {
		return nil
	}
	out := make([]string, 0, bits.OnesCount64(uint64(s)))
	for s != 0 {
		out = append(out, repairKindNames[bits.TrailingZeros64(uint64(s))])
		s &= s - 1
	}
	return out
}

// repaired reports whether the value needed any repair.
func (r repairResult) repaired() bool { return r.repairs != 0 }
