package parse

import "bytes"

// bareMessage handles a <|message|> that starts the output with nothing
// before it: the chat template wrote the whole header (Muse Glimmer's
// "<|start|>assistant to=NAME", gpt-oss's channel), so the token is
// layout, never prose, and the body is read as a message with no header
// (ATEM markup in it is a call).
func (p *Parser) bareMessage(i, j int, eof bool) (int, status, error) {
	if !p.atOutputStart() || len(bytes.TrimSpace(p.buf[p.seg:i])) > 0 {
		return 0, noMatch, nil
	}
	return p.harmonyMessage(i, nil, j, eof)
}

// glimmerKnown reports whether ATEM markup in a message addressed to the
// user is a call: Glimmer's answer may quote the markup, so it counts only
// when its first invoke names one of --tools (the tool names decide where
// a family's forms are ambiguous).
func (p *Parser) glimmerKnown(body []byte) bool {
	const open = `<atem:invoke name="`
	if p.opts.KnownTool == nil {
		return false
	}
	k := bytes.Index(body, []byte(open))
	if k < 0 {
		return false
	}
	name := body[k+len(open):]
	e := bytes.IndexByte(name, '"')
	return e > 0 && p.opts.KnownTool(string(name[:e]))
}
