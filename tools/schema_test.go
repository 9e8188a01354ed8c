package tools

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestCompileNoSchema(t *testing.T) {
	tool := &Tool{Name: "list_dir", AllowNoSchema: true, NoSchemaMode: NoSchemaReadOnly}
	s, err := tool.Compile()
	if s != nil || err != nil {
		t.Errorf("Compile() = %v, %v; want nil, nil for a tool without a schema", s, err)
	}
}

func TestCompileOnceAndConcurrently(t *testing.T) {
	tool := &Tool{Name: "x", InputSchema: []byte(`{"type":"object"}`)}
	var wg sync.WaitGroup
	got := make([]any, 16)
	for i := range got {
		wg.Go(func() {
			s, err := tool.Compile()
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] || got[i] == nil {
			t.Fatalf("Compile returned different schemas: %p and %p", got[i], got[0])
		}
	}
}

// TestCompileKnownDrafts compiles a schema under every "$schema" the
// library knows. The loader refuses everything, so success shows that the
// meta-schemas are built in and nothing was fetched.
func TestCompileKnownDrafts(t *testing.T) {
	for _, d := range []string{
		"https://json-schema.org/draft/2020-12/schema",
		"https://json-schema.org/draft/2019-09/schema",
		"http://json-schema.org/draft-07/schema#",
		"http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-04/schema#",
	} {
		tool := &Tool{Name: "x", InputSchema: []byte(`{"$schema":"` + d + `","type":"object","properties":{"a":{"type":"integer"}}}`)}
		if _, err := tool.Compile(); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

func TestCompileRefusesToFetch(t *testing.T) {
	cases := map[string]string{
		"remote $ref":      `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`,
		"file $ref":        `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`,
		"relative $ref":    `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`,
		"unknown $schema":  `{"$schema":"https://example.com/my-meta","type":"object"}`,
		"$id and relative": `{"$id":"https://example.com/root.json","properties":{"a":{"$ref":"b.json"}}}`,
	}
	for name, schema := range cases {
		tool := &Tool{Name: "t", File: "tools/t.json", InputSchema: []byte(schema)}
		_, err := tool.Compile()
		if err == nil {
			t.Errorf("%s: compiled; want an error", name)
			continue
		}
		if !errors.Is(err, errNoFetch) || !strings.Contains(err.Error(), "not allowed") {
			t.Errorf("%s: error %q does not say that refs are not allowed", name, err)
		}
	}
}

func TestCompileErrorNamesFileAndReason(t *testing.T) {
	tool := &Tool{Name: "bad", File: "tools/bad.json", InputSchema: []byte(`{"type":"object","properties":{"a":{"minimum":"one"}}}`)}
	_, err := tool.Compile()
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *CompileError", err)
	}
	msg := err.Error()
	for _, want := range []string{"tools/bad.json", `"bad"`, "does not compile", "/properties/a/minimum"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	// The error is kept: a second call gives the same one without compiling again.
	if _, err2 := tool.Compile(); err2 != err {
		t.Errorf("second Compile gave %v, want the first error", err2)
	}
	// Without a file the tool is named instead.
	anon := &Tool{Name: "anon", InputSchema: []byte(`{"type":7}`)}
	if _, err := anon.Compile(); err == nil || !strings.HasPrefix(err.Error(), `tool anon: `) {
		t.Errorf("error %v does not start with the tool", err)
	}
}

func TestCompileMalformedSchemas(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object"`,                                        // not JSON
		`{"pattern":"(?=lookahead)"}`,                             // not an RE2 pattern
		`{"$ref":"#/$defs/missing"}`,                              // dangling ref
		`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, // ref loop
	} {
		tool := &Tool{Name: "t", InputSchema: []byte(schema)}
		if _, err := tool.Compile(); err == nil {
			t.Errorf("%s compiled; want an error", schema)
		}
	}
}

// TestDraftHonoured checks that "$schema" selects the rules: draft 4's
// boolean exclusiveMinimum, draft 7's array items, and 2020-12's
// prefixItems by default.
func TestDraftHonoured(t *testing.T) {
	cases := []struct {
		schema, args string
		valid        bool
	}{
		{`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"minimum":0,"exclusiveMinimum":true}}}`, `{"n":0}`, false},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"minimum":0,"exclusiveMinimum":true}}}`, `{"n":1}`, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"p":{"items":[{"type":"string"}]}}}`, `{"p":[1]}`, false},
		{`{"properties":{"p":{"prefixItems":[{"type":"string"}]}}}`, `{"p":[1]}`, false},
		{`{"properties":{"p":{"prefixItems":[{"type":"string"}]}}}`, `{"p":["a",1]}`, true},
		// Under 2020-12, array-form items is not valid, so it does not compile.
		{`{"properties":{"p":{"items":[{"type":"string"}]}}}`, `{"p":[1]}`, false},
	}
	for _, c := range cases {
		tool := &Tool{Name: "t", InputSchema: []byte(c.schema)}
		got, err := tool.CheckArguments([]byte(c.args), false)
		if err != nil {
			if c.valid {
				t.Errorf("%s: %v", c.schema, err)
			}
			continue
		}
		if got.Validated != c.valid {
			t.Errorf("%s with %s: validated %v, want %v (%v)", c.schema, c.args, got.Validated, c.valid, got.Errors)
		}
	}
}
