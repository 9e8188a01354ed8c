package schema

// testTool is a tool's schema as the tools package holds it, so that these
// tests check schemas the way a tool's calls are checked: compiled under
// the tool's name, a failure wrapped in a *CompileError, and a schema that
// plainly compiles not compiled to say so.
type testTool struct {
	Name, File  string
	InputSchema []byte
}

func (t *testTool) Compile() (*Schema, error) {
	if t.InputSchema == nil {
		return nil, nil
	}
	s, err := Compile(t.Name, t.InputSchema)
	if err != nil {
		return nil, &CompileError{File: t.File, Tool: t.Name, Err: err}
	}
	return s, nil
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
