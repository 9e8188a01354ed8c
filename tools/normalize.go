package tools

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonptr"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
	"github.com/toolcall/toolcall/tools/schema"
)

// Argument normalisation. A sidecar may name the near misses models write
// for its tool's arguments: "aliases" for property names ("q" for
// "query"), "value_aliases" for enum values ("C" for "celsius"). They are
// applied before refs are resolved and the schema is checked, and each
// change is recorded on the call that passes ("normalized"), so nothing is
// changed silently. An alias is never applied over a property the call
// also gives under its own name (or under a second alias): that call is
// refused, as a property given twice is. A tool without aliases pays
// nothing: its arguments are not looked at here.
//
// Where an alias applies is a JSON pointer into the arguments, written
// with the names the schema uses: "/filter/q": "query" renames q inside
// filter, even when the model wrote filter under an alias of its own; a
// bare name ("q") is a top-level property. In such a pointer, "*" stands
// for every item of an array ("/items/*/q").

// Aliases is a tool's argument normalisation, read from its sidecar.
type Aliases struct {
	// Names are the property aliases, in the sidecar's order.
	Names []NameAlias
	// Values are the enum value aliases, in the sidecar's order.
	Values []ValueAlias
	root   *aliasNode
}

// NameAlias says that inside the object at Parent (a JSON pointer, "" for
// the arguments object) the property From is the property To.
type NameAlias struct {
	Key            string // the key as the sidecar wrote it
	Parent         string
	From, To       string
	parentPointers []string // Parent's tokens, unescaped
}

// ValueAlias says that the string From at Pointer is the JSON value To.
type ValueAlias struct {
	Pointer string
	From    string
	To      []byte
	tokens  []string
}

// Normalization is one change the aliases made to a call's arguments.
// For a property renamed, Pointer is "" and From and To are its pointers
// before and after (the parent's name as the schema has it: each change
// is recorded on its own). For a value, Pointer is where it is, From the
// string the model wrote and To the JSON it became.
type Normalization struct {
	Pointer string
	From    string
	To      string
}

// aliasNode is where aliases apply, one node per pointer token.
type aliasNode struct {
	rename map[string]string     // property as written -> as the schema names it
	values map[string][]byte     // string as written -> the JSON it stands for
	next   map[string]*aliasNode // by property name, item index or "*"
}

func (n *aliasNode) child(tok string) *aliasNode {
	if n.next == nil {
		n.next = map[string]*aliasNode{}
	}
	c := n.next[tok]
	if c == nil {
		c = &aliasNode{}
		n.next[tok] = c
	}
	return c
}

func (n *aliasNode) at(tokens []string) *aliasNode {
	for _, t := range tokens {
		n = n.child(t)
	}
	return n
}

// pointerTokens splits an alias key into its tokens: a JSON pointer
// ("/filter/q"), or a bare top-level name ("q"), which is one token as
// written.
func pointerTokens(key string) []string {
	if !strings.HasPrefix(key, "/") {
		return []string{key}
	}
	toks := strings.Split(key[1:], "/")
	for i, t := range toks {
		toks[i] = jsonptr.Unescape(t)
	}
	return toks
}

// pointerOf writes tokens as a JSON pointer.
func pointerOf(tokens []string) string {
	var b []byte
	for _, t := range tokens {
		b = jsonptr.AppendToken(append(b, '/'), t)
	}
	return string(b)
}

// parseAliases reads a sidecar's "aliases" and "value_aliases"; nil when
// neither is given.
func parseAliases(names, values gjson.Result, fail func(string, ...any)) *Aliases {
	a := &Aliases{root: &aliasNode{}}
	if names.Exists() && names.Type != gjson.Null {
		if !names.IsObject() {
			fail(`"aliases" must be an object of alias: property name ({"q": "query"}, or "/filter/q": "query" inside an object), found %s`, phrase.Describe(names))
		} else {
			names.ForEach(func(k, v gjson.Result) bool {
				a.addName(k.Str, v, fail)
				return true
			})
		}
	}
	if values.Exists() && values.Type != gjson.Null {
		if !values.IsObject() {
			fail(`"value_aliases" must be an object of pointer: {alias: value} ({"/unit": {"C": "celsius"}}), found %s`, phrase.Describe(values))
		} else {
			values.ForEach(func(k, v gjson.Result) bool {
				a.addValues(k.Str, v, fail)
				return true
			})
		}
	}
	if len(a.Names) == 0 && len(a.Values) == 0 {
		return nil
	}
	return a
}

