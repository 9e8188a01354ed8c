package schema

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

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
		tool := &testTool{Name: "x", InputSchema: []byte(`{"$schema":"` + d + `","type":"object","properties":{"a":{"type":"integer"}}}`)}
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
		tool := &testTool{Name: "t", File: "tools/t.json", InputSchema: []byte(schema)}
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
	tool := &testTool{Name: "bad", File: "tools/bad.json", InputSchema: []byte(`{"type":"object","properties":{"a":{"minimum":"one"}}}`)}
	_, err := tool.Compile()
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *CompileError", err)
	}
	msg := err.Error()
	for _, want := range []string{"tools/bad.json", `"bad"`, "does not compile", `"minimum" at /properties/a`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	// Without a file the tool is named instead.
	anon := &testTool{Name: "anon", InputSchema: []byte(`{"type":7}`)}
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
		tool := &testTool{Name: "t", InputSchema: []byte(schema)}
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
		tool := &testTool{Name: "t", InputSchema: []byte(c.schema)}
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

// TestEmptyEnumAllowsNothing: "enum": [] matches no value, as JSON Schema
// says, and the model is told why.
func TestEmptyEnumAllowsNothing(t *testing.T) {
	tool := &testTool{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"mode":{"type":"string","enum":[]}}}`)}
	for _, args := range []string{`{"mode":"fast"}`, `{"mode":""}`} {
		got, err := tool.CheckArguments([]byte(args), false)
		if err != nil {
			t.Fatal(err)
		}
		if got.Validated || len(got.Errors) != 1 || got.Errors[0].Keyword != "enum" {
			t.Fatalf("%s: validated %v, errors %+v; want one enum error", args, got.Validated, got.Errors)
		}
		if msg := got.Errors[0].Message; !strings.Contains(msg, "enum is empty") || !strings.HasPrefix(msg, "/mode") {
			t.Errorf("%s: message %q does not point at /mode and say the enum is empty", args, msg)
		}
	}
	// Leaving the property out is still fine.
	if got, err := tool.CheckArguments([]byte(`{}`), false); err != nil || !got.Validated {
		t.Errorf("{}: %v %+v", err, got.Errors)
	}
}

// TestRemoteSchemaNamedAsSchema: a "$schema" that is no known draft is
// called "$schema" in the error, not a $ref.
func TestRemoteSchemaNamedAsSchema(t *testing.T) {
	tool := &testTool{Name: "t", File: "tools/t.json", InputSchema: []byte(`{"$schema":"https://example.com/my-meta.json","type":"object"}`)}
	err := tool.CheckSchema()
	if err == nil {
		t.Fatal("a remote $schema compiled")
	}
	msg := err.Error()
	if !strings.Contains(msg, `"$schema" "https://example.com/my-meta.json"`) || strings.Contains(msg, "$ref") {
		t.Errorf("error %q does not name the $schema (or calls it a $ref)", msg)
	}
	if !strings.HasPrefix(msg, "tools/t.json: ") {
		t.Errorf("error %q does not name the file", msg)
	}
}

// TestCompileErrorNamesKeyword: the reason names the keyword at fault and
// the schema holding it, not the meta-schema's locations.
func TestCompileErrorNamesKeyword(t *testing.T) {
	cases := map[string]string{
		`{"type":"object","properties":{"a":{"type":"integr"}}}`: `"type" at /properties/a: value must be one of`,
		`{"type":"object","required":"a"}`:                       `"required" at the top of the schema: expected array`,
		`{"type":"object","properties":{"a":{"minLength":-1}}}`:  `"minLength" at /properties/a:`,
		`{"type":"object","properties":{"a":5}}`:                 `the schema at /properties/a: expected object or boolean`,
		`{"allOf":[{"items":{"type":"strin"}}]}`:                 `"type" at /allOf/0/items:`,
	}
	for schema, want := range cases {
		err := (&testTool{Name: "t", InputSchema: []byte(schema)}).CheckSchema()
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v; want a *CompileError", schema, err)
			continue
		}
		if !strings.HasPrefix(ce.Reason(), want) || strings.Contains(ce.Reason(), "json-schema.org") {
			t.Errorf("%s: reason %q; want it to start %q", schema, ce.Reason(), want)
		}
	}
}

// TestCheckSchemaAgreesWithCompile: CheckSchema, which skips the compiler
// for plain schemas, gives the verdict Compile gives.
func TestCheckSchemaAgreesWithCompile(t *testing.T) {
	schemas := append(plainSchemas, notPlainSchemas...)
	// And every schema in the repository's sidecars.
	files, _ := filepath.Glob("../testdata/sidecars/*.json")
	more, _ := filepath.Glob("../../testdata/tools/*.json")
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The sidecar's schema as written: a BFCL one, whose type names
		// loading maps, is held to the compiler too.
		for _, key := range []string{"input_schema", "inputSchema", "parameters", "function.parameters"} {
			if s := gjson.GetBytes(data, key); s.IsObject() {
				schemas = append(schemas, s.Raw)
				break
			}
		}
	}
	if len(schemas) < len(plainSchemas)+len(notPlainSchemas)+10 {
		t.Fatalf("only %d schemas found", len(schemas))
	}
	for _, schema := range schemas {
		checked := (&testTool{Name: "t", InputSchema: []byte(schema)}).CheckSchema()
		_, compiled := (&testTool{Name: "t", InputSchema: []byte(schema)}).Compile()
		if (checked == nil) != (compiled == nil) {
			t.Errorf("%s: CheckSchema says %v, Compile %v", schema, checked, compiled)
		}
	}
}

// plainSchemas are the shapes tools usually have: the loader knows they
// compile without running the compiler.
var plainSchemas = []string{
	`{}`,
	`{"type":"object"}`,
	`{"type":"object","properties":{"city":{"type":"string","description":"City"},"days":{"type":"integer","minimum":1,"maximum":14},"unit":{"type":"string","enum":["c","f"],"default":"c"}},"required":["city"],"additionalProperties":false}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object","properties":{"a":{"type":["string","null"],"pattern":"^[a-z]+$","maxLength":20}}}`,
	`{"type":"object","properties":{"xs":{"type":"array","items":{"type":"object","properties":{"n":{"type":"number","multipleOf":0.5}}},"minItems":1,"uniqueItems":true}}}`,
	`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]},"b":{"oneOf":[true,{"const":3}]},"c":{"not":{"type":"null"}}},"$defs":{"x":{"type":"string"}}}`,
	`{"type":"object","patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"maxLength":8},"dependentRequired":{"a":["b"]},"x-extension":{"$ref":"not read"}}`,
	`{"type":"object","properties":{"a":{"enum":[]}}}`,
	`{"properties":{"a b":{"type":"string"},"%zz":{},"#":{},"~":{},"/":{},"ü":{},"?x=1":{},"":{}},"$defs":{"%zz":{}},"patternProperties":{"%zz":{}}}`,
}

