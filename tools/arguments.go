package tools

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
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
	// Normalized lists what the sidecar's aliases changed, in the order of
	// the arguments; set by the caller that applied them (Tool.normalize),
	// not by CheckArguments.
	Normalized []Normalization
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
	return t.checkArguments(args, coerce, nil)
}

// checkArguments is CheckArguments with the refs of the arguments, as
// measureRefs found them, swapped for their text as they are decoded:
// what is checked, and returned, is what the tool will get.
func (t *Tool) checkArguments(args []byte, coerce bool, refs *refResolver) (Checked, error) {
	obj, bad := normalizeArguments(args)
	if bad != nil {
		return Checked{Errors: []SchemaError{*bad}}, nil
	}
	if t.InputSchema == nil {
		d := argDecoder{src: obj, refs: refs}
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
	d := argDecoder{src: obj, strict: true, refs: refs}
	v, out, derr := d.decode()
	if derr != nil {
		return Checked{Errors: []SchemaError{*derr}}, nil
	}
	budget := newValidationBudget(len(out))
	verr := budget.check(sch, v)
	if verr == nil {
		return Checked{Arguments: out, Validated: true}, nil
	}
	if ce, ok := errors.AsType[*CostError](verr); ok {
		return Checked{Arguments: out, Errors: []SchemaError{costError(ce)}}, nil
	}
	return t.explain(sch, budget, obj, refs, v, out, verr, coerce), nil
}

// costError is the one error of a call whose check was given up: the
// model can send a flatter value, the tool's author simplify the schema.
func costError(e *CostError) SchemaError {
	return SchemaError{
		Pointer: e.Pointer,
		Keyword: "cost",
		Message: fmt.Sprintf("%s: checking this value against the tool's schema would take more than %d steps (the schema's alternatives multiply with the value's nesting), so the call was not checked; send a less deeply nested value", pointerLabel(e.Pointer), e.Budget),
	}
}

// explain turns a failed validation into SchemaErrors, after trying the
// coercions the schema asks for when coerce is set.
func (t *Tool) explain(sch *jsonschema.Schema, budget *validationBudget, obj []byte, refs *refResolver, v any, out []byte, verr error, coerce bool) Checked {
	base, _, _ := strings.Cut(sch.Location, "#")
	b := errorBuilder{schema: t.InputSchema, base: base, args: out, compiled: sch, value: v, steps: budget}
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
		b = errorBuilder{schema: t.InputSchema, base: base, args: out, compiled: sch, value: v, steps: budget}
		verr = budget.check(sch, v)
		if verr == nil {
			return Checked{Arguments: out, Coerced: sortCoercions(coerced), Validated: true}
		}
		if ce, ok := errors.AsType[*CostError](verr); ok {
			return Checked{Arguments: out, Coerced: sortCoercions(coerced), Errors: []SchemaError{costError(ce)}}
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
	got := clip.Head(string(a), maxGotLen)
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
