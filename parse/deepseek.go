package parse

// DeepSeek R1 / V3.1 and Step3 calls, spelled with fullwidth special
// tokens <｜…｜> whose spelling models and servers vary.

import (
	"bytes"
	"fmt"
)

// fullwidthName reads a DeepSeek-style special token <｜…｜> at buf[i] and
// returns its name with the spelling variants models produce folded
// together: "tool▁calls▁begin", "tool calls begin" and "tool_calls_begin"
// all come back as "tool_calls_begin".
func (p *Parser) fullwidthName(i int) (name string, end int, st status) {
	const open, closeTok = "<｜", "｜>"
	limit := min(len(p.buf), i+96)
	e := bytes.Index(p.buf[i+len(open):limit], []byte(closeTok))
	if e < 0 {
		if limit == len(p.buf) {
			return "", 0, needMore
		}
		return "", 0, noMatch
	}
	raw := p.buf[i+len(open) : i+len(open)+e]
	raw = bytes.ReplaceAll(raw, []byte("▁"), []byte("_"))
	raw = bytes.ReplaceAll(raw, []byte(" "), []byte("_"))
	return string(raw), i + len(open) + e + len(closeTok), matched
}

// fullwidthToken handles DeepSeek R1 / V3.1 and Step3 tokens.
func (p *Parser) fullwidthToken(i, j int, eof bool) (int, status, error) {
	name, end, st := p.fullwidthName(i)
	if st == needMore {
		return needOrNot(eof)
	}
	if st != matched {
		return 0, noMatch, nil
	}
	switch name {
	case "tool_calls_begin":
		if err := p.flushText(i); err != nil {
			return 0, 0, err
		}
		p.section = FormatDeepSeekR1
		return end, matched, nil
	case "tool_calls_end":
		if err := p.flushText(i); err != nil {
			return 0, 0, err
		}
		p.section = ""
		return end, matched, nil
	case "tool_call_begin":
		return p.deepseekCall(i, end, eof)
	case "tool_call_end", "tool_sep", "end_of_sentence", "Assistant", "begin_of_sentence", "tool_outputs_begin", "tool_output_begin", "tool_output_end", "tool_outputs_end":
		return end, matched, nil
	}
	return 0, noMatch, nil
}

// deepseekCall parses one call after <｜tool▁call▁begin｜>:
//
//	function<｜tool▁sep｜>NAME\n```json\n{…}\n```   DeepSeek R1
//	NAME<｜tool▁sep｜>{…}                           DeepSeek V3.1
//	function<｜tool_sep｜><steptml:invoke …>…        Step3
func (p *Parser) deepseekCall(i, j int, eof bool) (int, status, error) {
	s := p.indexWithin(j, "<｜", lookAhead)
	if s < 0 || s-j > lookAhead {
		if _, miss := p.ahead(j, eof); s < 0 {
			return 0, miss, nil
		}
		return 0, noMatch, nil
	}
	sep, k, st := p.fullwidthName(s)
	if st != matched {
		return needOrNot(eof)
	}
	if sep != "tool_sep" {
		return p.deepseekNoSep(i, j, s, k, sep)
	}
	left := bytes.TrimSpace(p.buf[j:s])
	if string(left) == "function" {
		if ok, partial := p.hasPrefixAt(k, "<steptml:invoke name="); ok || partial {
			if partial {
				return needOrNot(eof)
			}
			if !p.allowed(FormatStep3) {
				return 0, noMatch, nil
			}
			return invokeBlock(xmlStep3)(p, i, k+len("<steptml:invoke name="), eof)
		}
		if !p.allowed(FormatDeepSeekR1) {
			return 0, noMatch, nil
		}
		win, miss := p.ahead(k, eof)
		nl := bytes.IndexAny(win, "\n`{")
		if nl < 0 {
			return 0, miss, nil
		}
		name := bytes.TrimSpace(p.buf[k : k+nl])
		b := p.skipSpace(k + nl)
		if ok, partial := p.hasPrefixAt(b, "```"); ok {
			b += 3
			for b < len(p.buf) && p.buf[b] != '\n' && p.buf[b] != '{' {
				b++
			}
			b = p.skipSpace(b)
		} else if partial && !eof {
			return 0, needMore, nil
		}
		if b >= len(p.buf) {
			if eof {
				return len(p.buf), matched, p.fail(i, len(p.buf), FormatDeepSeekR1, fmt.Sprintf("call to %q has no arguments: the output ended; send the whole call again", name))
			}
			return 0, needMore, nil
		}
		if p.buf[b] != '{' {
			return 0, noMatch, nil
		}
		end, complete := p.jsonEnd(b, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		// Wait for the fence's closing ``` so that it is not read as
		// the start of a new fence.
		if c := p.skipSpace(end); !eof && (c == len(p.buf) || len(p.buf)-c < 3 && bytes.HasPrefix([]byte("```"), p.buf[c:])) {
			return 0, needMore, nil
		}
		return p.namedJSON(i, b, end, complete, eof, string(name), FormatDeepSeekR1, "```")
	}
	if !p.allowed(FormatDeepSeekV31) {
		return 0, noMatch, nil
	}
	return p.namedArgs(i, k, eof, string(left), FormatDeepSeekV31, "<｜tool▁call▁end｜>")
}

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
