package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonptr"
)

// errNoFetch is what the schema compiler gets for any document outside the
// sidecar: nothing is ever fetched, so a schema means the same offline as
// on line and loading a sidecar never opens a connection.
var errNoFetch = errors.New("nothing is fetched")

// schemaURL is the made-up address the schema of the tool called name is
// compiled under. Relative references resolve against it to other
// toolcall: addresses, which refuseURL turns down like any other.
func schemaURL(name string) string {
	return "toolcall:///" + url.PathEscape(name) + ".json"
}

// refuseURL stands in for the compiler's loader. The meta-schemas of the
// drafts it knows are built into the library and never reach a loader.
func refuseURL(u string) (io.ReadCloser, error) {
	return nil, fmt.Errorf("%s is outside the sidecar, and remote and file references are not allowed (%w); put the schema under \"$defs\" and refer to it as \"#/$defs/NAME\"", u, errNoFetch)
}

// Schema is a compiled schema document, with its text as written, which
// the errors quote. It is safe for use by several goroutines at once.
type Schema struct {
	text     []byte
	compiled *jsonschema.Schema
	base     string // its address, as the validator's locations start
	legacy   string
}

// Compile compiles the schema document text of the tool called name (its
// input schema; name+".output" for its outputSchema), with a compiler that
// loads nothing. "$schema" is honoured and draft 2020-12 is the default. A
// schema that does not compile, or whose checks would multiply (see
// maxChecksPerValue), gives an error saying why; Reason words it.
func Compile(name string, text []byte) (*Schema, error) {
	c, legacy, err := compileSchema(name, text)
	if err != nil {
		return nil, err
	}
	base, _, _ := strings.Cut(c.Location, "#")
	return &Schema{text: text, compiled: c, base: base, legacy: legacy}, nil
}

// Legacy says why a schema without "$schema" was compiled as draft-07: it
// does not compile as 2020-12, the default (a list under "items", say).
// It is "" for any other schema.
func (s *Schema) Legacy() string { return s.legacy }

// Validate applies the schema to a value its caller decoded (as
// encoding/json does with UseNumber), with none of Check's bounds or
// explanations: nil when it passes.
func (s *Schema) Validate(v any) error { return validateSafely(s.compiled, v) }

// PlainlyCompiles reports whether the schema text is known to compile
// without running the compiler, which spends most of its time checking a
// schema against its meta-schema: true for a schema whose every keyword
// is plainly well formed, as tools' schemas usually are. False means "not
// known": such a schema goes to Compile. A loader that only needs to know
// that each of ten thousand schemas compiles asks this first.
func PlainlyCompiles(text []byte) bool { return plainlyCompiles(text) }

// CompileError says that a tool's input schema does not compile.
type CompileError struct {
	File, Tool string // the sidecar, and the tool's name
	Err        error
}

func (e *CompileError) Error() string {
	where := e.File
	if where == "" {
		where = "tool " + e.Tool
	}
	return fmt.Sprintf("%s: the input schema of tool %q does not compile: %s; fix the schema in the sidecar", where, e.Tool, e.Reason())
}

// Reason says what in the schema is wrong, naming the keyword and where
// it is when the schema breaks its draft's rules.
func (e *CompileError) Reason() string { return compileReason(e.Err) }

func (e *CompileError) Unwrap() error { return e.Err }

// compileReason words why a schema does not compile. The library's own
// message for a schema that fails its meta-schema is the whole tree of
// meta-schema locations; what a person needs is the keyword at fault,
// where it is in the schema, and what was expected.
func compileReason(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := deepestCause(ve)
		at, kw := schemaKeywordAt(leaf.InstanceLocation)
		if kw == "" {
			if at == "" {
				return leaf.Message
			}
			return fmt.Sprintf("the schema at %s: %s", at, leaf.Message)
		}
		where := "at " + at
		if at == "" {
			where = "at the top of the schema"
		}
		return fmt.Sprintf("%q %s: %s", kw, where, leaf.Message)
	}
	return strings.TrimPrefix(innermost(err).Error(), "jsonschema: ")
}

// deepestCause is the first of the failures found deepest in the schema:
// the one that names the keyword at fault rather than a schema holding it.
func deepestCause(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	best := ve
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			if len(v.InstanceLocation) > len(best.InstanceLocation) || len(best.Causes) > 0 {
				best = v
			}
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	return best
}

// schemaKeywordAt splits a JSON pointer into a schema into the pointer of
// the schema object holding the keyword at fault, and that keyword: for
// /properties/a/type, /properties/a and "type"; for /required/0, "" and
// "required". Names under "properties" and items of "allOf" are walked
// past, data under "enum" or an unknown keyword is not. A pointer to a
// subschema itself (/properties/a) gives it back with no keyword.
func schemaKeywordAt(ptr string) (at, keyword string) {
	if ptr == "" {
		return "", ""
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i := 0; i < len(toks); {
		kw := jsonptr.Unescape(toks[i])
		next := i + 1
		switch keywordKind(kw) {
		case kwSchema:
			if next < len(toks) && isIndex(toks[next]) {
				next++ // draft-07's items: [...]
			}
		case kwSchemaList, kwSchemaMap:
			next++
		default:
			return joinTokens(toks[:i]), kw
		}
		if i+1 == len(toks) {
			return joinTokens(toks[:i]), kw
		}
		i = next
	}
	return ptr, ""
}

func joinTokens(toks []string) string {
	if len(toks) == 0 {
		return ""
	}
	return "/" + strings.Join(toks, "/")
}

// innermost skips the library's wrapper, whose message only repeats the
// made-up schema address.
func innermost(err error) error {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) && se.Err != nil {
		return se.Err
	}
	return err
}

