package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
)

// Checked is the outcome of checking a call's arguments against its tool's
// input schema.
type Checked struct {
	// Arguments is the arguments object as compact JSON, in the model's key
	// order, with any coercions applied. It is nil when the arguments were
	// not an object at all.
	Arguments []byte
	// Coerced lists the values changed from strings (coerce only), in
	// pointer order.
	Coerced []Coercion
	// Errors lists every way the arguments fail the schema, sorted by
	// pointer and keyword; empty when they pass.
	Errors []SchemaError
	// Validated is true when the arguments passed the schema. It is false
	// for a tool without a schema, even when Errors is empty.
	Validated bool
}

// Coercion is one string value turned into what the schema asked for.
type Coercion struct {
	Pointer string // JSON pointer of the value in the arguments
	From    string // the string the model wrote
	To      []byte // the JSON it became: 42, true, null
}

// SchemaError is one way the arguments fail the schema, worded so that a
// model can correct its call.
type SchemaError struct {
	// Pointer is the JSON pointer of the offending value in the arguments
	// ("" for the arguments object); for a missing required property, of
	// the property that is missing.
	Pointer string
	// Keyword is the schema keyword that failed: type, required, enum,
	// minimum, additionalProperties... Three are not JSON Schema keywords:
	// "false" (a schema that allows nothing), "duplicate" (a property given
	// twice) and "number" (a number too large to check).
	Keyword string
	// Expected is the schema's value for that keyword and Got the value at
	// Pointer, both compact JSON, cut to a readable length with "…".
	Expected, Got string
	// Message is a sentence for the model, starting with the pointer.
	Message string
}

// Limits on the arguments a schema is checked against. Tools have no use
// for more; the validator would spend unbounded time on such numbers
// (and panics on some).
const (
	maxArgDepth     = 1000 // nesting of objects and arrays
	maxNumberLength = 1000 // characters in one number
	maxExponent     = 1000 // absolute value of a number's exponent
)

// Cut lengths for values quoted in errors: enough to show an enum or a
// pattern whole, and to recognise a value, without pasting a document back.
const (
	maxExpectedLen = 400
	maxGotLen      = 80
)

// CheckArguments checks a call's arguments against the tool's schema.
//
// The arguments are normalized first: empty or null means {}, and a JSON
// string holding JSON (as OpenAI sends arguments) is decoded once, an
// empty or "null" string meaning {}; what is left must be an object, or
// that is the one error. A property given twice is an error, so that the
// object checked is the one a tool will read whatever JSON parser it uses.
//
// For a tool without a schema the arguments are only normalized (they
// must still be one object without repeated properties), and Validated is
// false. With coerce, strings that the schema wants as a
// number, integer, boolean or null, and that spell exactly such a value
// ("42", "-3.5", "true", "null"), are converted and listed in Coerced.
//
// The error is non-nil only when the schema does not compile (a
// *CompileError); problems with the arguments are in Checked.Errors.
func (t *Tool) CheckArguments(args []byte, coerce bool) (Checked, error) {
	obj, bad := normalizeArguments(args)
	if bad != nil {
		return Checked{Errors: []SchemaError{*bad}}, nil
	}
	if t.InputSchema == nil {
		d := argDecoder{src: obj}
		_, out, derr := d.decode()
		if derr != nil {
			return Checked{Errors: []SchemaError{*derr}}, nil
		}
		return Checked{Arguments: out}, nil
	}
	sch, err := t.Compile()
	if err != nil {
		return Checked{}, err
	}
	d := argDecoder{src: obj, strict: true}
	v, out, derr := d.decode()
	if derr != nil {
		return Checked{Errors: []SchemaError{*derr}}, nil
	}
	verr := validateSafely(sch, v)
	if verr == nil {
		return Checked{Arguments: out, Validated: true}, nil
	}
	return t.explain(sch, obj, v, out, verr, coerce), nil
}

// explain turns a failed validation into SchemaErrors, after trying the
// coercions the schema asks for when coerce is set.
func (t *Tool) explain(sch *jsonschema.Schema, obj []byte, v any, out []byte, verr error, coerce bool) Checked {
	base, _, _ := strings.Cut(sch.Location, "#")
	b := errorBuilder{schema: t.InputSchema, base: base, args: out, compiled: sch, value: v}
	b.add(verr)
	if !coerce {
		return Checked{Arguments: out, Errors: b.sorted()}
	}
	var coerced []Coercion
	for round := 0; round < maxCoercionRounds; round++ {
		more := b.coercions(coerced)
		if len(more) == 0 {
			break
		}
		coerced = append(coerced, more...)
		v, redone, rerr := recode(obj, coerced)
		if rerr != nil {
			b.out = append(b.out, *rerr)
			break
		}
		out = redone
		b = errorBuilder{schema: t.InputSchema, base: base, args: out, compiled: sch, value: v}
		verr = validateSafely(sch, v)
		if verr == nil {
			return Checked{Arguments: out, Coerced: sortCoercions(coerced), Validated: true}
		}
		b.add(verr)
	}
	return Checked{Arguments: out, Coerced: sortCoercions(coerced), Errors: b.sorted()}
}

// validateSafely runs the validator, turning a panic (which it raises on a
// few schemas, such as a $ref loop) into an error: the call then fails.
func validateSafely(s *jsonschema.Schema, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return s.Validate(v)
}

