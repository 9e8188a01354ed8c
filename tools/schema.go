package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// errNoFetch is what the schema compiler gets for any document outside the
// sidecar: nothing is ever fetched (DESIGN.md §3, §6).
var errNoFetch = errors.New("remote and file $ref are not allowed; put the schema under $defs in the sidecar and use \"$ref\": \"#/$defs/...\"")

// schemaURL is the made-up address the input schema of the tool called name
// is compiled under. Relative references resolve against it to other
// toolcall: addresses, which refuseURL turns down like any other.
func schemaURL(name string) string {
	return "toolcall:///" + url.PathEscape(name) + ".json"
}

// refuseURL stands in for the compiler's loader. The meta-schemas of the
// drafts it knows are built into the library and never reach a loader.
func refuseURL(u string) (io.ReadCloser, error) {
	return nil, fmt.Errorf("%s: %w", u, errNoFetch)
}

// Compile compiles the tool's input schema once, on first use, and returns
// it; later calls, from any goroutine, return the same result. "$schema"
// is honoured and draft 2020-12 is the default. A tool without a schema
// (AllowNoSchema) gives nil, nil.
func (t *Tool) Compile() (*jsonschema.Schema, error) {
	t.compileOnce.Do(func() {
		if t.InputSchema == nil {
			return
		}
		t.schema, t.schemaErr = compileSchema(t.Name, t.InputSchema)
		if t.schemaErr != nil {
			t.schema = nil
			t.schemaErr = &CompileError{File: t.File, Tool: t.Name, Err: t.schemaErr}
		}
	})
	return t.schema, t.schemaErr
}

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
	why := strings.TrimPrefix(innermost(e.Err).Error(), "jsonschema: ")
	return fmt.Sprintf("%s: the input schema of tool %q does not compile: %s; fix the schema in the sidecar", where, e.Tool, why)
}

func (e *CompileError) Unwrap() error { return e.Err }

// innermost skips the library's wrapper, whose message only repeats the
// made-up schema address.
func innermost(err error) error {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) && se.Err != nil {
		return se.Err
	}
	return err
}

// compileSchema compiles one schema document with a compiler that loads
// nothing. The library panics on a few malformed inputs its meta-schema
// lets through; such a schema does not compile.
func compileSchema(name string, schema []byte) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("the schema is malformed: %v", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = refuseURL
	u := schemaURL(name)
	if err := c.AddResource(u, bytes.NewReader(schema)); err != nil {
		return nil, err
	}
	return c.Compile(u)
}
