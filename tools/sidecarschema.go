package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/phrase"
	"github.com/toolcall/toolcall/tools/schema"
)

// The schemas of a sidecar as loading reads them: depth, refs and BFCL
// type names checked here (tools/schema), compiling left to the first
// call (toolschema.go), and a tool without one refused unless its author
// chose a no-schema mode.

// inputSchema checks the schema of the arguments and keeps it compact,
// with BFCL's type names mapped to JSON Schema's.
func (p *sidecarParser) inputSchema(s *sidecar) {
	t := p.t
	if len(s.schemaKeys) > 1 {
		p.fail("%s given together; they are aliases of one schema, keep one", quoteList(s.schemaKeys))
	}
	if !s.schema.Exists() || s.schema.Type == gjson.Null {
		return
	}
	if !s.schema.IsObject() {
		p.fail("%q must be a JSON Schema object, found %s", s.schemaKeys[len(s.schemaKeys)-1], phrase.Describe(s.schema))
		return
	}
	key := last(s.schemaKeys)
	if ptr, deep := schema.TooDeep(s.schema.Raw); deep {
		p.fail("%s", tooDeep(key, ptr))
		p.badSchema = true
		return
	}
	facts := schema.Inspect(s.schema, t.Name)
	if facts.BFCL() {
		var mapped []string
		t.InputSchema, mapped = facts.MapTypes(s.schema)
		p.dialect = DialectBFCL
		p.warn("BFCL/Gorilla type names mapped to JSON Schema: %s", strings.Join(mapped, ", "))
	} else {
		t.InputSchema = compact(s.schema.Raw)
	}
	checkRoot(gjson.ParseBytes(t.InputSchema), key, p.fail)
	for _, e := range facts.RefErrors {
		p.fail("%s: %w", key, e)
	}
}

// noSchemaPolicy fails closed without a schema, unless the author opted
// out on purpose.
func (p *sidecarParser) noSchemaPolicy(s *sidecar) {
	t := p.t
	allow := boolean(s.allowNoSchema, "allow_no_schema", false, p.fail)
	mode := str(s.noSchemaMode, "no_schema_mode", p.fail)
	validMode := mode == NoSchemaReadOnly || mode == NoSchemaHumanApproval || mode == NoSchemaFull
	switch {
	case t.InputSchema != nil:
		if allow {
			p.warn(`tool %q has a schema, so "allow_no_schema" is ignored`, t.Name)
		}
		if mode != "" && !validMode {
			p.fail(`"no_schema_mode" %q is not one of read-only, human-approval, full`, mode)
		}
	case len(s.schemaKeys) > 0 && !s.schema.IsObject() && s.schema.Type != gjson.Null, p.badSchema:
		// Reported by inputSchema as a schema of the wrong kind, or too deep.
	case !allow:
		if s.schemaType.Exists() && s.properties.Exists() {
			p.fail(`no "input_schema": this file looks like a bare JSON Schema; put it under "input_schema" and add "description"`)
		} else {
			p.fail(`no "input_schema": every tool needs a JSON Schema of its arguments (fail closed); add one, or set "allow_no_schema": true with "no_schema_mode" one of read-only, human-approval, full`)
		}
	case !validMode:
		if mode == "" {
			p.fail(`"allow_no_schema": true needs "no_schema_mode" set to one of read-only, human-approval, full`)
		} else {
			p.fail(`"no_schema_mode" %q is not one of read-only, human-approval, full`, mode)
		}
	default:
		t.AllowNoSchema, t.NoSchemaMode = true, mode
	}
}

// outputSchema checks the schema of structured results, when given.
func (p *sidecarParser) outputSchema(s *sidecar) {
	if !s.outputSchema.Exists() || s.outputSchema.Type == gjson.Null {
		return
	}
	if !s.outputSchema.IsObject() {
		p.fail("%q must be a JSON Schema object, found %s", s.outputKey, phrase.Describe(s.outputSchema))
	} else if ptr, deep := schema.TooDeep(s.outputSchema.Raw); deep {
		p.fail("%s", tooDeep(s.outputKey, ptr))
	} else {
		p.t.OutputSchema = compact(s.outputSchema.Raw)
		for _, e := range schema.Inspect(s.outputSchema, p.t.Name+".output").RefErrors {
			p.fail("%s: %w", s.outputKey, e)
		}
	}
}

// checkRoot insists the schema describes an object: tool arguments always
// are one.
func checkRoot(schema gjson.Result, key string, fail func(string, ...any)) {
	typ := schema.Get("type")
	switch {
	case !typ.Exists():
	case typ.Type == gjson.String && typ.Str == "object":
	case typ.IsArray() && slices.ContainsFunc(typ.Array(), func(t gjson.Result) bool { return t.Str == "object" }):
	case typ.Type == gjson.String && strings.EqualFold(typ.Str, "object"):
		// Gemini's schemas spell types in capitals (OBJECT, STRING);
		// the advice below would be wrong for them.
		fail(`%q has "type" %s, but JSON Schema type names are lower case: write "object" (and "string", "integer", "number", "boolean", "array" inside it)`, key, typ.Raw)
	default:
		fail(`%q must describe an object (tool arguments are always a JSON object), but its "type" is %s; make the value a property of an object schema`, key, typ.Raw)
	}
}

// tooDeep words the error for a schema nested deeper than schema.MaxDepth.
func tooDeep(key, ptr string) string {
	return fmt.Sprintf("%q is nested more than %d levels deep (at %s); toolcall refuses such schemas, as compiling them takes too long: flatten it, or define a repeated part once under \"$defs\" and refer to it with \"$ref\"",
		key, schema.MaxDepth, clip.Head(ptr, 120))
}
