package parse

// The brace body (BodyBrace), FunctionGemma's and Gemma 4's calls: an
// object with bare keys and token-delimited strings, rewritten here as
// JSON before it is read.

import (
	"bytes"
	"fmt"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
)

// braceCall reads a brace body: one or more calls prefix NAME{…} up to
// closer, as FunctionGemma's <start_function_call>call:NAME{k:<escape>v<escape>}
// and Gemma 4's <|tool_call>call:NAME{k:<|"|>v<|"|>}: keys are bare and
// strings are delimited by the token delim instead of quotes.
func braceCall(closer, format, prefix, delim string) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		// Read every call of the block before emitting any: Gemma 4
		// writes several in one block (call:f{…}call:g{…}).
		type gemmaOut struct {
			name, args []byte
			msg        string
		}
		var calls []gemmaOut
		emit := func(calls []gemmaOut, end int) error {
			for _, c := range calls {
				var err error
				if c.msg != "" {
					err = p.fail(i, end, format, c.msg)
				} else {
					// Bare keys are this format's syntax, not a repair.
					err = p.emitCall("", string(c.name), c.args, format, 0, p.base+int64(i), p.buf[i:end])
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
		k := p.skipSpace(j)
		for {
			at := k
			if ok, partial := p.hasPrefixAt(k, ":"+prefix); ok || partial && !eof {
				if partial {
					return 0, needMore, nil
				}
				k++ // <|tool_call>:call: as some Gemma 4 outputs have it
			}
			ok, partial := p.hasPrefixAt(k, prefix)
			if !ok {
				if partial && !eof {
					return 0, needMore, nil
				}
				if len(calls) == 0 {
					return 0, noMatch, nil
				}
				k = at
				break
			}
			k += len(prefix)
			win, miss := p.ahead(k, eof)
			ob := bytes.IndexByte(win, '{')
			if ob < 0 {
				if len(calls) > 0 && miss == noMatch {
					k = at
					break
				}
				return 0, miss, nil
			}
			name := bytes.TrimSpace(p.buf[k : k+ob])
			lenient, end := p.gemmaArgs(k+ob, delim)
			if end < 0 {
				if !eof {
					return 0, needMore, nil
				}
				// The calls before the cut one stand (rule 8).
				if err := emit(calls, len(p.buf)); err != nil {
					return 0, 0, err
				}
				return len(p.buf), matched, p.fail(i, len(p.buf), format, fmt.Sprintf("call to %q was cut off before its closing '}'; send the whole call again", name))
			}
			out, res, err := appendJSON(nil, lenient, false, false)
			c := gemmaOut{name: name, args: out}
			if err != nil || res.Truncated {
				c.msg = fmt.Sprintf("call to %q: arguments are not readable", name)
				if err != nil {
					c.msg = fmt.Sprintf("%s: %v", c.msg, err)
				}
			}
			calls = append(calls, c)
			k = p.skipSpace(end)
			if k >= len(p.buf) && !eof {
				return 0, needMore, nil
			}
		}
		// Text before the block's end marker is the block's.
		body, after, st := p.bodyEnd(k, closer, eof)
		if st == needMore {
			return 0, needMore, nil
		}
		if body != k {
			return after, matched, p.fail(i, after, format, fmt.Sprintf("text %q after the calls, before %s; write only calls (%sNAME{…}) in the block", clip.Prefix(bytes.TrimSpace(p.buf[k:body]), 64), closer, prefix))
		}
		end := after
		if end == k {
			end = p.closeBlock(k, closer)
		}
		return end, matched, emit(calls, end)
	}
}

// gemmaArgs rewrites the {k:<delim>v<delim>,…} object at buf[b] as lenient
// JSON: each delimited string becomes a JSON string, and a key right after
// a string gets the ',' FunctionGemma leaves out
// ({city:<escape>NYC<escape>unit:…}). end is just past the object's '}',
// or -1 when the input ends first.
func (p *Parser) gemmaArgs(b int, delim string) (lenient []byte, end int) {
	depth := 0
	for n := b; n < len(p.buf); {
		if bytes.HasPrefix(p.buf[n:], []byte(delim)) {
			s := n + len(delim)
			e := bytes.Index(p.buf[s:], []byte(delim))
			if e < 0 {
				return nil, -1
			}
			lenient = jsonw.AppendBytes(lenient, p.buf[s:s+e])
			n = s + e + len(delim)
			if n < len(p.buf) && isIdentByte(p.buf[n], true) {
				lenient = append(lenient, ',')
			}
			continue
		}
		c := p.buf[n]
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		lenient = append(lenient, c)
		n++
		if depth == 0 {
			return lenient, n
		}
	}
	return nil, -1
}