// notPlainSchemas go to the compiler: they refer somewhere, use an older
// draft's keywords, or break a rule.
var notPlainSchemas = []string{
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
	`{"type":"object","properties":{"a":{"type":"integr"}}}`,
	`{"type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`,
	`{"type":"object","required":["a","a"]}`,
	`{"type":"object","properties":{"a":{"pattern":"(?=x)"}}}`,
	`{"type":"object","properties":{"a":{"minLength":1.5}}}`,
	`{"type":"object","properties":{"a":{"multipleOf":0}}}`,
	`{"type":"object","properties":{"a":{"anyOf":[]}}}`,
	`{"type":"object","definitions":{"a":{"type":"string"}}}`,
	`{"$id":"urn:x","type":"object"}`,
	`{"type":"object","properties":{"a":{"type":[]}}}`,
}

func TestPlainlyCompiles(t *testing.T) {
	for _, s := range plainSchemas {
		if !plainlyCompiles([]byte(s)) {
			t.Errorf("%s: not known to compile; the loader would run the compiler", s)
		}
	}
	for _, s := range notPlainSchemas {
		if plainlyCompiles([]byte(s)) {
			t.Errorf("%s: taken as plain; it must go to the compiler", s)
		}
	}
}

// FuzzPlainlyCompiles holds the shortcut to the compiler: any schema it
// takes as compiling must compile.
func FuzzPlainlyCompiles(f *testing.F) {
	for _, s := range append(plainSchemas, notPlainSchemas...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		if !plainlyCompiles(schema) {
			return
		}
		if _, legacy, err := compileSchema("t", schema); err != nil || legacy != "" {
			t.Fatalf("%s: taken as compiling as 2020-12, but: %v (%s)", schema, err, legacy)
		}
	})
}