// knownDrafts are the "$schema" values whose meta-schemas the library
// carries, without the trailing "#" some write.
var knownDrafts = []string{
	"https://json-schema.org/draft/2020-12/schema",
	"https://json-schema.org/draft/2019-09/schema",
	"http://json-schema.org/draft-07/schema",
	"http://json-schema.org/draft-06/schema",
	"http://json-schema.org/draft-04/schema",
}

// checkDraft refuses a "$schema" that names no draft the library carries:
// the compiler would try to load it, and say so as if it were a $ref.
func checkDraft(schema []byte) error {
	v := gjson.GetBytes(schema, `\$schema`)
	if v.Type != gjson.String {
		return nil // absent, or malformed: the compiler says so
	}
	if knownDraft(v.Str) != "" {
		return nil
	}
	return fmt.Errorf(`"$schema" %q is not a draft toolcall knows, and a remote meta-schema is not allowed (%w); leave "$schema" out for draft 2020-12, or name one of %s`,
		v.Str, errNoFetch, strings.Join(knownDrafts, ", "))
}

// compileSchema compiles one schema document with a compiler that loads
// nothing, as the draft its "$schema" names, else as 2020-12. A schema
// without "$schema" that does not compile as 2020-12 but does as draft-07
// (a list under "items", "additionalItems", as tools generated for older
// drafts have) is compiled as draft-07: legacy is then why it is not
// 2020-12, and the error is always 2020-12's.
func compileSchema(name string, schema []byte) (s *jsonschema.Schema, legacy string, err error) {
	if err := checkDraft(schema); err != nil {
		return nil, "", err
	}
	s, err = compileAs(name, schema, jsonschema.Draft2020)
	if err == nil {
		err = checkCost(s)
	}
	if err == nil || gjson.GetBytes(schema, `\$schema`).Exists() {
		return s, "", err
	}
	if s7, err7 := compileAs(name, schema, jsonschema.Draft7); err7 == nil {
		if err7 = checkCost(s7); err7 != nil {
			return nil, "", err7
		}
		return s7, compileReason(err), nil
	}
	return nil, "", err
}

// compileAs compiles schema under draft unless its "$schema" says
// otherwise. The library panics on a few malformed inputs its meta-schema
// lets through; such a schema does not compile.
func compileAs(name string, schema []byte, draft *jsonschema.Draft) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("the schema is malformed: %v", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.Draft = draft
	c.LoadURL = refuseURL
	c.RegisterExtension("toolcall-empty-enum", nil, emptyEnum{})
	u := schemaURL(name)
	if err := c.AddResource(u, bytes.NewReader(schema)); err != nil {
		return nil, err
	}
	return c.Compile(u)
}

// emptyEnum makes "enum": [] allow nothing, as JSON Schema says: the
// library skips an empty enum, which would let every value through.
type emptyEnum struct{}

func (emptyEnum) Compile(_ jsonschema.CompilerContext, m map[string]any) (jsonschema.ExtSchema, error) {
	if e, ok := m["enum"].([]any); ok && len(e) == 0 {
		return emptyEnum{}, nil
	}
	return nil, nil
}

func (emptyEnum) Validate(ctx jsonschema.ValidationContext, _ any) error {
	return ctx.Error("enum", "the enum is empty, so no value is allowed")
}

// MaxDepth is how deeply a schema's JSON may nest, objects and
// arrays counted alike. Tool schemas need a handful of levels; the
// compiler's time grows steeply with depth, so a deeper one is refused
// when the sidecar is read.
const MaxDepth = 128

// TooDeep says whether raw, a JSON value, nests deeper than MaxDepth,
// and where, as a JSON pointer.
func TooDeep(raw string) (string, bool) {
	depth, inString := 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > MaxDepth {
				return deepPointer(gjson.Parse(raw), 1), true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return "", false
}

// deepPointer finds the first value of v nested deeper than MaxDepth
// (v being at depth), as a JSON pointer into v.
func deepPointer(v gjson.Result, depth int) string {
	if depth > MaxDepth {
		return ""
	}
	found, ptr := false, ""
	i := 0
	v.ForEach(func(k, e gjson.Result) bool {
		tok := strconv.Itoa(i)
		if v.IsObject() {
			tok = jsonptr.Token(k.Str)
		}
		i++
		if e.IsObject() || e.IsArray() {
			if depth+1 > MaxDepth {
				found, ptr = true, "/"+tok
				return false
			}
			if p := deepPointer(e, depth+1); p != "" {
				found, ptr = true, "/"+tok+p
				return false
			}
		}
		return true
	})
	if !found {
		return ""
	}
	return ptr
}