// normalizeArguments returns the arguments object's text, or why there is
// none (see CheckArguments).
func normalizeArguments(args []byte) ([]byte, *SchemaError) {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		return []byte("{}"), nil
	}
	if a[0] == '"' {
		d := argDecoder{src: a}
		s, ok := d.stringValue()
		if ok && d.skipSpace() == len(a) {
			inner := bytes.TrimSpace([]byte(s))
			if len(inner) == 0 || string(inner) == "null" {
				return []byte("{}"), nil
			}
			if inner[0] == '{' {
				return inner, nil
			}
		}
	}
	if a[0] == '{' {
		return a, nil
	}
	got := truncateText(string(a), maxGotLen)
	kind := "invalid JSON"
	if gjson.ValidBytes(a) {
		kind = jsonKind(gjson.ParseBytes(a))
	}
	return nil, &SchemaError{
		Keyword:  "type",
		Expected: `"object"`,
		Got:      got,
		Message:  fmt.Sprintf("%s: expected an object, got %s %s; pass the arguments as a JSON object of parameter names and values", pointerLabel(""), kind, got),
	}
}

// argDecoder parses an arguments object into the values the validator
// reads (map[string]any, []any, string, json.Number, bool, nil) and, in
// the same pass, writes its compact form in the original key order. Both
// come from one parse, so what is checked is exactly what is passed on.
type argDecoder struct {
	src  []byte
	pos  int
	out  []byte
	ptr  []byte // JSON pointer of the value being parsed
	fail *SchemaError
	// strict rejects numbers too large to check; it is set whenever there
	// is a schema to check against. Duplicate property names are always
	// rejected: tools' JSON parsers disagree on which one wins, so neither
	// a schema nor a person approving the call can vouch for the value.
	strict bool
	// replace maps pointers to the JSON written (and checked) instead of
	// the value found there: applied coercions.
	replace map[string][]byte
	// refs, when set, swaps string values that are refs for the saved
	// text they name (see resolveRefs).
	refs *refResolver
}

// decode parses the whole of src as one object.
func (d *argDecoder) decode() (any, []byte, *SchemaError) {
	d.out = make([]byte, 0, len(d.src))
	d.skipSpace()
	v := d.value(0)
	if d.fail == nil && d.skipSpace() != len(d.src) {
		d.syntax("unexpected text after the object")
	}
	if d.fail != nil {
		return nil, nil, d.fail
	}
	return v, d.out, nil
}

// skipSpace moves past JSON whitespace and returns the new position.
func (d *argDecoder) skipSpace() int {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return d.pos
		}
	}
	return d.pos
}

// syntax records a JSON syntax error at the current position.
func (d *argDecoder) syntax(what string) {
	if d.fail != nil {
		return
	}
	got := truncateText(string(d.src), maxGotLen)
	d.fail = &SchemaError{
		Keyword:  "type",
		Expected: `"object"`,
		Got:      got,
		Message:  fmt.Sprintf("%s: the arguments are not valid JSON (%s at byte %d); pass a JSON object", pointerLabel(""), what, d.pos),
	}
}

func (d *argDecoder) value(depth int) any {
	if d.replace != nil {
		if rep, ok := d.replace[string(d.ptr)]; ok {
			d.skipValue(depth)
			sub := argDecoder{src: rep, strict: true}
			v, out, err := sub.decode()
			if err != nil {
				d.fail = err
				return nil
			}
			d.out = append(d.out, out...)
			return v
		}
	}
	if d.pos >= len(d.src) {
		d.syntax("unexpected end")
		return nil
	}
	if depth > maxArgDepth {
		d.syntax(fmt.Sprintf("nested deeper than %d levels", maxArgDepth))
		return nil
	}
	switch c := d.src[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		mark := len(d.out)
		s, ok := d.stringValue()
		if !ok {
			return nil
		}
		if d.refs != nil && d.refs.swap(d, mark, s) {
			return nil
		}
		return s
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return d.literal("true", true)
	case c == 'f':
		return d.literal("false", false)
	case c == 'n':
		return d.literal("null", nil)
	default:
		d.syntax(fmt.Sprintf("unexpected %q", rune(c)))
		return nil
	}
}

// skipValue parses a value only to move past it: its output is dropped.
func (d *argDecoder) skipValue(depth int) {
	mark, rep := len(d.out), d.replace
	d.replace = nil
	d.skipSpace()
	d.value(depth)
	d.replace = rep
	d.out = d.out[:mark]
}

func (d *argDecoder) literal(word string, v any) any {
	if !bytes.HasPrefix(d.src[d.pos:], []byte(word)) {
		d.syntax("unexpected " + strconv.Quote(string(d.src[d.pos:min(d.pos+len(word), len(d.src))])))
		return nil
	}
	d.pos += len(word)
	d.out = append(d.out, word...)
	return v
}

