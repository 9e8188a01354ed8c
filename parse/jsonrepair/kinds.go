package jsonrepair

import "math/bits"

// Set records which kinds of change the repair of one call made,
// one bit a kind: the transcoder sets a bit where it used to set a flag,
// which costs no allocation and no more than the flag did, and a call's
// "repairs" is built from the bits only when it is written. The order of
// the bits is the order of the list in the event: fixed, so that the same
// repairs read the same way whatever order the model made them in.
type Set uint64

// The kinds of change, as docs/json-repair.md lists them.
const (
	BOM                 Set = 1 << iota // a byte order mark before the JSON
	NBSP                                // non-breaking spaces as whitespace
	Comment                             // // line, /* block */ and # line comments
	TypographicQuote                    // “ ” ‘ ’ as the quotes of a string
	Fullwidth                           // ｛ ｝ ［ ］ ： ， as JSON's punctuation
	SingleQuotes                        // 'single-quoted' strings and keys
	UnquotedKey                         // {a: 1}
	BareWord                            // "timeout": 30s, an unquoted word as a string
	Literal                             // True, None, TRUE, Null, undefined: other spellings of true, false, null
	NonFinite                           // NaN, Infinity, -Infinity → null
	NumberForm                          // +1, 07, .5, 5.
	UnescapedQuote                      // a '"' inside a string left unescaped
	MissingClosingQuote                 // a string ended before the next key, its closing quote missing
	ControlCharacter                    // a raw newline, tab... in a string
	InvalidUTF8                         // bytes that are not UTF-8 in a string → U+FFFD
	LoneSurrogate                       // a \u escape of half a surrogate pair → U+FFFD
	InvalidEscape                       // an escape JSON lacks: \' \x41 \d, a \u without four hex digits, a line continuation
	EscapedPayload                      // the whole payload escaped once more: {\"a\": 1}
	TrailingComma                       // a ',' (or several) before a closer
	LeadingComma                        // a ',' right after an opener: [,1]
	RepeatedComma                       // a ',' repeated between two members: {"a":1,,"b":2}
	MissingComma                        // two values or members with no ',' between them
	MissingColon                        // a key and its value with no ':' between them: {"a" 1}
	MissingOpeningQuote                 // a key or word that lost its opening quote: {c": 1}, "a": b"
	MismatchedCloser                    // a closer that is not the innermost bracket's
	ExtraCloser                         // a closer with no bracket to close, inside a call's markers
	MissingCloser                       // closers the end of the output left out (of the envelope, never inside a value)
	Tuple                               // a Python tuple (1, 2) → [1,2]
	PySet                               // a Python set {'a', 'b'} → ["a","b"]
	StringPrefix                        // a Python u'' string
	StringConcatenation                 // adjacent Python strings 'a' 'b' → "ab"
	DoubleEncoded                       // arguments given as a JSON string that holds a JSON string
	MissingClosingTag                   // a tagged call without its </parameter>, </function>, </invoke> or </tool_call>
	TagSpelling                         // a call's tags written with tokenizer residue (Ġ, ▁), read by their words
	kindCount           = iota
)

// kindNames are the kinds' names in the "repairs" of a tool_call,
// in bit order.
var kindNames = [kindCount]string{
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
	"tag_spelling",
}

// Kinds lists the names a tool_call's "repairs" may hold, in the order
// they appear there.
func Kinds() []string { return append([]string(nil), kindNames[:]...) }

// Names returns the set's kind names in bit order; nil for the empty set.
func (s Set) Names() []string {
	if s == 0 {
		return nil
	}
	out := make([]string, 0, bits.OnesCount64(uint64(s)))
	for s != 0 {
		out = append(out, kindNames[bits.TrailingZeros64(uint64(s))])
		s &= s - 1
	}
	return out
}

// Repaired reports whether the value needed any repair.
func (r Result) Repaired() bool { return r.Repairs != 0 }
