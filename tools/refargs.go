package tools

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/unsafestr"
	"github.com/toolcall/toolcall/tools/schema"
)

// The refs of a call are resolved in two passes over its arguments, which
// are small: the first finds every ref, reads each saved output once and
// measures it as the tool will receive it, a JSON string (a control
// character is six bytes there, \u0001), so that --max-ref-bytes bounds
// those bytes, all uses together, before anything is built; the second,
// the decoding that checks the call, swaps each ref for its text as it
// goes. The arguments the tool gets are then the one large copy: the
// decoded value shares each saved output's text, however often it is
// named, and the output is sized once, exactly.

// mayHoldRef is a quick test that args hold no ref: every ref has "ref:"
// in it, spelt out or with \u escapes.
func mayHoldRef(args []byte) bool {
	return bytes.Contains(args, []byte(refPrefix)) || bytes.Contains(args, []byte(`\u`))
}

// measureRefs finds the refs in a call's arguments (every string value
// that is "ref:<id>", at any depth; object keys are left alone), after
// normalizing them as CheckArguments does, so that a ref inside arguments
// sent as a JSON string is found too. It reads each saved output once and
// returns a resolver for the decoding that checks the call, or nil when
// there is no ref (or the arguments are not an object at all: that is for
// CheckArguments to say). It fails, naming the ref, when dir is "" (no
// --scratch), when an id names no output toolcall saved there, or when a
// saved output is larger than maxRefSize; and when the refs together
// would pass more than maxTotal bytes (DefaultMaxRefBytes when <= 0)
// written as JSON strings, counted at every use. Past the budget no
// other output is read: a thousand refs cost no more than the first few.
func measureRefs(args []byte, dir string, maxTotal int64) (*refResolver, error) {
	if !mayHoldRef(args) {
		return nil, nil
	}
	obj, bad := schema.Normalize(args)
	if bad != nil {
		return nil, nil
	}
	if maxTotal <= 0 {
		maxTotal = DefaultMaxRefBytes
	}
	r := &refResolver{dir: dir, max: maxTotal}
	_, _, derr := schema.Decode(obj, r)
	switch {
	case r.err != nil:
		return nil, r.err
	case derr != nil || len(r.uses) == 0:
		return nil, nil
	case r.total > r.max:
		return nil, r.tooMuch()
	}
	r.swapping = true
	return r, nil
}

// resolveRefs returns the arguments object with every ref replaced by the
// text it names, and where each was; the arguments as they are when they
// hold none. It is the validator's resolution on its own (see
// measureRefs), without the check, for whoever needs the text itself.
func resolveRefs(args []byte, dir string, maxTotal int64) ([]byte, []refUse, error) {
	r, err := measureRefs(args, dir, maxTotal)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return args, nil, nil
	}
	obj, _ := schema.Normalize(args)
	_, out, derr := schema.Decode(obj, r)
	if derr != nil {
		return args, nil, nil
	}
	return out, r.uses, nil
}

// refResolver is the schema decoder's hook for refs (schema.Refs): while
// measuring, it reads and counts them; once swapping, it puts their text
// in their place.
type refResolver struct {
	dir      string
	max      int64 // --max-ref-bytes
	swapping bool
	uses     []refUse
	err      error                 // the first ref that could not be read
	saved    map[string]*savedText // the outputs read, by id
	order    []string              // their ids, first named first
	total    int64                 // bytes the uses counted pass, as JSON strings
	grow     int64                 // how much longer the arguments get once swapped
	unread   int                   // uses past the budget, of outputs not read
}

// savedText is one saved output as a ref passes it.
type savedText struct {
	value   string // as the tool reads it back: invalid UTF-8 as U+FFFD
	raw     int64  // bytes in the file
	escaped int64  // bytes as a JSON string, quotes included
	named   int    // how many uses
}

// hook is r as the decoder's schema.Refs, or nil: an interface holding a
// nil *refResolver would not be nil.
func (r *refResolver) hook() schema.Refs {
	if r == nil {
		return nil
	}
	return r
}

// Swap handles the string s at ptr, written as written bytes: while
// measuring, it counts it when it is a ref and leaves it; once swapping,
// it gives the text it names, which the decoder puts in its place.
func (r *refResolver) Swap(ptr []byte, s string, written int) (string, bool) {
	id, ok := refID(s)
	if !ok || r.err != nil {
		return "", false
	}
	if r.swapping {
		t := r.saved[id]
		if t == nil {
			return "", false // not measured: impossible, as both passes read the same text
		}
		return t.value, true
	}
	t := r.saved[id]
	if t == nil {
		if r.total > r.max {
			r.unread++
			r.uses = append(r.uses, refUse{Pointer: string(ptr), Ref: s})
			return "", false
		}
		text, err := readRef(r.dir, id)
		if err != nil {
			r.err = err
			return "", false
		}
		// The file's bytes are never written again: the value shares them.
		v := jsonw.ValidString(unsafestr.String(text))
		t = &savedText{value: v, raw: int64(len(text)), escaped: int64(jsonw.StringLen(v))}
		if r.saved == nil {
			r.saved = map[string]*savedText{}
		}
		r.saved[id] = t
		r.order = append(r.order, id)
	}
	t.named++
	r.total += t.escaped
	r.grow += t.escaped - int64(written)
	r.uses = append(r.uses, refUse{Pointer: string(ptr), Ref: s})
	return "", false
}

// Room is how many bytes the swapped arguments need beyond the text
// decoded, plus one for the newline exec ends a tool's stdin with and
// the slack the JSON writer asks for, so that neither the decoding nor
// exec copies them again.
func (r *refResolver) Room() int {
	if r == nil || !r.swapping {
		return 0
	}
	return int(r.grow) + 1 + jsonw.AppendSlack
}

// used is where the refs were, or nil.
func (r *refResolver) used() []refUse {
	if r == nil {
		return nil
	}
	return r.uses
}

// tooMuch says that the refs pass more than --max-ref-bytes: how much, of
// which outputs, and what the model can do about it.
func (r *refResolver) tooMuch() error {
	var b strings.Builder
	at := ""
	if r.unread > 0 {
		at = "at least "
	}
	what := fmt.Sprintf("the %d refs in the arguments", len(r.uses))
	if len(r.uses) == 1 {
		what = "the ref in the arguments"
	}
	fmt.Fprintf(&b, "%s would pass %s%d bytes to the tool, more than the %d one call may pass (--max-ref-bytes); a ref counts as the tool receives it, a JSON string, where a control character takes 6 bytes and a quote, backslash or newline 2", what, at, r.total, r.max)
	for i, id := range r.order {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(r.order)-i)
			break
		}
		t := r.saved[id]
		fmt.Fprintf(&b, "; %s%s is %d bytes saved, %d as a JSON string", refPrefix, id, t.raw, t.escaped)
		if t.named > 1 {
			fmt.Fprintf(&b, ", named %d times", t.named)
		}
	}
	b.WriteString("; name each saved output once, or pass a smaller part of it")
	return fmt.Errorf("%s", b.String())
}