func (d *argDecoder) object(depth int) any {
	d.pos++
	d.out = append(d.out, '{')
	m := make(map[string]any, 8)
	if d.skipSpace() < len(d.src) && d.src[d.pos] == '}' {
		d.pos++
		d.out = append(d.out, '}')
		return m
	}
	for {
		if d.skipSpace() >= len(d.src) || d.src[d.pos] != '"' {
			d.syntax("expected a property name in double quotes")
			return nil
		}
		key, ok := d.stringValue()
		if !ok {
			return nil
		}
		if d.skipSpace() >= len(d.src) || d.src[d.pos] != ':' {
			d.syntax("expected ':' after a property name")
			return nil
		}
		d.pos++
		d.out = append(d.out, ':')
		mark := len(d.ptr)
		d.ptr = appendPointerToken(append(d.ptr, '/'), key)
		if _, dup := m[key]; dup {
			d.duplicate(key)
			return nil
		}
		d.skipSpace()
		v := d.value(depth + 1)
		if d.fail != nil {
			return nil
		}
		d.ptr = d.ptr[:mark]
		m[key] = v
		if d.skipSpace() >= len(d.src) {
			d.syntax("unexpected end")
			return nil
		}
		switch d.src[d.pos] {
		case ',':
			d.pos++
			d.out = append(d.out, ',')
		case '}':
			d.pos++
			d.out = append(d.out, '}')
			return m
		default:
			d.syntax("expected ',' or '}' after a property value")
			return nil
		}
	}
}

func (d *argDecoder) array(depth int) any {
	d.pos++
	d.out = append(d.out, '[')
	a := make([]any, 0, 4)
	if d.skipSpace() < len(d.src) && d.src[d.pos] == ']' {
		d.pos++
		d.out = append(d.out, ']')
		return a
	}
	for i := 0; ; i++ {
		mark := len(d.ptr)
		d.ptr = strconv.AppendInt(append(d.ptr, '/'), int64(i), 10)
		d.skipSpace()
		v := d.value(depth + 1)
		if d.fail != nil {
			return nil
		}
		d.ptr = d.ptr[:mark]
		a = append(a, v)
		if d.skipSpace() >= len(d.src) {
			d.syntax("unexpected end")
			return nil
		}
		switch d.src[d.pos] {
		case ',':
			d.pos++
			d.out = append(d.out, ',')
		case ']':
			d.pos++
			d.out = append(d.out, ']')
			return a
		default:
			d.syntax("expected ',' or ']' after an array item")
			return nil
		}
	}
}

// duplicate records a property given twice.
func (d *argDecoder) duplicate(key string) {
	p := string(d.ptr)
	d.fail = &SchemaError{
		Pointer: p,
		Keyword: "duplicate",
		Message: fmt.Sprintf("%s: property %s is given more than once; give each property once", pointerLabel(p), quoteText(key)),
	}
}

// number scans a JSON number; its value is the text itself.
func (d *argDecoder) number() any {
	start := d.pos
	s := d.src
	i := d.pos
	if s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		d.pos = i
		d.syntax("a number needs digits")
		return nil
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			d.pos = i
			d.syntax("a number needs digits after '.'")
			return nil
		}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		if digits() == 0 {
			d.pos = i
			d.syntax("a number needs digits in its exponent")
			return nil
		}
		for _, c := range s[j:i] {
			if exp <= maxExponent {
				exp = exp*10 + int(c-'0')
			}
		}
	}
	d.pos = i
	text := s[start:i]
	if d.strict && (len(text) > maxNumberLength || exp > maxExponent) {
		p := string(d.ptr)
		d.fail = &SchemaError{
			Pointer: p,
			Keyword: "number",
			Got:     truncateText(string(text), maxGotLen),
			Message: fmt.Sprintf("%s: the number %s is too long or too large to check; use at most %d digits and an exponent within ±%d", pointerLabel(p), truncateText(string(text), maxGotLen), maxNumberLength, maxExponent),
		}
		return nil
	}
	d.out = append(d.out, text...)
	return json.Number(text)
}

// stringValue parses the JSON string at d.pos. Invalid UTF-8 becomes
// U+FFFD in both the value and the output, so the two never differ.
func (d *argDecoder) stringValue() (string, bool) {
	s := d.src
	start := d.pos
	i := start + 1
	high := false
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			raw := s[start+1 : i]
			if !high || utf8.Valid(raw) {
				d.pos = i + 1
				d.out = append(d.out, s[start:i+1]...)
				return string(raw), true
			}
			return d.slowString(start)
		case c == '\\':
			return d.slowString(start)
		case c < 0x20:
			d.pos = i
			d.syntax("control character in a string")
			return "", false
		case c >= utf8.RuneSelf:
			high = true
		}
		i++
	}
	d.pos = i
	d.syntax("unterminated string")
	return "", false
}

// slowString decodes a string with escapes or invalid UTF-8.
func (d *argDecoder) slowString(start int) (string, bool) {
	s := d.src
	var buf []byte
	i := start + 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			v := string(buf)
			if !utf8.ValidString(v) {
				v = strings.ToValidUTF8(v, "\uFFFD")
			}
			d.pos = i + 1
			d.out = AppendString(d.out, v)
			return v, true
		case c < 0x20:
			d.pos = i
			d.syntax("control character in a string")
			return "", false
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(s, i)
			if !ok {
				d.pos = i
				d.syntax(`bad \u escape`)
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2, ok = hex4(s, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.pos = i - 1
			d.syntax(fmt.Sprintf("bad escape \\%c", e))
			return "", false
		}
	}
	d.pos = i
	d.syntax("unterminated string")
	return "", false
}

