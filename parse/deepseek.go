package parse

import (
	"bytes"
	"fmt"
)

// deepseekNoSep handles a DeepSeek R1 / V3.1 call whose own end token
// comes before any <｜tool▁sep｜>: <｜tool▁call▁begin｜>NAME{…}<｜tool▁call▁end｜>.
// Inside a <｜tool▁calls▁begin｜> section that is a call written wrong, so it
// is a parse_error covering it (its markers never go out as prose); outside
// a section the begin token is not read as a call. j is the end of the
// begin token, s the start of the token found after it, k that token's end.
func (p *Parser) deepseekNoSep(i, j, s, k int, sep string) (int, status, error) {
	if sep != "tool_call_end" || p.section != FormatDeepSeekR1 {
		return 0, noMatch, nil
	}
	format := FormatDeepSeekV31
	if !p.allowed(format) {
		format = FormatDeepSeekR1
	}
	name := bytes.TrimSpace(p.buf[j:s])
	if b := bytes.IndexAny(name, "{\n`"); b >= 0 {
		name = bytes.TrimSpace(name[:b])
	}
	if len(name) == 0 || len(name) > 64 {
		name = []byte("NAME")
	}
	msg := fmt.Sprintf("call has no <｜tool▁sep｜> between its name and its arguments: write %s<｜tool▁sep｜>{arguments}<｜tool▁call▁end｜>", name)
	return k, matched, p.fail(i, k, format, msg)
}
