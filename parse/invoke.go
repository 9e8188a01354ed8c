package parse

import (
	"bytes"
	"html"
)

// Calls whose name and parameters' keys are attribute values:
// <invoke name="f"><parameter name="k">v</parameter></invoke> (MiniMax
// M2, DeepSeek's DSML, Step-3, Kimi K3, a spec's call.attribute and
// param.attribute), read into arguments by taggedArgs.

// invokeBlock handles <invoke name="N"> forms: the name an attribute
// value, the tag up to '>', then the parameters (or, with jsonArgs, one
// JSON object).
func invokeBlock(d *xmlDialect) handler {
	return func(p *Parser, i, j int, eof bool) (int, status, error) {
		name, k, st := p.attrValue(j, eof)
		if st != matched {
			return 0, st, nil
		}
		if d.escaped {
			name = unescapeAttr(name)
		}
		win, miss := p.ahead(k, eof)
		gt, n := tagEnd(win, d.nameTagEnd)
		if gt < 0 {
			return 0, miss, nil
		}
		b := p.skipSpace(k + gt + n)
		if b >= len(p.buf) && !eof {
			return 0, needMore, nil
		}
		if t := d.jsonTags; t != nil {
			// The arguments as one JSON object in tags of their own
			// (Kimi K3's <|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>).
			if ok, partial := p.hasPrefixAt(b, t.Start); ok {
				win, miss := p.ahead(b+len(t.Start), eof)
				gt, n := tagEnd(win, d.nameTagEnd)
				if gt < 0 {
					return 0, miss, nil
				}
				return p.namedArgs(i, b+len(t.Start)+gt+n, eof, string(name), d.format, t.End)
			} else if partial && !eof {
				return 0, needMore, nil
			}
		}
		if d.emptyNeedsSection && p.section != d.format {
			// An invoke with no parameter outside any section says
			// nothing of the family (MiniMax M2's, as peers read it):
			// no call of its. With known tools it may still read as
			// the shape it is (orGeneric).
			if ok, partial := p.hasPrefixAt(b, d.close); ok && p.section == "" {
				return 0, noMatch, nil
			} else if partial && !eof {
				return 0, needMore, nil
			}
		}
		if d.jsonArgs && b < len(p.buf) && p.buf[b] == '{' {
			// DeepSeek V3.2 and V4 sometimes write the arguments as one
			// JSON object instead of parameter tags.
			end, complete := p.jsonEnd(b, false)
			if !complete && !eof {
				return 0, needMore, nil
			}
			return p.namedJSON(i, b, end, complete, eof, string(name), d.format, d.close)
		}
		return p.taggedArgs(i, k+gt+n, eof, string(name), d.format, d)
	}
}

// attrValue reads a quoted (or bare) attribute value at buf[j].
func (p *Parser) attrValue(j int, eof bool) ([]byte, int, status) {
	if j >= len(p.buf) {
		if eof {
			return nil, 0, noMatch
		}
		return nil, 0, needMore
	}
	q := p.buf[j]
	if q != '"' && q != '\'' {
		// name=value> without quotes
		win, miss := p.ahead(j, eof)
		e := bytes.IndexAny(win, " >")
		if e < 0 {
			return nil, 0, miss
		}
		return p.buf[j : j+e], j + e, matched
	}
	win, miss := p.ahead(j+1, eof)
	e := bytes.IndexByte(win, q)
	if e < 0 {
		return nil, 0, miss
	}
	return p.buf[j+1 : j+1+e], j + e + 2, matched
}

// tagEnd finds the end of an attribute tag in win: t, or '>' when t
// is "". It returns where it starts and its length, or -1.
func tagEnd(win []byte, t string) (int, int) {
	if t == "" {
		return bytes.IndexByte(win, '>'), 1
	}
	return bytes.Index(win, []byte(t)), len(t)
}

// tagType is the type a parameter's value is read as: the one its tag
// says (typ, xmlDialect.typeAttr), else the schema's.
func (p *Parser) tagType(tool string, key []byte, typ string) string {
	if typ != "" {
		return typ
	}
	return p.paramType(tool, key)
}

// unescapeAttr is an XML-escaped attribute value as written before
// escaping (search&amp;summarize is search&summarize).
func unescapeAttr(v []byte) []byte {
	if bytes.IndexByte(v, '&') < 0 {
		return v
	}
	return []byte(html.UnescapeString(string(v)))
}

// attrNamed returns the XML-unescaped value of the attribute name="…" in
// head, or "".
func attrNamed(head []byte, name string) string {
	at := bytes.Index(head, []byte(name+`="`))
	for at > 0 && head[at-1] != ' ' {
		next := bytes.Index(head[at+1:], []byte(name+`="`))
		if next < 0 {
			return ""
		}
		at += 1 + next
	}
	if at < 0 {
		return ""
	}
	v := head[at+len(name)+2:]
	e := bytes.IndexByte(v, '"')
	if e < 0 {
		return ""
	}
	return html.UnescapeString(string(v[:e]))
}