// hex4 reads the four hex digits of a \u escape at s[i:].
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendPointerToken appends a property name as a JSON pointer token.
func appendPointerToken(dst []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// pointerToken is appendPointerToken for one name, as a string.
func pointerToken(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return string(appendPointerToken(nil, name))
}

// pointerLabel is how a pointer starts a message: the arguments object
// itself has the empty pointer, which would read as nothing.
func pointerLabel(p string) string {
	if p == "" {
		return "arguments"
	}
	return p
}

// truncateText cuts s to at most n bytes (on a character boundary) and
// marks the cut with "…".
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// quoteText quotes s as a JSON string, for messages.
func quoteText(s string) string {
	return string(AppendString(nil, s))
}

// jsonKind names the JSON type of v the way a message says it: integer
// for a number without fraction or exponent.
func jsonKind(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return "string"
	case gjson.True, gjson.False:
		return "boolean"
	case gjson.Null:
		return "null"
	case gjson.Number:
		if strings.ContainsAny(v.Raw, ".eE") {
			return "number"
		}
		return "integer"
	case gjson.JSON:
		if strings.HasPrefix(v.Raw, "[") {
			return "array"
		}
		return "object"
	}
	return "nothing"
}

// compactJSON is raw JSON without whitespace, cut to n bytes.
func compactJSON(raw string, n int) string {
	if raw == "" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return truncateText(raw, n)
	}
	return truncateText(b.String(), n)
}

// errorBuilder turns the validator's error tree into SchemaErrors: one per
// failing leaf, each with the schema's expectation and the value found,
// both looked up in the documents themselves.
type errorBuilder struct {
	schema []byte // the input schema as written
	base   string // its address, as in the validator's locations
	args   []byte // the compact arguments that were checked
	out    []SchemaError
	// The compiled schema and the decoded arguments, to count what a
	// subschema accepts (contains, oneOf) rather than read the count
	// out of the validator's message.
	compiled *jsonschema.Schema
	value    any
}

func (b *errorBuilder) add(err error) {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		// A panic or a loop inside the validator: fail closed.
		b.out = append(b.out, SchemaError{
			Keyword: "schema",
			Message: fmt.Sprintf("%s: the tool's schema could not be applied (%s), so the call cannot be checked", pointerLabel(""), strings.TrimPrefix(err.Error(), "jsonschema: ")),
		})
		return
	}
	b.collect(ve)
}

// collect walks the tree down to its leaves. anyOf and oneOf get their own
// treatment (alternatives), and minContains is a leaf whose causes only
// say which items did not match.
func (b *errorBuilder) collect(ve *jsonschema.ValidationError) {
	kw, last, inNames := lastKeyword(ve.KeywordLocation)
	ownKeyword := last == kw && kw != ""
	switch {
	case len(ve.Causes) == 0, ownKeyword && kw == "minContains":
		b.leaf(ve, kw, last, inNames)
	case ownKeyword && (kw == "anyOf" || kw == "oneOf"):
		b.alternatives(ve, kw)
	default:
		for _, c := range ve.Causes {
			b.collect(c)
		}
	}
}

// alternatives explains an anyOf or oneOf that nothing matched, without
// listing every failure of every branch:
//   - when each branch wants another type, one "type" error lists the
//     types allowed ("expected string or null, got integer 3");
//   - when exactly one branch accepts the value's type, that branch's
//     errors are the ones the model needs (it is the shape it meant);
//   - otherwise one error names the keyword and quotes the first problem
//     of up to three of the branches.
func (b *errorBuilder) alternatives(ve *jsonschema.ValidationError, kw string) {
	ptr := fromLibPointer(ve.InstanceLocation)
	var types []string
	var rest [][]SchemaError
	for _, c := range ve.Causes {
		sub := errorBuilder{schema: b.schema, base: b.base, args: b.args, compiled: b.compiled, value: b.value}
		sub.collect(c)
		es := sub.out
		if len(es) == 1 && es[0].Keyword == "type" && es[0].Pointer == ptr {
			for _, t := range typeNames(gjson.Parse(es[0].Expected)) {
				if !containsString(types, t) {
					types = append(types, t)
				}
			}
			continue
		}
		if len(es) > 0 {
			rest = append(rest, es)
		}
	}
	got := b.argAt(ptr)
	switch len(rest) {
	case 0:
		b.out = append(b.out, SchemaError{
			Pointer:  ptr,
			Keyword:  "type",
			Expected: typeListJSON(types),
			Got:      compactJSON(got.Raw, maxGotLen),
			Message:  fmt.Sprintf("%s: expected %s, got %s%s", pointerLabel(ptr), strings.Join(types, " or "), describeValue(got), typeHint(got, types)),
		})
	case 1:
		b.out = append(b.out, rest[0]...)
	default:
		var parts []string
		for i, es := range rest {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", len(rest)-i))
				break
			}
			first := sortedErrors(es)[0]
			m := first.Message
			if first.Pointer == ptr {
				m = strings.TrimPrefix(m, pointerLabel(ptr)+": ")
			}
			parts = append(parts, fmt.Sprintf("(%d) %s", i+1, m))
		}
		b.out = append(b.out, SchemaError{
			Pointer:  ptr,
			Keyword:  kw,
			Expected: compactJSON(b.schemaAt(ve.AbsoluteKeywordLocation).Raw, maxExpectedLen),
			Got:      compactJSON(got.Raw, maxGotLen),
			Message:  fmt.Sprintf("%s: %s matches none of the alternatives under %q: %s", pointerLabel(ptr), describeValue(got), kw, strings.Join(parts, "; ")),
		})
	}
}

