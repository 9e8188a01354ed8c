package parse

import "fmt"

// kimiArgs reads the arguments of a Kimi K2 call whose id gave name. The
// template writes the id as functions.NAME:INDEX; an id that is an index
// alone ("0", as a model writes after a history whose call ids were bare
// counters) names no tool, and no tool is guessed for it: the call is a
// parse_error up to its end marker.
func (p *Parser) kimiArgs(i, b int, eof bool, name []byte) (int, status, error) {
	const closer = "<|tool_call_end|>"
	if !allDigits(name) {
		return p.namedArgs(i, b, eof, string(name), FormatKimiK2, closer)
	}
	end := len(p.buf)
	if c := p.indexWithin(b, closer, maxBlock); c >= 0 {
		end = c + len(closer)
	} else if !eof {
		return 0, needMore, nil
	}
	return end, matched, p.fail(i, end, FormatKimiK2, fmt.Sprintf("the call's id %q names no tool: write <|tool_call_begin|>functions.NAME:%s<|tool_call_argument_begin|>{arguments}<|tool_call_end|>", name, name))
}

// allDigits reports whether b is a non-empty run of ASCII digits.
func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
