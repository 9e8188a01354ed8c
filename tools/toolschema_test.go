package tools

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools/schema"
)

func TestCompileNoSchema(t *testing.T) {
	tool := &Tool{Name: "list_dir", AllowNoSchema: true, NoSchemaMode: NoSchemaReadOnly}
	s, err := tool.compile()
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
			s, err := tool.compile()
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

// A schema that does not compile is compiled once: a second call gives
// the same error without compiling again.
func TestCompileErrorIsKept(t *testing.T) {
	tool := &Tool{Name: "bad", File: "tools/bad.json", InputSchema: []byte(`{"type":"object","properties":{"a":{"minimum":"one"}}}`)}
	_, err := tool.compile()
	if _, ok := errors.AsType[*schema.CompileError](err); !ok {
		t.Fatalf("error %v is not a *schema.CompileError", err)
	}
	if _, err2 := tool.compile(); err2 != err {
		t.Errorf("second compile gave %v, want the first error", err2)
	}
}

func TestSchemaDepthLimit(t *testing.T) {
	nest := func(n int) string {
		return strings.Repeat(`{"properties":{"a":`, n-1) + `{}` + strings.Repeat(`}}`, n-1)
	}
	// n schemas nested take 2n-1 levels of JSON.
	ok := `{"description":"d","input_schema":` + nest(64) + `}`
	if _, _, err := ParseSidecar("tools/ok.json", []byte(ok)); err != nil {
		t.Errorf("a schema 127 levels deep: %v", err)
	}
	deep := `{"description":"d","input_schema":` + nest(65) + `}`
	_, _, err := ParseSidecar("tools/deep.json", []byte(deep))
	if err == nil {
		t.Fatal("a schema 129 levels deep loaded")
	}
	msg := err.Error()
	for _, want := range []string{"tools/deep.json", `"input_schema" is nested more than 128 levels deep`, "(at /properties/a/properties/a/", "$defs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Count(msg, "\n") > 0 {
		t.Errorf("error %q is more than one line", msg)
	}
}

// TestRefsInsideTheSidecar: refs that resolve inside the sidecar load,
// compile and validate, whatever form they take.
func TestRefsInsideTheSidecar(t *testing.T) {
	cases := []struct{ name, schema, good, bad string }{
		{"absolute $id", `{"type":"object","$defs":{"city":{"$id":"https://example.com/city.json","type":"string","minLength":2}},"properties":{"city":{"$ref":"https://example.com/city.json"}}}`,
			`{"city":"Paris"}`, `{"city":"P"}`},
		{"relative to an $id", `{"$id":"https://example.com/tools/root.json","type":"object","$defs":{"n":{"$id":"n.json","type":"integer"}},"properties":{"n":{"$ref":"n.json"},"m":{"$ref":"root.json#/$defs/n"}}}`,
			`{"n":1,"m":2}`, `{"n":"one"}`},
		{"urn $id", `{"type":"object","$defs":{"u":{"$id":"urn:example:unit","enum":["c","f"]}},"properties":{"unit":{"$ref":"urn:example:unit"}}}`,
			`{"unit":"c"}`, `{"unit":"k"}`},
		{"anchor in a resource", `{"type":"object","$defs":{"r":{"$id":"urn:example:r","$defs":{"x":{"$anchor":"pos","minimum":0}}}},"properties":{"x":{"$ref":"urn:example:r#pos"}}}`,
			`{"x":1}`, `{"x":-1}`},
		{"meta-schema", `{"type":"object","properties":{"schema":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`,
			`{"schema":{"type":"string"}}`, `{"schema":{"type":"strin"}}`},
	}
	for _, c := range cases {
		tool, _, err := ParseSidecar("tools/t.json", []byte(`{"description":"d","input_schema":`+c.schema+`}`))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if err := tool.CheckSchema(); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for args, want := range map[string]bool{c.good: true, c.bad: false} {
			got, err := tool.CheckArguments([]byte(args), false)
			if err != nil || got.Validated != want {
				t.Errorf("%s: %s: validated %v, want %v (%v %+v)", c.name, args, got.Validated, want, err, got.Errors)
			}
		}
	}
}

// checkRefs is every ref of the schema that leaves the document, as
// loading the sidecar reports them.
func checkRefs(s []byte) error {
	return errors.Join(schema.Inspect(gjson.ParseBytes(s), "schema").RefErrors...)
}
