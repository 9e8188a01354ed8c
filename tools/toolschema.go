package tools

import (
	"github.com/toolcall/toolcall/tools/schema"
)

// compile compiles the tool's input schema once, on first use, and returns
// it; later calls, from any goroutine, return the same result. A tool
// without a schema (AllowNoSchema) gives nil, nil; one whose schema does
// not compile, a *schema.CompileError.
func (t *Tool) compile() (*schema.Schema, error) {
	t.compileOnce.Do(func() {
		if t.InputSchema == nil {
			return
		}
		t.schema, t.schemaErr = schema.Compile(t.Name, t.InputSchema)
		if t.schemaErr != nil {
			t.schema = nil
			t.schemaErr = &schema.CompileError{File: t.File, Tool: t.Name, Err: t.schemaErr}
		}
	})
	return t.schema, t.schemaErr
}

// LegacyDraft says why the tool's input schema, which has no "$schema",
// was compiled as draft-07: it does not compile as 2020-12, the default
// (a list under "items", say). It is "" for any other schema, and
// compiles the schema if that has not been done yet.
func (t *Tool) LegacyDraft() string {
	if s, _ := t.compile(); s != nil {
		return s.Legacy()
	}
	return ""
}

// CheckSchema says whether the tool's input schema compiles: nil when it
// does (or when the tool has none), else the *schema.CompileError that
// compiling gives. The loader asks this of every tool, so it is cheap for
// the schemas tools usually have (schema.PlainlyCompiles); anything else
// is compiled, and the result kept for the calls.
func (t *Tool) CheckSchema() error {
	if t.InputSchema == nil {
		return nil
	}
	t.verdictOnce.Do(func() {
		if schema.PlainlyCompiles(t.InputSchema) {
			return
		}
		_, t.verdict = t.compile()
	})
	return t.verdict
}

// CheckArguments checks a call's arguments against the tool's input
// schema (schema.Schema.Check): a tool without one only has them
// normalized, and Validated false. The error is non-nil only when the
// schema does not compile (a *schema.CompileError); problems with the
// arguments are in Checked.Errors.
func (t *Tool) CheckArguments(args []byte, coerce bool) (schema.Checked, error) {
	return t.checkArguments(args, coerce, nil)
}

// checkArguments is CheckArguments with the refs of the arguments, as
// measureRefs found them, swapped for their text as they are decoded:
// what is checked, and returned, is what the tool will get.
func (t *Tool) checkArguments(args []byte, coerce bool, refs *refResolver) (schema.Checked, error) {
	s, err := t.compile()
	if err != nil {
		return schema.Checked{}, err
	}
	return s.Check(args, coerce, refs.hook()), nil
}

// CompileOutput compiles the tool's OutputSchema once, on first use, like
// the input schema. A tool without one gives nil, nil; one that does not
// compile gives a *schema.OutputError with Err set.
func (t *Tool) CompileOutput() (*schema.Schema, error) {
	t.outOnce.Do(func() {
		if t.OutputSchema == nil {
			return
		}
		s, err := schema.Compile(t.Name+".output", t.OutputSchema)
		if err != nil {
			t.outErr = &schema.OutputError{File: t.File, Tool: t.Name, Err: err}
			return
		}
		t.outSchema = s
	})
	return t.outSchema, t.outErr
}

// CheckOutput checks a structured result (raw JSON) against the tool's
// OutputSchema, as exec checks what a tool printed: nil when it matches
// or the tool declares no outputSchema, else a *schema.OutputError. An
// MCP server answering for the tool uses it, since it must never pass on
// a result that breaks the schema it listed, whether or not the result
// reports an error.
func (t *Tool) CheckOutput(structured []byte) error {
	s, err := t.CompileOutput()
	if s == nil || err != nil {
		return err
	}
	if problems := s.CheckResult(structured); problems != nil {
		return &schema.OutputError{File: t.File, Tool: t.Name, Problems: problems}
	}
	return nil
}
