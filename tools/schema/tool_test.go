package schema

import "sync"

// testTool is a tool's schema as the tools package holds it, so that these
// tests check schemas the way a tool's calls are checked: compiled under
// the tool's name, a failure wrapped in a *CompileError, and a schema that
// plainly compiles not compiled to say so; compiled once, as a tool's is,
// so that a benchmark measures the check.
type testTool struct {
	Name, File  string
	InputSchema []byte

	once   sync.Once
	schema *Schema
	err    error
}

func (t *testTool) Compile() (*Schema, error) {
	t.once.Do(func() {
		if t.InputSchema == nil {
			return
		}
		t.schema, t.err = Compile(t.Name, t.InputSchema)
		if t.err != nil {
			t.schema, t.err = nil, &CompileError{File: t.File, Tool: t.Name, Err: t.err}
		}
	})
	return t.schema, t.err
}

func (t *testTool) CheckSchema() error {
	if t.InputSchema == nil || PlainlyCompiles(t.InputSchema) {
		return nil
	}
	_, err := t.Compile()
	return err
}

func (t *testTool) CheckArguments(args []byte, coerce bool) (Checked, error) {
	s, err := t.Compile()
	if err != nil {
		return Checked{}, err
	}
	return s.Check(args, coerce, nil), nil
}

func (t *testTool) LegacyDraft() string {
	if s, _ := t.Compile(); s != nil {
		return s.Legacy()
	}
	return ""
}