// leaf explains one failing keyword.
func (b *errorBuilder) leaf(ve *jsonschema.ValidationError, kw, last string, inNames bool) {
	ptr := fromLibPointer(ve.InstanceLocation)
	sv := b.schemaAt(ve.AbsoluteKeywordLocation)
	got := b.argAt(ptr)
	if inNames {
		// Under propertyNames the value checked is the name itself.
		got = gjson.Parse(quoteText(lastPointerToken(ptr)))
	}
	p := pointerLabel(ptr)
	e := SchemaError{Pointer: ptr, Keyword: kw, Expected: compactJSON(sv.Raw, maxExpectedLen), Got: compactJSON(got.Raw, maxGotLen)}
	g := describeValue(got)
	if rejectsAll(sv, kw, last) {
		b.falseSchema(e, kw, last)
		return
	}
	switch kw {
	case "type":
		types := typeNames(sv)
		e.Message = fmt.Sprintf("%s: expected %s, got %s%s", p, strings.Join(types, " or "), g, typeHint(got, types))
	case "required":
		n := len(b.out)
		parentLoc, _ := cutLastSegment(ve.AbsoluteKeywordLocation)
		misspelt := b.misspeltKeys(b.schemaAt(parentLoc), got)
		for _, name := range sv.Array() {
			if !hasKey(got, name.Str) {
				mp := ptr + "/" + pointerToken(name.Str)
				msg := fmt.Sprintf("%s: required property %s is missing", mp, quoteText(name.Str))
				if s := Suggest(name.Str, misspelt); len(s) > 0 {
					// Small models write repoPath or Repo_Path for
					// repo_path; without "additionalProperties": false
					// nothing else would tell them that key was the
					// problem.
					msg += fmt.Sprintf(" (the arguments have %s instead; write the name exactly as the schema does)", quoteText(s[0]))
				}
				b.out = append(b.out, SchemaError{Pointer: mp, Keyword: kw, Expected: e.Expected, Message: msg})
			}
		}
		if len(b.out) > n {
			return
		}
		e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
	case "dependentRequired", "dependencies":
		if last != kw && sv.Type == gjson.String {
			// .../dependentRequired/<name>/<index>: sv is the missing name.
			parent, _ := cutLastSegment(ve.AbsoluteKeywordLocation)
			_, given := cutLastSegment(parent)
			mp := ptr + "/" + pointerToken(sv.Str)
			b.out = append(b.out, SchemaError{Pointer: mp, Keyword: kw, Expected: compactJSON(b.schemaAt(parent).Raw, maxExpectedLen),
				Message: fmt.Sprintf("%s: required property %s is missing (it is required when %s is given)", mp, quoteText(sv.Str), quoteText(unescapeToken(fromLibPointer(given))))})
			return
		}
		e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
	case "additionalProperties":
		if b.extraProperties(ve, e) {
			return
		}
		e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
	case "enum":
		if e.Expected == "[]" {
			e.Message = fmt.Sprintf("%s: no value is allowed here: the schema's enum is empty", p)
			break
		}
		e.Message = fmt.Sprintf("%s: %s is not one of %s", p, e.Got, e.Expected)
		if got.Type == gjson.String {
			// "Celsius" for "celsius", "dark-mode" for "dark_mode": name
			// the value meant, as for a tool or property name.
			var names []string
			for _, v := range sv.Array() {
				if v.Type == gjson.String {
					names = append(names, v.Str)
				}
			}
			if s := Suggest(got.Str, names); len(s) > 0 {
				e.Message += fmt.Sprintf("; did you mean %s?", quoteText(s[0]))
			}
		}
	case "const":
		e.Message = fmt.Sprintf("%s: must be %s, got %s", p, e.Expected, g)
	case "minimum":
		e.Message = fmt.Sprintf("%s: %s is less than the minimum %s", p, e.Got, e.Expected)
	case "maximum":
		e.Message = fmt.Sprintf("%s: %s is greater than the maximum %s", p, e.Got, e.Expected)
	case "exclusiveMinimum":
		e.Message = fmt.Sprintf("%s: %s must be greater than %s", p, e.Got, e.Expected)
	case "exclusiveMaximum":
		e.Message = fmt.Sprintf("%s: %s must be less than %s", p, e.Got, e.Expected)
	case "multipleOf":
		e.Message = fmt.Sprintf("%s: %s is not a multiple of %s", p, e.Got, e.Expected)
	case "minLength":
		e.Message = fmt.Sprintf("%s: %s is %d characters long, shorter than the minimum %s", p, e.Got, utf8.RuneCountInString(got.Str), e.Expected)
	case "maxLength":
		e.Message = fmt.Sprintf("%s: %s is %d characters long, longer than the maximum %s", p, e.Got, utf8.RuneCountInString(got.Str), e.Expected)
	case "pattern":
		e.Message = fmt.Sprintf("%s: %s does not match the pattern %s", p, e.Got, e.Expected)
	case "format":
		e.Message = fmt.Sprintf("%s: %s is not a valid %s", p, e.Got, sv.Str)
	case "minItems":
		e.Message = fmt.Sprintf("%s: has %d items, fewer than the minimum %s", p, len(got.Array()), e.Expected)
	case "maxItems":
		e.Message = fmt.Sprintf("%s: has %d items, more than the maximum %s", p, len(got.Array()), e.Expected)
	case "minProperties":
		e.Message = fmt.Sprintf("%s: has %d properties, fewer than the minimum %s", p, len(got.Map()), e.Expected)
	case "maxProperties":
		e.Message = fmt.Sprintf("%s: has %d properties, more than the maximum %s", p, len(got.Map()), e.Expected)
	case "uniqueItems":
		e.Message = fmt.Sprintf("%s: items must be unique, but the %s", p, ve.Message)
	case "not":
		e.Message = fmt.Sprintf("%s: %s matches the schema under \"not\" (%s), which is not allowed", p, g, e.Expected)
	case "oneOf":
		which := strings.TrimPrefix(ve.Message, "valid against ")
		if m := b.accepting(ve.AbsoluteKeywordLocation, sv, ptr); len(m) >= 2 {
			which = fmt.Sprintf("schemas at indexes %d and %d", m[0], m[1])
		}
		e.Message = fmt.Sprintf("%s: %s matches more than one alternative under \"oneOf\" (%s); it must match exactly one", p, g, which)
	case "minContains", "maxContains":
		parent, _ := cutLastSegment(ve.AbsoluteKeywordLocation)
		contains := b.schemaAt(parent + "/contains")
		e.Expected = compactJSON(contains.Raw, maxExpectedLen)
		// Without "minContains", "contains" asks for at least one.
		want, bound := 1, "at least"
		if sv.Exists() {
			want = int(sv.Int())
		}
		if kw == "maxContains" {
			bound = "at most"
		}
		if have, ok := b.containsCount(parent+"/contains", ptr); ok && (sv.Exists() || kw == "minContains") {
			e.Message = fmt.Sprintf("%s: %s %s must match %s, but %d do", p, bound, plural(want, "item"), e.Expected, have)
		} else {
			e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
		}
	default:
		e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
	}
	if inNames {
		e.Message = strings.Replace(e.Message, ": ", ": the property name ", 1)
	}
	b.out = append(b.out, e)
}

