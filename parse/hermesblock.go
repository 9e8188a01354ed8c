package parse

// A dedicated path for the most common marked call: a Hermes block with
// the call object written as Python's json.dumps writes it, as chat
// templates show it and models copy it,
//
//	<tool_call>
//	{"name": "NAME", "arguments": {"KEY": VALUE, …}}
//	</tool_call>
//
// read in one pass and emitted, where the marker table, the Hermes spec, jsonEnd
// and leanObject would read the object, noting each run of whitespace,
// bodyOf bound it at its end marker, and jsonCalls read its members again
// (flatMembers, flatDecide) before emitCall.

// hermesOpen is the block up to the name's first byte, compared in two
// pieces as protocolOpen is; hermesArgs is what lies between the name and
// the arguments' '{' (its first sixteen bytes compared inline, the '{'
// alone), hermesClose what follows their '}'.
const (
	hermesOpen16   = "<tool_call>\n{\"na"
	hermesOpenRest = "me\": \""
	hermesOpen     = hermesOpen16 + hermesOpenRest
	hermesArgs16   = "\", \"arguments\": "
	hermesArgs     = hermesArgs16 + "{"
	hermesClose    = "}\n</tool_call>"
)

// noHermesBlock turns hermesCall off, for tests comparing it with the
// marker table's reading.
var noHermesBlock bool

// hermesCall emits the call in the <tool_call> block at buf[i] when it is
// written as above, whole in the buffer: the name a string leanObject
// reads (printable ASCII, no escape), the arguments an object
// flatObjectEnd reads with one space after each ':' and ',' and none
// elsewhere (hermesArguments), and the end marker right after it on a
// line of its own. ok is false, with nothing done, for anything else,
// even a block that differs only in its whitespace or the order of its
// members: the Hermes spec reads those.
//
// What the Hermes spec does with such a block is what hermesCall does, in fewer
// steps: <tool_call> followed by a newline starts no longer marker
// (TestHermesBlock); a '{' after it is no pythonic call, and is read by
// jsonEnd as strict JSON (leanObject, its arguments flat); bodyOf does not
// bound strict JSON at an end marker in one of its strings, and finds
// the end marker right after it; flatDecide takes a named object in a
// marker as a call of its format, with no id, no repair, no exponent and
// flat arguments. emitCall then decides all the rest (a name empty or
// holding a special token) for both.
func (p *Parser) hermesCall(i int) (end int, ok bool, err error) {
	b := p.buf[i:]
	if len(b) < len(hermesOpen) || string(b[:16]) != hermesOpen16 || string(b[16:len(hermesOpen)]) != hermesOpenRest || noHermesBlock || !p.allowed(FormatHermes) {
		return 0, false, nil
	}
	// The name, as leanObject reads a string value.
	k := leanWord(b, len(hermesOpen))
	for k < len(b) && leanStr[b[k]] {
		k++
	}
	name := b[len(hermesOpen):k]
	if len(b) < k+len(hermesArgs) || string(b[k:k+16]) != hermesArgs16 || b[k+16] != '{' {
		return 0, false, nil
	}
	a := k + len(hermesArgs) - 1
	c := &p.lean
	n := hermesArguments(b[a:], c)
	if n <= 0 {
		return 0, false, nil
	}
	n += a
	// leanObject notes three runs of whitespace in the call's own
	// members; with more than leanCopy has room for, readLean leaves the
	// object to AppendCompact, and emitCall looks at its arguments again.
	if c.runs+3 > len(c.from) || len(b) < n+len(hermesClose) || string(b[n:n+len(hermesClose)]) != hermesClose {
		return 0, false, nil
	}
	args := b[a:n:n]
	if c.runs > 0 {
		args, _ = c.end(p.scratch, b[a:], n-a)
		p.scratch = args[:0]
	}
	if p.decoded.out != nil {
		p.decoded = decoded{} // as jsonCalls leaves it
	}
	p.noExp, p.flatArgs = true, true
	end = i + n + len(hermesClose)
	return end, true, p.emitCall("", p.intern(name), args, FormatHermes, 0, p.base+int64(i), p.buf[i:i+n+1])
}

// hermesArguments returns where the object at the start of src ends when
// it is one flatObjectEnd reads, written with one space after each ':' and
// each ',' between members and no other whitespace, and notes those
// spaces in c as flatObjectEnd would; 0 for anything else, or an object
// src ends before the end of.
func hermesArguments(src []byte, c *leanCopy) int {
	b := src
	c.gaps, c.runs = 0, 0
	if len(b) < 2 || b[0] != '{' {
		return 0
	}
	i := 1
	if b[i] == '}' {
		return i + 1
	}
	for {
		// A key, its ':' and a space.
		if b[i] != '"' {
			return 0
		}
		i++
		for i = leanWord(b, i); i < len(b) && leanStr[b[i]]; i++ {
		}
		if i+3 >= len(b) || string(b[i:i+3]) != "\": " {
			return 0
		}
		c.note(i + 2)
		i += 3
		// Its value.
		switch b[i] {
		case '"':
			i++
			for i = leanWord(b, i); i < len(b) && leanStr[b[i]]; i++ {
			}
			if i >= len(b) || b[i] != '"' {
				return 0
			}
			i++
		case 't', 'n':
			if i+4 > len(b) || string(b[i:i+4]) != "true" && string(b[i:i+4]) != "null" {
				return 0
			}
			i += 4
		case 'f':
			if i+5 > len(b) || string(b[i:i+5]) != "false" {
				return 0
			}
			i += 5
		default:
			// An integer: no leading zero, as in flatObjectEnd.
			if b[i] == '-' {
				i++
			}
			k := i
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
			}
			if i == k || b[k] == '0' && i > k+1 {
				return 0
			}
		}
		// A ',' and a space, or the end.
		if i+2 >= len(b) {
			return 0
		}
		if b[i] == '}' {
			return i + 1
		}
		if b[i] != ',' || b[i+1] != ' ' {
			return 0
		}
		c.note(i + 1)
		i += 2
	}
}

// note notes the one space at src[i], as space does a run.
func (c *leanCopy) note(i int) {
	if r := c.runs; r < len(c.from) {
		c.from[r], c.to[r] = i, i+1
	}
	c.runs++
	c.gaps++
}
