package parse

// A dedicated path for the most common dense input: calls of the JSONL
// protocol written as toolcall writes them, one a line,
//
//	{"type":"tool_call","name":"NAME","arguments":{…}}
//
// read in one pass and emitted, where bareJSON would read the object
// (jsonEnd, leanObject), check that its line has ended, read its members
// again (jsonCalls, flatMembers, flatDecide) and only then emit it: the
// layers between run and emitCall cost more than reading such a line.

// protocolOpen is how toolcall writes a protocol call's first members, up
// to its name's first byte (TestProtocolLine holds it to
// tools.TypeToolCall). It is compared in two pieces: the compiler compares
// a constant of up to sixteen bytes inline, as words, and calls memequal
// for a longer one.
const (
	protocolOpen16   = `{"type":"tool_ca`
	protocolOpenRest = `ll","name":"`
	protocolOpen     = protocolOpen16 + protocolOpenRest
)

// noProtocolLine turns protocolCall off, for tests comparing it with
// bareJSON's reading.
var noProtocolLine bool

// protocolCall emits the call at buf[i], a '{' at a line start outside any
// call section, when it is a protocol line written as above: the name a
// string leanObject reads (printable ASCII, no escape), the arguments an
// object flatObjectEnd reads with no whitespace in it, its '}' the
// object's last byte, and the line's end after it (lineEnded), in the
// buffer already. ok is false, with nothing done, for anything else, even
// a line that differs only in the order of its members, an "id", or
// whitespace: bareJSON reads those.
//
// What bareJSON does with such a line is what protocolCall does, in
// fewer steps: the object is strict JSON read by leanObject, its own
// line's end bounds it (endsProtocolLine), "type":"tool_call" makes it a
// call of FormatJSONL anywhere (flatDecide; explicitOnly and outputStart
// decide nothing for it), with no id, no repair, no exponent and flat
// arguments (jsonCalls' noExp and flatArgs); directlyAnswer is Command R's
// only. emitCall then decides all the rest (a name empty or holding a
// special token, ids the model gave before) for both.
func (p *Parser) protocolCall(i int) (end int, ok bool, err error) {
	b := p.buf[i:]
	if len(b) < len(protocolOpen) || string(b[:16]) != protocolOpen16 || string(b[16:len(protocolOpen)]) != protocolOpenRest || noProtocolLine || !p.allowed(FormatJSONL) {
		return 0, false, nil
	}
	// The name, as leanObject reads a string value.
	k := leanWord(b, len(protocolOpen))
	for k < len(b) && leanStr[b[k]] {
		k++
	}
	name := b[len(protocolOpen):k]
	const argsKey = `","arguments":`
	if len(b) < k+len(argsKey) || string(b[k:k+len(argsKey)]) != argsKey {
		return 0, false, nil
	}
	a := k + len(argsKey)
	c := &p.lean
	c.gaps, c.runs = 0, 0
	n := flatObjectEnd(b, a, c)
	if n <= 0 || c.runs > 0 || n >= len(b) || b[n] != '}' || !lineEnded(b[n+1:]) {
		return 0, false, nil
	}
	end = i + n + 1
	// bareJSON waits when what follows the line is a '/' that ends the
	// input so far (a comment, or prose?); so does this, through it. (The
	// buffer's last byte is looked at first: it is rarely a '/'.)
	if last := len(p.buf) - 1; p.buf[last] == '/' && p.skipSpace(end) == last {
		return 0, false, nil
	}
	p.explicitOnly, p.outputStart = false, false // as bareJSON leaves them
	p.noExp, p.flatArgs = true, true
	args := b[a:n:n]
	return end, true, p.emitCall("", p.intern(name), args, FormatJSONL, 0, p.base+int64(i), p.buf[i:end])
}
