package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// CompileOutput compiles the tool's OutputSchema once, on first use, like
// Compile does the input schema. A tool without one gives nil, nil; one
// that does not compile gives an *OutputSchemaError with Err set.
func (t *Tool) CompileOutput() (*jsonschema.Schema, error) {
	t.outOnce.Do(func() {
		if t.OutputSchema == nil {
			return
		}
		s, _, err := compileSchema(t.Name+".output", t.OutputSchema)
		if err != nil {
			t.outErr = &OutputSchemaError{File: t.File, Tool: t.Name, Err: err}
			return
		}
		t.outSchema = s
	})
	return t.outSchema, t.outErr
}

// OutputSchemaError says that a tool's structured result does not match
// its outputSchema (Problems), or that the outputSchema does not compile
// (Err).
type OutputSchemaError struct {
	File, Tool string
	// Problems are sentences naming what is wrong where, each starting
	// with "structuredContent" and the JSON pointer of the value.
	Problems []string
	Err      error
}

func (e *OutputSchemaError) Error() string {
	if e.Err != nil {
		where := e.File
		if where == "" {
			where = "tool " + e.Tool
		}
		return fmt.Sprintf("%s: the outputSchema of tool %q does not compile: %s; fix the schema in the sidecar", where, e.Tool, compileReason(e.Err))
	}
	return strings.Join(e.Problems, "; ")
}

func (e *OutputSchemaError) Unwrap() error { return e.Err }

// CheckOutput checks a structured result (raw JSON) against the tool's
// OutputSchema, as exec checks what a tool printed: nil when it matches
// or the tool declares no outputSchema. An MCP server answering for the
// tool uses it, since it must never pass on a result that breaks the
// schema it listed, whether or not the result reports an error.
func (t *Tool) CheckOutput(structured []byte) error { return t.checkOutput(structured) }

// checkOutput checks a structured result (MCP structuredContent) against
// the tool's OutputSchema; nil when it matches or there is no schema.
func (t *Tool) checkOutput(structured []byte) error {
	sch, err := t.CompileOutput()
	if sch == nil || err != nil {
		return err
	}
	d := argDecoder{src: structured, strict: true}
	v, out, derr := d.decode()
	if derr != nil {
		return &OutputSchemaError{File: t.File, Tool: t.Name, Problems: []string{outputLabel(derr.Message)}}
	}
	budget := newValidationBudget(len(out))
	verr := budget.check(sch, v)
	if verr == nil {
		return nil
	}
	if ce, ok := errors.AsType[*CostError](verr); ok {
		return &OutputSchemaError{File: t.File, Tool: t.Name, Problems: []string{outputLabel(costError(ce).Message)}}
	}
	base, _, _ := strings.Cut(sch.Location, "#")
	b := errorBuilder{schema: t.OutputSchema, base: base, args: out, compiled: sch, value: v, steps: budget}
	b.add(verr)
	e := &OutputSchemaError{File: t.File, Tool: t.Name}
	for _, se := range b.sorted() {
		e.Problems = append(e.Problems, outputLabel(se.Message))
	}
	return e
}

// outputLabel rewords a message written about arguments, which starts
// with "arguments" or a JSON pointer, to be about the structured result.
func outputLabel(m string) string {
	if rest, ok := strings.CutPrefix(m, "arguments"); ok {
		return "structuredContent" + rest
	}
	if strings.HasPrefix(m, "/") {
		return "structuredContent" + m
	}
	return m
}
