package parse

import (
	"bytes"
	"fmt"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// MiniMax-M3 writes every structural tag behind its namespace token:
//
//	]<]minimax[>[<tool_call>
//	]<]minimax[>[<invoke name="NAME">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>
//	]<]minimax[>[</tool_call>
//
// A parameter is named by its tag. A parameter whose content is more tags
// is an object; a tag repeated under one parent is an array, and so is a
// parent whose children are all <item> (or one the schema says is an
// array). Leaf values are typed like the other tagged formats: by the
// schema when there is one, else a bare value that reads as JSON is JSON.

// m3NS is the namespace token. Its first byte is not a trigger, so the
// marker is the rest of it and the ']' before is checked by the handler.
const m3NS = "]<]minimax[>["

// m3Marker is m3NS without its first byte.
const m3Marker = "<]minimax[>["

// miniMaxM3 handles the namespace token at buf[i-1]: a call section, an
// invoke, or a stray token, which is dropped.
func (p *Parser) miniMaxM3(i, j int, eof bool) (int, status, error) {
	if i == 0 || i-1 < p.seg || p.buf[i-1] != ']' {
		return 0, noMatch, nil
	}
	start := i - 1
	p.blockStart = start // the ']' belongs to the token
	rest := p.buf[j:]
	for _, t := range []string{"<tool_call>", "</tool_call>", "<invoke name="} {
		if len(rest) < len(t) && bytes.HasPrefix([]byte(t), rest) && !eof {
			return 0, needMore, nil
		}
	}
	switch {
	case bytes.HasPrefix(rest, []byte("<tool_call>")):
		if !p.allowed(FormatMiniMaxM3) {
			return 0, noMatch, nil
		}
		if err := p.flushText(start); err != nil {
			return 0, 0, err
		}
		p.section = FormatMiniMaxM3
		return j + len("<tool_call>"), matched, nil
	case bytes.HasPrefix(rest, []byte("</tool_call>")):
		if err := p.flushText(start); err != nil {
			return 0, 0, err
		}
		p.section = ""
		return j + len("</tool_call>"), matched, nil
	case bytes.HasPrefix(rest, []byte("<invoke name=")):
		if !p.allowed(FormatMiniMaxM3) {
			return 0, noMatch, nil
		}
		return p.m3Invoke(start, j+len("<invoke name="), eof)
	}
	// A namespace token on its own is a control token, not prose.
	if err := p.flushText(start); err != nil {
		return 0, 0, err
	}
	return j, matched, nil
}

// m3PlainInvoke reads an invoke written without its namespace tokens
// inside M3's section (<invoke name="f"><city>Paris</city></invoke>);
// outside it, the tag is another family's.
func (p *Parser) m3PlainInvoke(i, j int, eof bool) (int, status, error) {
	if p.section != FormatMiniMaxM3 {
		return 0, noMatch, nil
	}
	return p.m3Invoke(i, j-1, eof) // from the quote
}

// m3Tag reads a tag at buf[k], with or without the namespace token before
// it: its name, whether it closes, and where it ends. st is needMore when
// the input ends inside it, noMatch when no tag is there.
func (p *Parser) m3Tag(k int) (name []byte, closing bool, end int, st status) {
	if ok, partial := p.hasPrefixAt(k, m3NS); ok {
		k += len(m3NS)
	} else if partial {
		return nil, false, 0, needMore
	}
	if k >= len(p.buf) {
		return nil, false, 0, needMore
	}
	if p.buf[k] != '<' {
		return nil, false, 0, noMatch
	}
	k++
	if k < len(p.buf) && p.buf[k] == '/' {
		closing = true
		k++
	}
	n := k
	for n < len(p.buf) && n-k < 128 && (isIdentByte(p.buf[n], n == k) && p.buf[n] != '.' || p.buf[n] == ':') {
		n++
	}
	if n >= len(p.buf) {
		return nil, false, 0, needMore
	}
	if n == k || p.buf[n] != '>' {
		return nil, false, 0, noMatch
	}
	return p.buf[k:n], closing, n + 1, matched
}

// m3Invoke parses one invoke from the name attribute at buf[k] to its
// closing tag and emits the call.
func (p *Parser) m3Invoke(i, k int, eof bool) (int, status, error) {
	name, after, st := p.attrValue(k, eof)
	if st != matched {
		return 0, st, nil
	}
	win, miss := p.ahead(after, eof)
	gt := bytes.IndexByte(win, '>')
	if gt < 0 {
		return 0, miss, nil
	}
	tool := string(name)
	var ctx m3Ctx
	ctx.p, ctx.tool = p, tool
	out, end, err := ctx.children(nil, after+gt+1, "invoke", "", eof)
	switch {
	case err == errM3More:
		return 0, needMore, nil
	case err != nil:
		stop := len(p.buf)
		if e, ok := err.(*m3Error); ok && !e.cut {
			stop = e.at
		}
		return stop, matched, p.fail(i, stop, FormatMiniMaxM3, fmt.Sprintf("call to %q: %v", tool, err))
	case p.opts.NoRepair && ctx.repairs&repairMissingClosingTag != 0:
		return end, matched, p.fail(i, end, FormatMiniMaxM3, fmt.Sprintf("call to %q has no </invoke>", tool))
	}
	return end, matched, p.emitCall("", tool, out, FormatMiniMaxM3, ctx.repairs, p.base+int64(i), p.buf[i:end])
}

// m3Ctx carries what the recursive descent over one invoke needs.
type m3Ctx struct {
	p       *Parser
	tool    string
	repairs repairSet
}

// errM3More means the input ended inside the invoke before EOF.
var errM3More = fmt.Errorf("more input needed")

// m3Error is an invoke that cannot be read; cut when the output ended.
type m3Error struct {
	at  int
	msg string
	cut bool
}

func (e *m3Error) Error() string { return e.msg }

// m3Child is one parsed child element: its tag and JSON value.
type m3Child struct {
	name []byte
	val  []byte
}

// children reads child elements from buf[k] until the closing tag of
// parent and appends them to dst as one JSON value: an object, or an array
// when asArray or when every child is <item>. typ is the schema type of
// parent ("" when unknown or nested).
func (c *m3Ctx) children(dst []byte, k int, parent, typ string, eof bool) ([]byte, int, error) {
	p := c.p
	var kids []m3Child
	for {
		k = p.skipSpace(k)
		if k >= len(p.buf) {
			return nil, 0, c.cut(eof, parent)
		}
		name, closing, end, st := p.m3Tag(k)
		if st == needMore {
			if !eof {
				return nil, 0, errM3More
			}
			return nil, 0, c.cut(eof, parent)
		}
		if st != matched {
			return nil, 0, &m3Error{at: k, msg: fmt.Sprintf("unexpected text %q inside <%s>; write each argument as <name>value</name>", firstChar(p.buf[k:]), parent)}
		}
		if closing {
			if string(name) == parent {
				return m3Group(dst, kids, typ == "array"), end, nil
			}
			if parent == "invoke" && string(name) == "tool_call" {
				// The section ended without </invoke>: the envelope is
				// missing, not the arguments.
				c.repairs |= repairMissingClosingTag
				return m3Group(dst, kids, false), k, nil
			}
			return nil, 0, &m3Error{at: k, msg: fmt.Sprintf("closing tag </%s> where </%s> was expected", name, parent)}
		}
		if parent == "invoke" && string(name) == "invoke" {
			c.repairs |= repairMissingClosingTag
			return m3Group(dst, kids, false), k, nil
		}
		childType := ""
		if parent == "invoke" {
			childType = p.paramType(c.tool, name)
		}
		val, e, err := c.element(name, end, childType, eof)
		if err != nil {
			return nil, 0, err
		}
		kids = append(kids, m3Child{name: name, val: val})
		k = e
	}
}

func (c *m3Ctx) cut(eof bool, parent string) error {
	if !eof {
		return errM3More
	}
	return &m3Error{cut: true, msg: fmt.Sprintf("cut off before </%s>: its arguments may be incomplete; send the whole call again", parent)}
}

// element reads the content of <name> from buf[k]: more tags, or a value
// up to its closing tag.
func (c *m3Ctx) element(name []byte, k int, typ string, eof bool) ([]byte, int, error) {
	p := c.p
	n := p.skipSpace(k)
	if ok, partial := p.hasPrefixAt(n, m3NS+"<"); partial && !eof {
		return nil, 0, errM3More
	} else if ok && n+len(m3NS)+1 < len(p.buf) && p.buf[n+len(m3NS)+1] != '/' {
		return c.children(nil, n, string(name), typ, eof)
	} else if ok && n+len(m3NS)+1 >= len(p.buf) && !eof {
		return nil, 0, errM3More
	}
	closeTag := "</" + string(name) + ">"
	e := p.indexAt(k, closeTag)
	if e < 0 {
		if !eof {
			return nil, 0, errM3More
		}
		return nil, 0, &m3Error{cut: true, msg: fmt.Sprintf("cut off in the value of %q: the output ended before %s; send the whole call again", name, closeTag)}
	}
	v := bytes.TrimSuffix(p.buf[k:e], []byte(m3NS))
	var a argsBuilder
	a.buf = a.buf[:0]
	a.value(v, typ, false, p.opts.NoRepair, false)
	c.repairs |= a.repairs
	return a.buf, e + len(closeTag), nil
}

// m3Group writes children as a JSON array (asArray, or all <item>) or an
// object whose repeated keys become arrays, keys in first-seen order. No
// children at all is an empty string: <note></note> with tags but no text.
func m3Group(dst []byte, kids []m3Child, asArray bool) []byte {
	if !asArray && len(kids) > 0 {
		asArray = true
		for _, k := range kids {
			if string(k.name) != "item" {
				asArray = false
				break
			}
		}
	}
	if asArray {
		dst = append(dst, '[')
		for n, k := range kids {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, k.val...)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	done := make([]bool, len(kids))
	first := true
	for n, k := range kids {
		if done[n] {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = jsonw.AppendBytes(dst, k.name)
		dst = append(dst, ':')
		same := 0
		for m := n + 1; m < len(kids); m++ {
			if string(kids[m].name) == string(k.name) {
				same++
			}
		}
		if same == 0 {
			dst = append(dst, k.val...)
			continue
		}
		dst = append(dst, '[')
		dst = append(dst, k.val...)
		for m := n + 1; m < len(kids); m++ {
			if string(kids[m].name) == string(k.name) {
				dst = append(dst, ',')
				dst = append(dst, kids[m].val...)
				done[m] = true
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}