// rejectsAll reports whether a failure is a schema of false rejecting the
// value at the instance location, told from where the keyword is and
// what the schema holds there: false, at a subschema's place (a property
// name, an index, a $ref, or a keyword whose value is a schema), not a
// keyword whose own value is false ("const": false). A boolean
// "additionalProperties" or "additionalItems" is the keyword failing on
// the object or array with too much in it (extraProperties), as the
// validator reports it there rather than on each extra member.
func rejectsAll(sv gjson.Result, kw, last string) bool {
	if sv.Type != gjson.False {
		return false
	}
	if last != kw {
		return true
	}
	switch kw {
	case "", "$ref", "$dynamicRef", "$recursiveRef", "not", "if", "then", "else", "items", "contains",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "contentSchema":
		return true
	}
	return false
}

// containsCount counts the items of the array at ptr that the compiled
// subschema at loc (a "contains") accepts; false when either is not found.
func (b *errorBuilder) containsCount(loc, ptr string) (int, bool) {
	sub := compiledAt(b.compiled, loc)
	items, ok := valueAt(b.value, ptr).([]any)
	if sub == nil || !ok {
		return 0, false
	}
	n := 0
	for _, item := range items {
		if validateSafely(sub, item) == nil {
			n++
		}
	}
	return n, true
}

// accepting returns the indexes of the alternatives of the "oneOf" at loc
// (whose value is sv) that accept the value at ptr.
func (b *errorBuilder) accepting(loc string, sv gjson.Result, ptr string) []int {
	v := valueAt(b.value, ptr)
	var ok []int
	for i := range sv.Array() {
		sub := compiledAt(b.compiled, loc+"/"+strconv.Itoa(i))
		if sub == nil {
			return nil
		}
		if validateSafely(sub, v) == nil {
			ok = append(ok, i)
		}
	}
	return ok
}

// compiledAt finds the compiled subschema whose location is loc, in the
// schema and everything it reaches, $refs included.
func compiledAt(root *jsonschema.Schema, loc string) *jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{}
	var find func(s *jsonschema.Schema) *jsonschema.Schema
	find = func(s *jsonschema.Schema) *jsonschema.Schema {
		if s == nil || seen[s] {
			return nil
		}
		seen[s] = true
		if s.Location == loc {
			return s
		}
		for _, c := range subschemas(s) {
			if f := find(c); f != nil {
				return f
			}
		}
		return nil
	}
	return find(root)
}

// subschemas lists the schemas s holds directly.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else,
		s.PropertyNames, s.UnevaluatedProperties, s.Items2020, s.Contains, s.UnevaluatedItems, s.ContentSchema}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, c := range s.Properties {
		out = append(out, c)
	}
	for _, c := range s.PatternProperties {
		out = append(out, c)
	}
	for _, c := range s.DependentSchemas {
		out = append(out, c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			out = append(out, c)
		}
	}
	for _, x := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch x := x.(type) {
		case *jsonschema.Schema:
			out = append(out, x)
		case []*jsonschema.Schema:
			out = append(out, x...)
		}
	}
	return out
}

