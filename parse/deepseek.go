package parse

// DeepSeek R1's arguments, in a Markdown fence after the tool's name:
//
//	<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//	```json
//	{…}
//	```<｜tool▁call▁end｜>

import (
	"bytes"
	"fmt"
)

// fencedArgs reads a fenced name_json body (Spec.Fenced) from b, just
// past the name: the fence's opening line, when the model wrote one,
// then the JSON arguments up to the closing fence. The call's end
// marker after the fence is dropped as it comes (specMarkers).
func (p *Parser) fencedArgs(i, b int, eof bool, name, format string) (int, status, error) {
	b = p.skipSpace(b)
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
			return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q has no arguments: the output ended; send the whole call again", name))
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
	// Wait for the fence's closing ``` so that it is not read as the
	// start of a new fence.
	if c := p.skipSpace(end); !eof && (c == len(p.buf) || len(p.buf)-c < 3 && bytes.HasPrefix([]byte("```"), p.buf[c:])) {
		return 0, needMore, nil
	}
	return p.namedJSON(i, b, end, complete, eof, name, format, "```")
}
