package schema

import (
	"errors"
	"fmt"
	"strings"
)

// OutputError says that a tool's structured result does not match
// its outputSchema (Problems), or that the outputSchema does not compile
// (Err).
type OutputError struct {
	File, Tool string
	// Problems are sentences naming what is wrong where, each starting
	// with "structuredContent" and the JSON pointer of the value.
	Problems []string
	Err      error
}

func (e *OutputError) Error() string {
	if e.Err != nil {
		where := e.File
		if where == "" {
			where = "tool " + e.Tool
		}
		return fmt.Sprintf("%s: the outputSchema of tool %q does not compile: %s; fix the schema in the sidecar", where, e.Tool, compileReason(e.Err))
	}
	return strings.Join(e.Problems, "; ")
}

func (e *OutputError) Unwrap() error { return e.Err }

// CheckResult checks a structured result (raw JSON: an MCP
// structuredContent, or the object a tool printed) against the schema,
// as the tool's outputSchema: nil when it matches, else sentences naming
// what is wrong where, each starting with "structuredContent" and the
// JSON pointer of the value, for an OutputError's Problems.
func (s *Schema) CheckResult(structured []byte) []string {
	d := argDecoder{src: structured, strict: true}
	v, out, derr := d.decode()
	if derr != nil {
		return []string{outputLabel(derr.Message)}
	}
	budget := newValidationBudget(len(out))
	verr := budget.check(s.compiled, v)
	if verr == nil {
		return nil
	}
	if ce, ok := errors.AsType[*CostError](verr); ok {
		return []string{outputLabel(costError(ce).Message)}
	}
	b := s.builder(out, v, budget)
	b.add(verr)
	var problems []string
	for _, e := range b.sorted() {
		problems = append(problems, outputLabel(e.Message))
	}
	return problems
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
