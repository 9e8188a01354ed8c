package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// chainSchema is the attack: L levels of $defs, each an anyOf that names
// the next level three times, so that one wrong value fails in a tree of
// 3^L errors.
func chainSchema(levels int) string {
	var defs []string
	for i := range levels {
		n := fmt.Sprintf("#/$defs/l%d", i+1)
		defs = append(defs, fmt.Sprintf(`"l%d":{"anyOf":[{"$ref":%q},{"allOf":[{"$ref":%q},{"minLength":1}]},{"$ref":%q,"maxLength":9}]}`, i, n, n, n))
	}
	defs = append(defs, fmt.Sprintf(`"l%d":{"type":"string","pattern":"^a"}`, levels))
	return `{"type":"object","properties":{"x":{"$ref":"#/$defs/l0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
}

// A 1.4 KB sidecar whose checks of one argument multiply (about 24 s and
// 4 GB at L = 10 before) is withheld as a schema that does not compile,
// with a message that says what multiplies.
func TestHostileSchemaChecksThatMultiply(t *testing.T) {
	tool := &testTool{Name: "chain", InputSchema: []byte(chainSchema(10))}
	if len(tool.InputSchema) > 1500 {
		t.Fatalf("the attack schema is %d bytes", len(tool.InputSchema))
	}
	err := tool.CheckSchema()
	if err == nil || !strings.Contains(err.Error(), "subschema checks") {
		t.Fatalf("CheckSchema = %v, want the schema refused for its checks", err)
	}
	if n := checksPerValue(mustCompile(t, chainSchema(5))); n < 3*3*3*3*3 || n > maxChecksPerValue {
		t.Errorf("checksPerValue(L=5) = %d, want about 3^5 and allowed", n)
	}
}

// Under the bound, an explanation stays small: each branch quoted is cut,
// where every level used to quote three of the level below whole (52 KB at
// L = 6, 1.4 MB at L = 9).
func TestSchemaErrorMessagesDoNotMultiply(t *testing.T) {
	tool := &testTool{Name: "chain", InputSchema: []byte(chainSchema(6))}
	c, err := tool.CheckArguments([]byte(`{"x":"b"}`), false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range c.Errors {
		n += len(e.Message)
	}
	if len(c.Errors) == 0 || n > 4096 {
		t.Errorf("%d errors of %d bytes in all", len(c.Errors), n)
	}
}

// Many errors: the model gets the first few and how many more there are.
func TestSchemaErrorsShowTheFirstAndACount(t *testing.T) {
	var props, req []string
	for i := range 40 {
		props = append(props, fmt.Sprintf(`"p%02d":{"type":"integer"}`, i))
		req = append(req, fmt.Sprintf(`"p%02d"`, i))
	}
	tool := &testTool{Name: "many", InputSchema: []byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`)}
	c, err := tool.CheckArguments([]byte(`{}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Errors) != maxShownErrors+1 {
		t.Fatalf("%d errors, want %d and one saying how many more", len(c.Errors), maxShownErrors+1)
	}
	last := c.Errors[len(c.Errors)-1]
	if last.Keyword != "more" || !strings.Contains(last.Message, fmt.Sprintf("%d more problems not shown", 40-maxShownErrors)) {
		t.Errorf("last error %+v", last)
	}
}

func mustCompile(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	s, _, err := compileSchema("t", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
