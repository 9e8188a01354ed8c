// Package schema checks a tool's arguments, or its structured result,
// against the JSON Schema of its sidecar: it reads and inspects the schema
// document (refs that would leave it, BFCL type names, depth), compiles it
// with a compiler that fetches nothing, refuses schemas whose checks
// multiply, checks a value within a budget of steps, coerces strings the
// schema wants as numbers or booleans, and words each failure as an Error
// a model can act on. It knows nothing of tools, calls or events: the
// tools package holds the compiled schemas and turns Errors into
// observations.
package schema

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonptr"
	"github.com/toolcall/toolcall/internal/phrase"
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
	Errors []Error
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

// Error is one way the arguments fail the schema, worded so that a
// model can correct its call.
type Error struct {
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

// Check checks a call's arguments against the schema. A nil s stands for
// a tool without a schema: the arguments are then only normalized (they
// must still be one object without repeated properties), and Validated
// is false.
//
// The arguments are normalized first: empty or null means {}, and a JSON
// string holding JSON (as OpenAI sends arguments) is decoded once, an
// empty or "null" string meaning {}; what is left must be an object, or
// that is the one error. A property given twice is an error, so that the
// object checked is the one a tool will read whatever JSON parser it uses.
//
// With coerce, strings that the schema wants as a number, integer,
// boolean or null, and that spell exactly such a value ("42", "-3.5",
// "true", "null"), are converted and listed in Coerced. refs, when not
// nil, sees every string value as it is decoded and may swap it (Refs):
// what is checked, and returned, is what the tool will get.
func (s *Schema) Check(args []byte, coerce bool, refs Refs) Checked {
	obj, bad := Normalize(args)
	if bad != nil {
		return Checked{Errors: []Error{*bad}}
	}
	if s == nil {
		d := argDecoder{src: obj, refs: refs}
		_, out, derr := d.decode()
		if derr != nil {
			return Checked{Errors: []Error{*derr}}
		}
		return Checked{Arguments: out}
	}
	d := argDecoder{src: obj, strict: true, refs: refs}
	v, out, derr := d.decode()
	if derr != nil {
		return Checked{Errors: []Error{*derr}}
	}
	budget := newValidationBudget(len(out))
	verr := budget.check(s.compiled, v)
	if verr == nil {
		return Checked{Arguments: out, Validated: true}
	}
	if ce, ok := errors.AsType[*CostError](verr); ok {
		return Checked{Arguments: out, Errors: []Error{costError(ce)}}
	}
	return s.explain(budget, obj, refs, v, out, verr, coerce)
}

// costError is the one error of a call whose check was given up: the
// model can send a flatter value, the tool's author simplify the schema.
func costError(e *CostError) Error {
	return Error{
		Pointer: e.Pointer,
		Keyword: "cost",
		Message: fmt.Sprintf("%s: checking this value against the tool's schema would take more than %d steps (the schema's alternatives multiply with the value's nesting), so the call was not checked; send a less deeply nested value", jsonptr.Label(e.Pointer), e.Budget),
	}
}

// explain turns a failed validation into SchemaErrors, after trying the
// coercions the schema asks for when coerce is set.
func (s *Schema) explain(budget *validationBudget, obj []byte, refs Refs, v any, out []byte, verr error, coerce bool) Checked {
	b := s.builder(out, v, budget)
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
		v, redone, rerr := recode(obj, coerced, refs)
		if rerr != nil {
			b.out = append(b.out, *rerr)
			break
		}
		out = redone
		b = s.builder(out, v, budget)
		verr = budget.check(s.compiled, v)
		if verr == nil {
			return Checked{Arguments: out, Coerced: sortCoercions(coerced), Validated: true}
		}
		if ce, ok := errors.AsType[*CostError](verr); ok {
			return Checked{Arguments: out, Coerced: sortCoercions(coerced), Errors: []Error{costError(ce)}}
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

// Normalize returns the arguments object's text, or why there is none
// (see Check): empty or null is {}, and a JSON string holding an object
// is that object.
func Normalize(args []byte) ([]byte, *Error) {
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
	got := clip.Head(string(a), maxGotLen)
	kind := "invalid JSON"
	if gjson.ValidBytes(a) {
		kind = phrase.Kind(gjson.ParseBytes(a))
	}
	return nil, &Error{
		Keyword:  "type",
		Expected: `"object"`,
		Got:      got,
		Message:  fmt.Sprintf("%s: expected an object, got %s %s; pass the arguments as a JSON object of parameter names and values", jsonptr.Label(""), kind, got),
	}
}