func (a *Aliases) addName(key string, v gjson.Result, fail func(string, ...any)) {
	toks := pointerTokens(key)
	from := toks[len(toks)-1]
	parent := toks[:len(toks)-1]
	if key == "" || key == "/" || from == "" {
		fail(`"aliases": the key %q names no property; write the alias ("q") or its pointer ("/filter/q")`, key)
		return
	}
	if v.Type != gjson.String || v.Str == "" {
		fail(`"aliases": %q must map to the property's name as a string, found %s`, key, phrase.Describe(v))
		return
	}
	to := v.Str
	if strings.HasPrefix(to, "/") {
		// A pointer is accepted when it names a property of the same
		// object.
		tt := pointerTokens(to)
		if !slices.Equal(tt[:len(tt)-1], parent) {
			fail(`"aliases": %q -> %q: an alias renames a property within its object; give the new name alone (%q)`, key, to, tt[len(tt)-1])
			return
		}
		to = tt[len(tt)-1]
	}
	if to == from {
		fail(`"aliases": %q maps to itself; remove it`, key)
		return
	}
	n := a.root.at(parent)
	if _, dup := n.rename[from]; dup {
		fail(`"aliases": %q is given twice (as a name and as a pointer?); keep one`, key)
		return
	}
	if n.rename == nil {
		n.rename = map[string]string{}
	}
	n.rename[from] = to
	a.Names = append(a.Names, NameAlias{Key: key, Parent: pointerOf(parent), From: from, To: to, parentPointers: parent})
}

func (a *Aliases) addValues(key string, v gjson.Result, fail func(string, ...any)) {
	if key == "" || key == "/" {
		fail(`"value_aliases": the key %q names no value; write the pointer of the property ("/unit")`, key)
		return
	}
	if !v.IsObject() {
		fail(`"value_aliases": %q must map to an object of alias: value ({"C": "celsius"}), found %s`, key, phrase.Describe(v))
		return
	}
	toks := pointerTokens(key)
	n := a.root.at(toks)
	ptr := pointerOf(toks)
	v.ForEach(func(from, to gjson.Result) bool {
		if n.values == nil {
			n.values = map[string][]byte{}
		}
		if _, dup := n.values[from.Str]; dup {
			fail(`"value_aliases": %q: %q is given twice; keep one`, key, from.Str)
			return true
		}
		n.values[from.Str] = compact(to.Raw)
		a.Values = append(a.Values, ValueAlias{Pointer: ptr, From: from.Str, To: compact(to.Raw), tokens: toks})
		return true
	})
}

// normalize applies t's aliases to a call's arguments (as the model wrote
// them): the arguments with every alias replaced, and what changed, in
// the order of the arguments. Arguments that are not one readable object
// come back as they are, for the schema check to explain. A schema.Error
// says an alias would collide with a property the call also gives.
func (t *Tool) normalize(args []byte) ([]byte, []Normalization, *schema.Error) {
	if t.Aliases == nil {
		return args, nil, nil
	}
	obj, bad := schema.Normalize(args)
	if bad != nil || !gjson.ValidBytes(obj) {
		return args, nil, nil
	}
	w := aliasWriter{out: make([]byte, 0, len(obj))}
	w.value(gjson.ParseBytes(obj), t.Aliases.root)
	if w.err != nil {
		return args, nil, w.err
	}
	if len(w.rec) == 0 {
		return args, nil, nil
	}
	return w.out, w.rec, nil
}

// aliasWriter writes arguments with aliases applied, going down only
// where an alias may apply; everything else is copied as it is.
type aliasWriter struct {
	out []byte
	ptr []byte // the pointer of the value being written, as renamed
	rec []Normalization
	err *schema.Error
}

func (w *aliasWriter) value(v gjson.Result, n *aliasNode) {
	switch {
	case n == nil:
	case v.Type == gjson.String && n.values != nil:
		if to, ok := n.values[v.Str]; ok {
			w.rec = append(w.rec, Normalization{Pointer: string(w.ptr), From: v.Str, To: string(to)})
			w.out = append(w.out, to...)
			return
		}
	case v.IsObject() && (n.rename != nil || n.next != nil):
		w.object(v, n)
		return
	case v.IsArray() && n.next != nil:
		w.array(v, n)
		return
	}
	w.out = append(w.out, v.Raw...)
}