// valueAt follows a JSON pointer in decoded arguments; nil when it leads
// nowhere.
func valueAt(v any, ptr string) any {
	for ptr != "" {
		var tok string
		tok, ptr = nextToken(ptr)
		tok = unescapeToken(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// falseSchema explains a value where the schema allows nothing ("false"),
// such as a property under "unevaluatedProperties": false or an item past
// "items": false.
func (b *errorBuilder) falseSchema(e SchemaError, kw, last string) {
	e.Keyword = "false"
	e.Expected = "false"
	if last == kw {
		switch kw {
		case "additionalProperties", "unevaluatedProperties", "items", "additionalItems", "unevaluatedItems":
			e.Keyword = kw
		}
	}
	parent, tok := cutLastSegment(e.Pointer)
	switch pv := b.argAt(parent); {
	case e.Pointer == "":
		e.Message = fmt.Sprintf("%s: no arguments are allowed", pointerLabel(""))
	case pv.IsObject():
		e.Message = fmt.Sprintf("%s: property %s is not allowed; remove it", e.Pointer, quoteText(unescapeToken(tok)))
	case pv.IsArray():
		e.Message = fmt.Sprintf("%s: item %s is not allowed here; remove it", e.Pointer, tok)
	default:
		e.Message = fmt.Sprintf("%s: no value is allowed here; remove it", e.Pointer)
	}
	b.out = append(b.out, e)
}

// extraProperties explains "additionalProperties": false with one error
// per property the schema does not name, pointing at that property and
// suggesting the allowed name the model probably meant.
func (b *errorBuilder) extraProperties(ve *jsonschema.ValidationError, e SchemaError) bool {
	parentLoc, _ := cutLastSegment(ve.AbsoluteKeywordLocation)
	parent := b.schemaAt(parentLoc)
	var allowed []string
	parent.Get("properties").ForEach(func(k, _ gjson.Result) bool {
		allowed = append(allowed, k.Str)
		return true
	})
	var patterns []*regexp.Regexp
	parent.Get("patternProperties").ForEach(func(k, _ gjson.Result) bool {
		if re, err := regexp.Compile(k.Str); err == nil {
			patterns = append(patterns, re)
		}
		return true
	})
	obj := b.argAt(e.Pointer)
	found := false
	obj.ForEach(func(k, v gjson.Result) bool {
		if containsString(allowed, k.Str) {
			return true
		}
		for _, re := range patterns {
			if re.MatchString(k.Str) {
				return true
			}
		}
		found = true
		mp := e.Pointer + "/" + pointerToken(k.Str)
		msg := fmt.Sprintf("%s: property %s is not allowed", mp, quoteText(k.Str))
		if s := Suggest(k.Str, allowed); len(s) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", quoteText(s[0]))
		} else if len(allowed) > 0 {
			msg += fmt.Sprintf(" (allowed: %s)", quoteNames(allowed, 10))
		}
		b.out = append(b.out, SchemaError{Pointer: mp, Keyword: "additionalProperties", Expected: "false",
			Got: compactJSON(v.Raw, maxGotLen), Message: msg})
		return true
	})
	return found
}

// misspeltKeys lists the keys of obj that its schema does not declare,
// as candidates for a required property the model wrote another way. It
// is empty when the schema forbids other keys: those get their own
// "not allowed; did you mean" error, which says the same.
func (b *errorBuilder) misspeltKeys(parent, obj gjson.Result) []string {
	if parent.Get("additionalProperties").Type == gjson.False || parent.Get("unevaluatedProperties").Type == gjson.False {
		return nil
	}
	props := parent.Get("properties")
	var out []string
	obj.ForEach(func(k, _ gjson.Result) bool {
		if !hasKey(props, k.Str) {
			out = append(out, k.Str)
		}
		return true
	})
	return out
}

// sorted returns the errors in a stable order, without repeats.
func (b *errorBuilder) sorted() []SchemaError {
	return sortedErrors(b.out)
}

func sortedErrors(es []SchemaError) []SchemaError {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(x, y SchemaError) int {
		if c := comparePointers(x.Pointer, y.Pointer); c != 0 {
			return c
		}
		if c := strings.Compare(x.Keyword, y.Keyword); c != 0 {
			return c
		}
		return strings.Compare(x.Message, y.Message)
	})
	return slices.Compact(es)
}

// comparePointers orders JSON pointers token by token, array indexes by
// number, so /a/2 comes before /a/10.
func comparePointers(a, b string) int {
	for a != "" && b != "" {
		var ta, tb string
		ta, a = nextToken(a)
		tb, b = nextToken(b)
		if ta == tb {
			continue
		}
		na, errA := strconv.Atoi(ta)
		nb, errB := strconv.Atoi(tb)
		if errA == nil && errB == nil {
			return na - nb
		}
		return strings.Compare(ta, tb)
	}
	return len(a) - len(b)
}

// nextToken splits the first token off a JSON pointer ("/a/b" -> "a", "/b").
func nextToken(p string) (string, string) {
	p = strings.TrimPrefix(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// schemaAt returns the schema's value at a location the validator gave,
// or nothing when the location is in another document.
func (b *errorBuilder) schemaAt(loc string) gjson.Result {
	base, frag, _ := strings.Cut(loc, "#")
	if base != b.base {
		return gjson.Result{}
	}
	return jsonAt(gjson.ParseBytes(b.schema), fromLibPointer(frag))
}

// argAt returns the value at a JSON pointer in the arguments.
func (b *errorBuilder) argAt(ptr string) gjson.Result {
	return jsonAt(gjson.ParseBytes(b.args), ptr)
}

// jsonAt follows a JSON pointer (RFC 6901) from v.
func jsonAt(v gjson.Result, ptr string) gjson.Result {
	for ptr != "" {
		var tok string
		tok, ptr = nextToken(ptr)
		tok = unescapeToken(tok)
		var next gjson.Result
		switch {
		case v.IsObject():
			v.ForEach(func(k, val gjson.Result) bool {
				if k.Str == tok {
					next = val
					return false
				}
				return true
			})
		case v.IsArray():
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 {
				return gjson.Result{}
			}
			n := 0
			v.ForEach(func(_, val gjson.Result) bool {
				if n == i {
					next = val
					return false
				}
				n++
				return true
			})
		}
		if !next.Exists() {
			return gjson.Result{}
		}
		v = next
	}
	return v
}

// fromLibPointer turns a location as the validator writes it (each token
// also URL-path-escaped) into a plain JSON pointer.
func fromLibPointer(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	toks := strings.Split(p, "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return strings.Join(toks, "/")
}

// unescapeToken decodes ~1 and ~0 in one pointer token.
func unescapeToken(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
}

// cutLastSegment splits "a/b/c" into "a/b" and "c".
func cutLastSegment(p string) (string, string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// lastPointerToken is the last token of a JSON pointer, decoded.
func lastPointerToken(p string) string {
	_, t := cutLastSegment(p)
	return unescapeToken(t)
}

// lastKeyword reads a keyword location such as
// "/properties/a/anyOf/0/type": the last keyword in it ("type"), its last
// segment ("type"; an index or a property name when the location ends at
// a subschema), and whether it passes through propertyNames.
func lastKeyword(loc string) (kw, last string, inNames bool) {
	if loc == "" {
		return "", "", false
	}
	name := false // the next segment is a property name, not a keyword
	for _, seg := range strings.Split(strings.TrimPrefix(loc, "/"), "/") {
		last = seg
		switch {
		case name:
			name = false
		case isIndex(seg):
			// an index under allOf, anyOf, oneOf, prefixItems, items (array form)
		default:
			kw = seg
			switch seg {
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies", "dependentRequired":
				name = true
			case "propertyNames":
				inNames = true
			}
		}
	}
	return kw, last, inNames
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// typeNames reads the value of a "type" keyword: a name or a list.
func typeNames(v gjson.Result) []string {
	if v.Type == gjson.String {
		return []string{v.Str}
	}
	var out []string
	for _, t := range v.Array() {
		out = append(out, t.Str)
	}
	return out
}

// typeListJSON writes type names as the value of a "type" keyword.
func typeListJSON(types []string) string {
	if len(types) == 1 {
		return quoteText(types[0])
	}
	b := []byte{'['}
	for i, t := range types {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, t)
	}
	return string(append(b, ']'))
}

// describeValue says what a value is for a message: `string "42"`,
// `integer 7`, `null`, or `nothing` where there is no value.
func describeValue(v gjson.Result) string {
	if !v.Exists() {
		return "nothing"
	}
	if v.Type == gjson.Null {
		return "null"
	}
	return jsonKind(v) + " " + compactJSON(v.Raw, maxGotLen)
}

// typeHint tells the model how to write a string that spells a value of
// the wanted type, such as "42" where an integer is wanted, or an array
// or object it wrote as a string of JSON ("[\"a\"]"), which models often
// do for nested values.
func typeHint(got gjson.Result, types []string) string {
	if got.Type == gjson.String {
		if to, ok := coerceString(got.Str, types); ok {
			return fmt.Sprintf("; write %s without quotes", to)
		}
		inner := strings.TrimSpace(got.Str)
		if inner != "" && (inner[0] == '[' || inner[0] == '{') && gjson.Valid(inner) {
			if kind := jsonKind(gjson.Parse(inner)); slices.Contains(types, kind) {
				return fmt.Sprintf("; write the %s itself, not a string holding its JSON", kind)
			}
		}
	}
	if len(types) == 1 && types[0] == "array" && got.Exists() && !got.IsArray() {
		// {"edits": {...}} or {"files": "a.txt"} for a list of one.
		if raw := compactJSON(got.Raw, maxGotLen); !strings.HasSuffix(raw, "…") {
			return fmt.Sprintf("; an array is needed even for one item: [%s]", raw)
		}
		return "; an array is needed even for one item: put it inside [ ]"
	}
	return ""
}

// hasKey reports whether the object v has the property name.
func hasKey(v gjson.Result, name string) bool {
	found := false
	v.ForEach(func(k, _ gjson.Result) bool {
		found = k.Str == name
		return !found
	})
	return found
}

func containsString(list []string, s string) bool {
	return slices.Contains(list, s)
}

// quoteNames quotes up to n names, for messages.
func quoteNames(names []string, n int) string {
	var parts []string
	for i, s := range names {
		if i == n {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, quoteText(s))
	}
	return strings.Join(parts, ", ")
}

// plural writes a count and a noun, adding "s" unless the count is one.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// withArticle puts "a" or "an" before a type name.
func withArticle(kind string) string {
	if kind == "null" {
		return kind
	}
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
