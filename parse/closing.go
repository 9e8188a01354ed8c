package parse

import "bytes"

// closingTokens are what may follow a call before another call or the end
// of the turn: the closing tags of call blocks and sections, the closing
// fence of a json block, and end-of-turn tokens.
var closingTokens = [][]byte{[]byte("</tool_call>"), []byte("</tool_calls>"), []byte("</function>"), []byte("</invoke>"), []byte("</function_calls>"),
	[]byte("<|tool_call_end|>"), []byte("<|tool_calls_section_end|>"), []byte("<|eom_id|>"), []byte("<|eot_id|>"), []byte("<|im_end|>"),
	[]byte("<end_of_turn>"), []byte("</s>"), []byte("[/TOOL_CALLS]"), []byte("```"), []byte("<|end|>"), []byte("<|call|>")}

// TrimClosing removes the white space and closing tokens (closing tags of
// call blocks, end-of-turn tokens) at the start of text that came after a
// call, and returns what is left. partial reports that what is left may be
// the start of such a token, cut where the text ends so far: wait for more
// before judging it.
func TrimClosing(tail []byte) (rest []byte, partial bool) {
	rest = bytes.TrimLeft(tail, " \t\r\n")
	for len(rest) > 0 {
		closed := false
		for _, c := range closingTokens {
			switch {
			case bytes.HasPrefix(rest, c):
				rest, closed = bytes.TrimLeft(rest[len(c):], " \t\r\n"), true
			case bytes.HasPrefix(c, rest):
				return rest, true
			}
			if closed {
				break
			}
		}
		if !closed {
			break
		}
	}
	return rest, false
}