func (w *aliasWriter) object(v gjson.Result, n *aliasNode) {
	if n.rename != nil && w.collides(v, n) {
		return
	}
	w.out = append(w.out, '{')
	i := 0
	v.ForEach(func(k, val gjson.Result) bool {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		i++
		name := k.Str
		mark := len(w.ptr)
		w.ptr = jsonptr.AppendToken(append(w.ptr, '/'), name)
		if to, ok := n.rename[name]; ok {
			from := string(w.ptr)
			w.ptr = jsonptr.AppendToken(append(w.ptr[:mark], '/'), to)
			w.rec = append(w.rec, Normalization{From: from, To: string(w.ptr)})
			name = to
			w.out = jsonw.AppendString(w.out, to)
		} else {
			w.out = append(w.out, k.Raw...)
		}
		w.out = append(w.out, ':')
		w.value(val, n.next[name])
		w.ptr = w.ptr[:mark]
		return w.err == nil
	})
	w.out = append(w.out, '}')
}

func (w *aliasWriter) array(v gjson.Result, n *aliasNode) {
	w.out = append(w.out, '[')
	i := 0
	v.ForEach(func(_, val gjson.Result) bool {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		mark := len(w.ptr)
		w.ptr = strconv.AppendInt(append(w.ptr, '/'), int64(i), 10)
		c, ok := n.next[string(w.ptr[mark+1:])]
		if !ok {
			c = n.next["*"]
		}
		w.value(val, c)
		w.ptr = w.ptr[:mark]
		i++
		return w.err == nil
	})
	w.out = append(w.out, ']')
}

// collides reports, and records as w.err, an alias in v whose property v
// also gives: under its own name, under another alias, or twice.
func (w *aliasWriter) collides(v gjson.Result, n *aliasNode) bool {
	var written []string
	v.ForEach(func(k, _ gjson.Result) bool {
		written = append(written, k.Str)
		return true
	})
	canonical := func(name string) string {
		if to, ok := n.rename[name]; ok {
			return to
		}
		return name
	}
	for i, name := range written {
		to, ok := n.rename[name]
		if !ok {
			continue
		}
		var others []string
		for j, o := range written {
			if j != i && canonical(o) == to {
				others = append(others, o)
			}
		}
		if len(others) == 0 {
			continue
		}
		p := string(jsonptr.AppendToken(append(w.ptr[:len(w.ptr):len(w.ptr)], '/'), name))
		w.err = &schema.Error{
			Pointer:  p,
			Keyword:  "duplicate",
			Expected: string(jsonw.AppendString(nil, to)),
			Got:      string(jsonw.AppendString(nil, name)),
			Message: fmt.Sprintf("%s: %s is another name for %s, and the call also gives %s; give the value once, as %s",
				jsonptr.Label(p), jsonw.Quote(name), jsonw.Quote(to), joinQuoted(others, "and"), jsonw.Quote(to)),
		}
		return true
	}
	return false
}

// fromAliases says, in each error about a property the call gave under an
// alias, what the call called it: the model wrote the alias.
func fromAliases(errs []schema.Error, ns []Normalization) []schema.Error {
	for i := range errs {
		for _, n := range ns {
			if n.Pointer != "" {
				continue
			}
			if p := errs[i].Pointer; p == n.To || strings.HasPrefix(p, n.To+"/") {
				errs[i].Message += fmt.Sprintf(" (the call wrote it as %s)", jsonptr.Label(n.From))
				break
			}
		}
	}
	return errs
}

// appendNormalized appends a passed call's "normalized" key, when its
// arguments were normalized.
func appendNormalized(dst []byte, ns []Normalization) []byte {
	if len(ns) == 0 {
		return dst
	}
	dst = append(dst, `,"normalized":[`...)
	for i, n := range ns {
		if i > 0 {
			dst = append(dst, ',')
		}
		if n.Pointer == "" {
			dst = append(dst, `{"from":`...)
			dst = jsonw.AppendString(dst, n.From)
			dst = append(dst, `,"to":`...)
			dst = jsonw.AppendString(dst, n.To)
		} else {
			dst = append(dst, `{"pointer":`...)
			dst = jsonw.AppendString(dst, n.Pointer)
			dst = append(dst, `,"from":`...)
			dst = jsonw.AppendString(dst, n.From)
			dst = append(dst, `,"to":`...)
			dst = append(dst, n.To...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// normalisation reads the sidecar's "aliases" and "value_aliases", and
// its "max_calls" (budget.go).
func (p *sidecarParser) normalisation(s *sidecar) {
	p.t.Aliases = parseAliases(s.aliases, s.valueAliases, p.fail)
	p.maxCalls(s)
}
