package parse

import (
	"bytes"
	"fmt"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// Families whose calls are a name in one marker and arguments in another
// (CWM, Kimi K3), and those whose markers prose or
// another family may also write (poolside Laguna's <user>, HyperCLOVA X's
// "-> tool/"), read from their published chat templates and parsers.

// cwmCall handles Meta CWM's <tool: LABEL>\nNAME ARGS\n</tool>: the first
// word of the body names the tool; the rest is its arguments, a JSON
// object, or else the text of a command, {"command": text}, as the
// model's tools take it.
func (p *Parser) cwmCall(i, j int, eof bool) (int, status, error) {
	win, miss := p.ahead(j, eof)
	gt := bytes.IndexByte(win, '>')
	if gt < 0 {
		return 0, miss, nil
	}
	if label := bytes.TrimSpace(win[:gt]); len(label) == 0 || bytes.ContainsAny(label, " \n<") {
		return 0, noMatch, nil
	}
	b := j + gt + 1
	const closeTag = "</tool>"
	e := p.indexAt(b, closeTag)
	if e < 0 {
		if !eof {
			return 0, needMore, nil
		}
		return len(p.buf), matched, p.fail(i, len(p.buf), FormatCWM, "tool call cut off before </tool>: its arguments may be incomplete; send the whole call again")
	}
	end := e + len(closeTag)
	body := bytes.TrimSpace(p.buf[b:e])
	n := bytes.IndexAny(body, " \t\r\n")
	if n < 0 {
		n = len(body)
	}
	name, rest := string(body[:n]), bytes.TrimSpace(body[n:])
	if name == "" {
		return end, matched, p.fail(i, end, FormatCWM, "tool call without a name: write the tool's name first in the <tool: …> block")
	}
	if len(rest) > 0 && rest[0] == '{' {
		// JSON arguments, which must read whole: broken ones are never
		// passed on as a command's text.
		out, res, err := appendJSON(nil, rest, p.opts.NoRepair, false)
		switch {
		case err != nil:
			return end, matched, p.fail(i, end, FormatCWM, fmt.Sprintf("call to %q: %s", name, p.jsonErrorMessage(err, b+bytes.Index(p.buf[b:e], rest))))
		case res.Truncated || res.N != len(rest):
			return end, matched, p.fail(i, end, FormatCWM, fmt.Sprintf("call to %q: its JSON arguments do not fill the block up to </tool>; write one JSON object", name))
		}
		p.noExp = !res.Exp
		return end, matched, p.emitCall("", name, out, FormatCWM, res.Repairs, p.base+int64(i), p.buf[i:end])
	}
	var a argsBuilder
	a.reset()
	a.key([]byte("command"))
	a.buf = jsonw.AppendBytes(a.buf, rest)
	return end, matched, p.emitCall("", name, a.done(), FormatCWM, 0, p.base+int64(i), p.buf[i:end])
}

// Upstage Solar Open's call end, which Solar Open 2 shares.
const solarEnd = "<|tool_call:end|>"

// lagunaTags are GLM's pairs as poolside Laguna writes them inside <user>.
var lagunaTags = &glmTags{key: "<arg_key>", keyEnd: "</arg_key>", val: "<arg_value>", valEnd: "</arg_value>", format: FormatLaguna, nameJSON: true}

// lagunaUser handles the call poolside Laguna sometimes writes in <user>
// tags instead of <tool_call>, or around it: a name line then GLM's pairs
// or a JSON object, or a {"name", "arguments"} object. <user> is also just
// a word in angle brackets, so only a call to one of the caller's tools
// (--tools) counts, unless a <tool_call> follows.
func (p *Parser) lagunaUser(i, j int, eof bool) (int, status, error) {
	const closer = "</user>"
	k := p.skipSpace(j)
	if k >= len(p.buf) {
		return needOrNot(eof)
	}
	if ok, partial := p.hasPrefixAt(k, "<tool_call>"); ok || partial && !eof {
		// <user><tool_call>…</tool_call></user>: the wrapper goes, the
		// call is read as any <tool_call> is (its </user> as a closer).
		if partial {
			return 0, needMore, nil
		}
		return k, matched, nil
	}
	if p.opts.KnownTool == nil {
		return 0, noMatch, nil
	}
	if p.buf[k] == '{' {
		end, complete := p.jsonEnd(k, false)
		if !complete && !eof {
			return 0, needMore, nil
		}
		if !p.opts.KnownTool(callName(p.buf[k:end])) {
			return 0, noMatch, nil
		}
		return p.markedJSON(i, k, end, complete, eof, closer, FormatLaguna)
	}
	win, miss := p.ahead(k, eof)
	e := bytes.IndexAny(win, "\n<{")
	if e < 0 {
		return 0, miss, nil
	}
	// The name, then its line's end, arguments or a JSON object:
	// "<user>bash</user>" in prose is not a call.
	if win[e] == '<' && !bytes.HasPrefix(win[e:], []byte(lagunaTags.key)) {
		if e+len(lagunaTags.key) > len(win) && !eof && miss == needMore {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	if !p.opts.KnownTool(string(bytes.TrimSpace(win[:e]))) {
		return 0, noMatch, nil
	}
	return p.glmCall(i, k, eof, closer, lagunaTags)
}

// HyperCLOVA X SEED Think 14B's template follows "<|im_start|>assistant"
// with " -> tool/function_call\n" and a JSON list of calls; the model
// also shortens it to "-> tool/NAME\n" and the arguments.
const (
	clovaHead = "-> tool/"
	clovaCall = clovaHead + "function_call"
)

// clovaCall handles HyperCLOVA X's call header at buf[i] ("->"), at the
// start of a line. Its shortened form counts only for a known tool
// (--tools): "-> tool/x" is also how prose draws an arrow.
func (p *Parser) clovaCall(i int, eof bool) (int, status, error) {
	if !p.allowed(FormatHyperCLOVAX) || !p.atLineStart(i) {
		return 0, noMatch, nil
	}
	ok, partial := p.hasPrefixAt(i, clovaCall)
	if partial && !eof {
		return 0, needMore, nil
	}
	if ok {
		k := p.skipSpace(i + len(clovaCall))
		if k >= len(p.buf) {
			return needOrNot(eof)
		}
		if c := p.buf[k]; c != '[' && c != '{' {
			return 0, noMatch, nil
		}
		return p.prefixedJSON(i, k, eof, "<|im_end|>", FormatHyperCLOVAX)
	}
	if ok, _ := p.hasPrefixAt(i, clovaHead); !ok || p.opts.KnownTool == nil {
		return 0, noMatch, nil
	}
	k := i + len(clovaHead)
	n := k
	for n < len(p.buf) && isIdentByte(p.buf[n], n == k) {
		n++
	}
	if n >= len(p.buf) {
		if !eof && n-k < 128 {
			return 0, needMore, nil
		}
		return 0, noMatch, nil
	}
	if n == k || p.buf[n] != '\n' || !p.opts.KnownTool(string(p.buf[k:n])) {
		return 0, noMatch, nil
	}
	trigger := p.blockStart
	p.blockStart = i
	e, st, err := p.namedArgs(i, n+1, eof, string(p.buf[k:n]), FormatHyperCLOVAX, "<|im_end|>")
	if st == noMatch {
		p.blockStart = trigger
	}
	return e, st, err
}
