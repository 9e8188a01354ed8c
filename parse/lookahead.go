package parse

import "bytes"

// How the marker handlers search the buffer for what ends a name, a tag
// or a header: bounded (lookAhead), so that an unclosed '<' in prose
// costs little and holds nothing back for long.

// indexAt finds s in buf at or after j.
func (p *Parser) indexAt(j int, s string) int {
	if k := bytes.Index(p.buf[j:], []byte(s)); k >= 0 {
		return j + k
	}
	return -1
}

// lookAhead bounds how far a call's name, tag or header is searched for its
// end (a '>', a quote, a separator): such a head is short, and text where it
// does not end soon is prose, so waiting for more input past the bound
// would only hold the prose back, and searching further would make an
// unclosed '<' cost the rest of the input.
const lookAhead = 256

// ahead returns the at most lookAhead bytes of buf from k, and what finding
// no end in them means: needMore while the input goes on and fewer than
// lookAhead bytes have come, noMatch otherwise.
func (p *Parser) ahead(k int, eof bool) ([]byte, status) {
	win := p.buf[k:min(len(p.buf), k+lookAhead)]
	if !eof && len(win) < lookAhead {
		return win, needMore
	}
	return win, noMatch
}

// indexWithin finds s in buf at or after j, looking at most limit bytes
// ahead, so a header that never ends costs the limit, not the input.
func (p *Parser) indexWithin(j int, s string, limit int) int {
	end := min(len(p.buf), j+limit+len(s))
	if k := bytes.Index(p.buf[j:end], []byte(s)); k >= 0 {
		return j + k
	}
	return -1
}

// firstOf finds the earliest of several tokens at or after j, returning its
// position and which one; -1 when none is there. It walks the first bytes of
// the tokens, so it costs the distance to the match, not to the end of the
// buffer.
func (p *Parser) firstOf(j int, toks ...string) (int, int) {
	for k := j; k < len(p.buf); k++ {
		n := bytes.IndexByte(p.buf[k:], toks[0][0])
		same := true
		for _, t := range toks[1:] {
			if t[0] != toks[0][0] {
				same = false
			}
		}
		if !same {
			n = bytes.IndexAny(p.buf[k:], firstBytes(toks))
		}
		if n < 0 {
			return -1, -1
		}
		k += n
		for w, t := range toks {
			if bytes.HasPrefix(p.buf[k:], []byte(t)) {
				return k, w
			}
		}
	}
	return -1, -1
}

func firstBytes(toks []string) string {
	b := make([]byte, 0, len(toks))
	for _, t := range toks {
		b = append(b, t[0])
	}
	return string(b)
}
