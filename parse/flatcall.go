package parse

import (
	"bytes"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/unsafestr"
	"github.com/toolcall/toolcall/tools"
)

// flatCall reads the common call object, {"name": …, "arguments": {…}}
// with perhaps "type": "tool_call" and "id", straight from the compact
// JSON the repairer wrote, without building gjson results for every
// member. Anything else (envelopes, definitions, escaped keys) returns
// false, and candidates reads it in full. It decides exactly as
// candidates would, filling in c, which must be zero. (c is a pointer into
// Parser.cands: a candidate is large, and copying it costs time per call.)
//
// last is repairResult.last: the last member's value, most often the
// arguments, ends before the closing '}' and is not scanned again.
func (p *Parser) flatCall(c *candidate, out []byte, last int, inMarker bool, format string) bool {
	if len(out) < 2 || out[0] != '{' {
		return false
	}
	// Where each member lies, for flatMembers; more members than a call
	// has room for are candidates' to read.
	var m jsonMembers
	i := 1
	for i < len(out) && out[i] != '}' {
		if out[i] == ',' {
			i++
		}
		ke := stringEnd(out, i)
		if ke < 0 || ke >= len(out) || out[ke] != ':' || m.N == len(m.At) {
			return false
		}
		m.At[m.N] = [2]int{i, ke + 1}
		m.N++
		if i == last {
			break
		}
		if i = valueEnd(out, ke+1); i < 0 {
			return false
		}
	}
	return p.flatMembers(c, out, &m, false, inMarker, format)
}

// noMembers turns off jsonEnd's one-pass reading of strict JSON, for tests
// comparing it with the full one.
var noMembers bool

// flatMembers is flatCall on an object whose members the repairer found
// as it copied it (jsonrepair.Members), or leanObject as it read it
// (plain: no string in it has an escape), or flatCall: it reads each
// member into c, where its key is the string at out[m.At[k][0]] and its
// value runs from m.At[k][1] to the next member's ',' or the object's
// '}'. It returns false for a member flatCall leaves to candidates.
//
// The members are read in the loop, not by a function called for each:
// a call costs more, in registers put aside and restored, than the
// reading of most members.
func (p *Parser) flatMembers(c *candidate, out []byte, m *jsonMembers, plain, inMarker bool, format string) bool {
	if len(out) < 2 || out[0] != '{' {
		return false
	}
	c.format = format
	c.end = len(out)
	var typ []byte
	for k := range m.N {
		ks, vs, ve := m.At[k][0], m.At[k][1], len(out)-1
		if k+1 < m.N {
			ve = m.At[k+1][0] - 1
		}
		val := out[vs:ve]
		// Whether it is a string with no escape in it, as a name, an id and
		// a type must be: tested here, where it costs no call.
		str := len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' && (plain || bytes.IndexByte(val[1:len(val)-1], '\\') < 0)
		switch string(out[ks+1 : vs-2]) {
		case "name", "tool_name":
			if !str {
				return false
			}
			c.name, c.named = p.intern(val[1:len(val)-1]), true
		case "arguments", "parameters":
			if c.args.Exists() {
				return false
			}
			c.args = gjson.Result{Type: gjson.JSON, Raw: unsafestr.String(val), Index: vs}
		case "id":
			if !str {
				return false
			}
			c.id = string(val[1 : len(val)-1])
		case "type":
			if !str {
				return false
			}
			typ = val[1 : len(val)-1]
		default:
			return false // description, function, content, …: read in full
		}
	}
	return p.flatDecide(c, typ, inMarker, format)
}

// flatDecide decides, once flatCall has read every member, whether c is
// the call candidates would find (or, zero, that it would find none).
func (p *Parser) flatDecide(c *candidate, typ []byte, inMarker bool, format string) bool {
	bare := !inMarker
	switch {
	case string(typ) == tools.TypeToolCall:
		if bare {
			c.format = FormatJSONL
		}
		return true
	case typ != nil:
		return false
	case c.named && (c.args.Exists() || inMarker):
		if bare && p.explicitOnly {
			*c = candidate{}
			return true // not a call: candidates would find none
		}
		if bare && format == "" {
			c.format = FormatLlama3JSON
		}
		c.id = p.keepID(c.format, c.id)
		return true
	}
	return false
}

// intern returns b as a string, reusing the last one when it is the same.
func (p *Parser) intern(b []byte) string {
	if string(b) != p.lastName {
		p.lastName = string(b)
	}
	return p.lastName
}

// stringEnd returns the index just past the JSON string starting at b[i],
// or -1.
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	// Keys and names are short: a plain loop beats IndexByte's call.
	for k := i + 1; k < len(b); k++ {
		switch b[k] {
		case '\\':
			k++
		case '"':
			return k + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the strict compact JSON value at
// b[i], or -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for k := i; k < len(b); k++ {
			switch b[k] {
			case '"':
				e := stringEnd(b, k)
				if e < 0 {
					return -1
				}
				k = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return k + 1
				}
			}
		}
		return -1
	}
	for k := i; k < len(b); k++ {
		switch b[k] {
		case ',', '}', ']':
			return k
		}
	}
	return len(b)
}
