package tools

import (
	"bytes"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// wholeMCPKeep bounds how much of a stdout that starts like a JSON object
// is kept whole beside its head and tail: enough that an MCP result a
// little or a lot past --max-output can be cut inside its text, as plain
// output is, rather than in its JSON. A longer one is cut as text.
const wholeMCPKeep = 1 << 20

// cutMCPText cuts the text parts of raw, an MCP CallToolResult, so that
// their text together is at most max bytes: the first and the last half
// of the text are kept (as --max-output keeps plain output's head and
// tail), across parts, with the cut marker where the middle went, and
// text parts wholly inside the cut are left out. Other parts,
// structuredContent and isError are kept as they are. It returns the cut
// result, well-formed JSON, and whether anything was cut; ok is false
// when raw is not an MCP result, and the caller cuts it as text.
func cutMCPText(raw []byte, max int) (out []byte, cut, ok bool) {
	if !gjson.ValidBytes(raw) {
		return nil, false, false
	}
	v := gjson.ParseBytes(raw)
	if !v.IsObject() || !isMCP(v) {
		return nil, false, false
	}
	parts := v.Get("content").Array()
	total := 0
	for _, p := range parts {
		if p.Get("type").Str == "text" {
			total += len(p.Get("text").Str)
		}
	}
	if total <= max {
		return raw, false, true
	}
	headLeft := max / 2
	tailLeft := max - headLeft
	// Where the tail starts: the tail takes from the last text parts.
	tailFrom := make([]int, len(parts)) // per text part, the byte its kept tail starts at (len: none)
	for i := len(parts) - 1; i >= 0; i-- {
		t := parts[i].Get("text").Str
		if parts[i].Get("type").Str != "text" {
			continue
		}
		k := min(tailLeft, len(t))
		tailFrom[i] = len(t) - k
		tailLeft -= k
	}
	out = append(out, `{"content":[`...)
	first, marked := true, false
	for i, p := range parts {
		if p.Get("type").Str != "text" {
			out = appendPart(out, &first, p.Raw)
			continue
		}
		t := p.Get("text").Str
		keepHead := min(headLeft, len(t))
		headLeft -= keepHead
		head := trimPartialRuneEnd([]byte(t[:keepHead]))
		if keepHead == len(t) {
			out = appendPart(out, &first, p.Raw)
			continue
		}
		if tailFrom[i] <= keepHead { // head and tail meet here: nothing is cut in this part
			out = appendPart(out, &first, p.Raw)
			continue
		}
		var text []byte
		text = append(text, head...)
		if !marked {
			marked = true
			text = appendCutMarker(text, int64(total), max/2, max-max/2)
		}
		if tailFrom[i] == len(t) {
			text = bytes.TrimSuffix(text, []byte{'\n'}) // the parts are joined by newlines already
		}
		text = append(text, trimPartialRuneStart([]byte(t[tailFrom[i]:]))...)
		if len(bytes.TrimSpace(text)) == 0 {
			continue // wholly inside the cut
		}
		out = appendPart(out, &first, textPart(p, text))
	}
	out = append(out, ']')
	v.ForEach(func(k, val gjson.Result) bool {
		if k.Str != "content" {
			out = append(out, ',')
			out = jsonw.AppendString(out, k.Str)
			out = append(out, ':')
			out = append(out, val.Raw...)
		}
		return true
	})
	return append(out, '}'), true, true
}

// appendPart appends one part of a content array.
func appendPart(dst []byte, first *bool, raw string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	return append(dst, raw...)
}

// textPart is the text part p with text in place of its own, its other
// members (annotations, _meta) kept.
func textPart(p gjson.Result, text []byte) string {
	b := []byte{'{'}
	p.ForEach(func(k, v gjson.Result) bool {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, k.Str)
		b = append(b, ':')
		if k.Str == "text" {
			b = jsonw.AppendBytes(b, text)
		} else {
			b = append(b, v.Raw...)
		}
		return true
	})
	return string(append(b, '}'))
}