// TestPlainlyCompilesRandom builds schemas from the keywords the shortcut
// knows, with values of every kind, well and badly formed, and holds the
// shortcut to the compiler on each: what it takes as compiling must
// compile. Byte-level fuzzing seldom reaches such schemas.
func TestPlainlyCompilesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keywords := []string{"type", "properties", "required", "enum", "const", "default", "examples",
		"description", "title", "format", "pattern", "minimum", "maximum", "exclusiveMinimum",
		"exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems",
		"minProperties", "maxProperties", "minContains", "maxContains", "uniqueItems", "readOnly",
		"deprecated", "items", "additionalProperties", "unevaluatedProperties", "contains",
		"propertyNames", "not", "if", "then", "else", "allOf", "anyOf", "oneOf", "prefixItems",
		"$defs", "patternProperties", "dependentSchemas", "dependentRequired", "contentSchema",
		"contentMediaType", "$comment", "x-extra", "$schema"}
	var value func(depth int) string
	var schema func(depth int) string
	value = func(depth int) string {
		switch r.IntN(12) {
		case 0:
			return `"string"`
		case 1:
			return []string{`"integer"`, `"^a+$"`, `"(?=x)"`, `"["`, `"https://json-schema.org/draft/2020-12/schema"`}[r.IntN(5)]
		case 2:
			return []string{"0", "1", "-1", "1.5", "1e3", "0.0", "1000000000000"}[r.IntN(7)]
		case 3:
			return []string{"true", "false", "null"}[r.IntN(3)]
		case 4:
			return `[]`
		case 5:
			return `["a","b"]`
		case 6:
			return `["a","a"]`
		case 7:
			return `["string","null"]`
		case 8:
			return `[1,{"a":2}]`
		case 9:
			if depth < 4 {
				return `{"a":` + schema(depth+1) + `,"b c":` + schema(depth+1) + `}`
			}
			return `{}`
		case 10:
			if depth < 4 {
				return `[` + schema(depth+1) + `]`
			}
			return `[{}]`
		}
		return schema(depth + 1)
	}
	schema = func(depth int) string {
		if depth > 4 || r.IntN(8) == 0 {
			return []string{"true", "false", "{}"}[r.IntN(3)]
		}
		var b strings.Builder
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + keywords[r.IntN(len(keywords))] + `":` + value(depth))
		}
		b.WriteByte('}')
		return b.String()
	}
	plain := 0
	for range 20000 {
		s := schema(0)
		if s == "true" || s == "false" {
			continue
		}
		if !plainlyCompiles([]byte(s)) {
			continue
		}
		plain++
		if _, legacy, err := compileSchema("t", []byte(s)); err != nil || legacy != "" {
			t.Fatalf("%s: taken as compiling as 2020-12, but: %v (%s)", s, err, legacy)
		}
	}
	t.Logf("%d plain schemas compiled", plain)
	if plain < 1000 {
		t.Errorf("only %d of the schemas were plain; the test checks too little", plain)
	}
}
