package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
	"github.com/toolcall/toolcall/tools/schema"
)

// SidecarError is one problem with one sidecar file. ParseSidecar joins one
// per problem (errors.Join), so a user sees them all at once and a linter can
// list them one by one.
type SidecarError struct {
	File string // the sidecar's path
	Tool string // the tool's name, when known
	Err  error
}

func (e *SidecarError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *SidecarError) Unwrap() error { return e.Err }

// sidecar holds the top-level values of a sidecar, as found, before they are
// checked. One pass over the object fills it.
type sidecar struct {
	name, title, description gjson.Result
	schema                   gjson.Result
	schemaKeys               []string // which of input_schema, parameters, inputSchema were given
	outputSchema             gjson.Result
	outputKey                string
	annotations              gjson.Result
	strict                   gjson.Result
	function                 gjson.Result // OpenAI's {"type": "function", "function": {...}}

	safe, timeout, tags, examples     gjson.Result
	retries                           gjson.Result
	allowNoSchema, noSchemaMode       gjson.Result
	requires, platforms, env, command gjson.Result
	aliases, valueAliases, maxCalls   gjson.Result // argument normalisation and the call budget
	mcpFields                         []RawField   // MCP fields passed through
	ours                              bool         // a key only our own dialect has
	schemaType, properties            gjson.Result // a bare JSON Schema given as the sidecar
}

// sidecarKey is one top-level key a sidecar may hold.
type sidecarKey struct {
	key   string
	field sidecarField // where collect puts the value
	// inside says which value counts when the key is both inside
	// OpenAI's "function" and beside it.
	inside   insideFunction
	ours     bool // only our own dialect has the key
	toolOnly bool // only a tool definition has the key (see MeansATool)
	schema   bool // one of the names of the input schema
	output   bool // one of the names of the output schema
}

type insideFunction int

const (
	notInside insideFunction = iota // not looked for inside "function"
	innerWins                       // the definition's own field
	outerWins                       // our keys beside the definition win
)

// sidecarKeys are the keys of a sidecar, stated once: collect fills a
// sidecar by them, the "function" wrapper is unwrapped by them, and
// MeansATool knows a tool definition by them. "name", "title",
// "description", "type", "properties" and "strict" are not toolOnly:
// package.json and bare JSON Schemas have them too. Any other key is
// ignored, but for the MCP fields passed through (mcpPassThrough); one
// that is not some dialect's extras (cache_control, x-* keys, ...) is
// noted as stray (sidecarkeys.go).
var sidecarKeys = []sidecarKey{
	{key: "name", field: fName, inside: innerWins},
	{key: "title", field: fTitle, inside: innerWins},
	{key: "description", field: fDescription, inside: innerWins},
	{key: "input_schema", field: fSchema, inside: innerWins, toolOnly: true, schema: true},
	{key: "parameters", field: fSchema, inside: innerWins, toolOnly: true, schema: true},
	{key: "inputSchema", field: fSchema, inside: innerWins, toolOnly: true, schema: true},
	{key: "function", field: fFunction, toolOnly: true},
	{key: "output_schema", field: fOutputSchema, inside: outerWins, ours: true, toolOnly: true, output: true},
	{key: "outputSchema", field: fOutputSchema, inside: outerWins, toolOnly: true, output: true},
	{key: "annotations", field: fAnnotations, inside: outerWins, toolOnly: true},
	{key: "strict", field: fStrict, inside: innerWins},
	{key: "type", field: fSchemaType},
	{key: "properties", field: fProperties},
	{key: "safe", field: fSafe, inside: outerWins, ours: true, toolOnly: true},
	{key: "timeout", field: fTimeout, inside: outerWins, ours: true, toolOnly: true},
	{key: "retries", field: fRetries, inside: outerWins, ours: true, toolOnly: true},
	{key: "tags", field: fTags, inside: outerWins, ours: true, toolOnly: true},
	{key: "examples", field: fExamples, inside: outerWins, ours: true, toolOnly: true},
	{key: "aliases", field: fAliases, inside: outerWins, ours: true},
	{key: "value_aliases", field: fValueAliases, inside: outerWins, ours: true},
	{key: "max_calls", field: fMaxCalls, inside: outerWins, ours: true, toolOnly: true},
	{key: "allow_no_schema", field: fAllowNoSchema, inside: outerWins, ours: true, toolOnly: true},
	{key: "no_schema_mode", field: fNoSchemaMode, inside: outerWins, ours: true, toolOnly: true},
	{key: "requires", field: fRequires, inside: outerWins, ours: true, toolOnly: true},
	{key: "platforms", field: fPlatforms, inside: outerWins, ours: true, toolOnly: true},
	{key: "env", field: fEnv, inside: outerWins, ours: true, toolOnly: true},
	{key: "command", field: fCommand, inside: outerWins, ours: true, toolOnly: true},
}

// sidecarField names a value of sidecar, for sidecarKeys.
type sidecarField int

const (
	fName sidecarField = iota
	fTitle
	fDescription
	fSchema
	fFunction
	fOutputSchema
	fAnnotations
	fStrict
	fSchemaType
	fProperties
	fSafe
	fTimeout
	fRetries
	fTags
	fExamples
	fAliases
	fValueAliases
	fMaxCalls
	fAllowNoSchema
	fNoSchemaMode
	fRequires
	fPlatforms
	fEnv
	fCommand
)

// field is the value f names. A method, not a func in the table, so that
// a sidecar stays on its caller's stack.
func (s *sidecar) field(f sidecarField) *gjson.Result {
	switch f {
	case fName:
		return &s.name
	case fTitle:
		return &s.title
	case fDescription:
		return &s.description
	case fSchema:
		return &s.schema
	case fFunction:
		return &s.function
	case fOutputSchema:
		return &s.outputSchema
	case fAnnotations:
		return &s.annotations
	case fStrict:
		return &s.strict
	case fSchemaType:
		return &s.schemaType
	case fProperties:
		return &s.properties
	case fSafe:
		return &s.safe
	case fTimeout:
		return &s.timeout
	case fRetries:
		return &s.retries
	case fTags:
		return &s.tags
	case fExamples:
		return &s.examples
	case fAliases:
		return &s.aliases
	case fValueAliases:
		return &s.valueAliases
	case fMaxCalls:
		return &s.maxCalls
	case fAllowNoSchema:
		return &s.allowNoSchema
	case fNoSchemaMode:
		return &s.noSchemaMode
	case fRequires:
		return &s.requires
	case fPlatforms:
		return &s.platforms
	case fEnv:
		return &s.env
	case fCommand:
		return &s.command
	}
	panic("tools: unknown sidecar field")
}

// sidecarKeyIndex finds a key's entry in sidecarKeys.
var sidecarKeyIndex = sync.OnceValue(func() map[string]*sidecarKey {
	m := make(map[string]*sidecarKey, len(sidecarKeys))
	for i := range sidecarKeys {
		m[sidecarKeys[i].key] = &sidecarKeys[i]
	}
	return m
})

func (s *sidecar) collect(obj gjson.Result) {
	keys := sidecarKeyIndex()
	obj.ForEach(func(k, v gjson.Result) bool {
		sk, ok := keys[k.Str]
		if !ok {
			if slices.Contains(mcpPassThrough, k.Str) {
				s.mcpFields = append(s.mcpFields, RawField{Key: k.Str, Value: compact(v.Raw)})
			}
			return true
		}
		*s.field(sk.field) = v
		s.ours = s.ours || sk.ours
		if sk.schema && !slices.Contains(s.schemaKeys, k.Str) {
			s.schemaKeys = append(s.schemaKeys, k.Str)
		}
		if sk.output {
			s.outputKey = k.Str
		}
		return true
	})
}

// unwrap takes in OpenAI's nested shape: the definition is inside
// "function"; our own keys (safe, tags, ...) may sit beside it or inside.
func (s *sidecar) unwrap() {
	var in sidecar
	in.collect(s.function)
	for _, k := range in.schemaKeys {
		if !slices.Contains(s.schemaKeys, k) {
			s.schemaKeys = append(s.schemaKeys, k)
		}
	}
	for _, k := range sidecarKeys {
		out, inner := s.field(k.field), in.field(k.field)
		switch k.inside {
		case innerWins:
			*out = or(*inner, *out)
		case outerWins:
			*out = or(*out, *inner)
		}
	}
}

// sidecarParser holds one sidecar on its way to a Tool: ParseSidecar runs
// its phases in order on the sidecar's values, each adding to the Tool,
// the problems and the warnings. (The values are not a field: they stay
// on ParseSidecar's stack, where p, whose fail escapes, cannot keep them.)
type sidecarParser struct {
	file    string
	t       *Tool
	dialect string
	errs    []error
	warns   []string
	// badSchema: the schema was reported as too deep; the no-schema
	// policy does not report it missing.
	badSchema bool
	openWorld bool // MCP's openWorldHint, which adds the network tag
}

func (p *sidecarParser) fail(format string, args ...any) {
	p.errs = append(p.errs, &SidecarError{File: p.file, Tool: p.t.Name, Err: fmt.Errorf(format, args...)})
}

func (p *sidecarParser) warn(format string, args ...any) {
	p.warns = append(p.warns, p.file+": "+fmt.Sprintf(format, args...))
}

// ParseSidecar reads one sidecar: a JSON object in our own dialect, or an
// OpenAI, Anthropic, MCP or BFCL/Gorilla definition dropped in as it is.
// file is the sidecar's path; it names the tool when the sidecar does not,
// and every message. It returns the tool, warnings (each naming the file),
// and an error joining one *SidecarError per problem.
//
// Tool.Command holds the sidecar's "command" as written (relative to the
// sidecar's directory); finding the executable is the caller's job, as is
// Unavailable. Nothing returned refers to data, so the caller may reuse it.
func ParseSidecar(file string, data []byte) (*Tool, []string, error) {
	p := &sidecarParser{file: file, t: &Tool{File: file, Safe: true}}
	var s sidecar
	if p.read(data, &s) {
		p.names(&s)
		p.inputSchema(&s)
		p.noSchemaPolicy(&s)
		p.normalisation(&s)
		p.outputSchema(&s)
		p.safety(&s)
		p.lists(&s)
		p.setDialect(&s)
	}
	if len(p.errs) > 0 {
		return nil, p.warns, errors.Join(p.errs...)
	}
	return p.t, p.warns, nil
}

// read checks that data is one JSON object and collects its keys; false
// when there is nothing more to check.
func (p *sidecarParser) read(data []byte, s *sidecar) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM some editors write
	if !gjson.ValidBytes(data) {
		p.fail("%s; fix the JSON syntax", syntaxError(data))
		return false
	}
	root := gjson.ParseBytes(data)
	if _, shape, ok := listShape(root); ok {
		// An OpenAI "tools" array, an MCP tools/list result or response,
		// or a BFCL entry, pasted whole.
		p.fail("this file is %s, not a sidecar, which describes one tool; put each tool in its own NAME.json beside its executable, or give this file itself to --tools (--tools %s) to list and validate its tools without running them", shape, p.file)
		return false
	}
	if !root.IsObject() {
		p.fail("a sidecar must be a JSON object, found %s", phrase.Describe(root))
		return false
	}
	s.collect(root)
	if s.function.Exists() {
		if !s.function.IsObject() {
			p.fail(`"function" must be an object (OpenAI's {"type": "function", "function": {...}}), found %s`, phrase.Describe(s.function))
			return false
		}
		s.unwrap()
		p.dialect = DialectOpenAI
	}
	p.strayKeys(root, s)
	return true
}

// names: the tool's name (the sidecar's, else the file's), title and
// description.
func (p *sidecarParser) names(s *sidecar) {
	t := p.t
	t.Name = strings.TrimSuffix(filepath.Base(p.file), ".json")
	if s.name.Exists() {
		if s.name.Type != gjson.String {
			p.fail(`"name" must be a string, found %s`, phrase.Describe(s.name))
		} else {
			t.Name = s.name.Str
		}
	}
	if !ValidName(t.Name) {
		p.fail("tool name %q is not valid: use 1 to 128 letters, digits, '_', '.' or '-' (rename the file or set \"name\")", t.Name)
	}
	t.Title = str(s.title, "title", p.fail)
	t.Description = str(s.description, "description", p.fail)
	if strings.TrimSpace(t.Description) == "" && (!s.description.Exists() || s.description.Type == gjson.String) {
		p.warn("tool %q has no description; models pick tools by their description, so add one", t.Name)
	}
}

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

// safety: an explicit "safe" wins; else MCP's annotations decide. Also
// OpenAI's "strict".
func (p *sidecarParser) safety(s *sidecar) {
	t := p.t
	if s.annotations.Exists() && s.annotations.Type != gjson.Null {
		if !s.annotations.IsObject() {
			p.fail(`"annotations" must be an object (MCP tool annotations), found %s`, phrase.Describe(s.annotations))
		} else {
			t.Annotations = compact(s.annotations.Raw)
			// MCP's defaults: a tool is not read-only and is destructive
			// unless it says otherwise.
			readOnly := s.annotations.Get("readOnlyHint").Type == gjson.True
			nonDestructive := s.annotations.Get("destructiveHint").Type == gjson.False
			t.Safe = readOnly || nonDestructive
			p.openWorld = s.annotations.Get("openWorldHint").Type == gjson.True
			if t.Title == "" {
				if title := s.annotations.Get("title"); title.Type == gjson.String {
					t.Title = title.Str
				}
			}
		}
	}
	t.Safe = boolean(s.safe, "safe", t.Safe, p.fail)
	if s.strict.Exists() && s.strict.Type != gjson.Null {
		t.Strict, t.StrictSet = boolean(s.strict, "strict", false, p.fail), true
	}
}

// lists: the timeout, tags, requirements, environment, platforms, command
// and examples.
func (p *sidecarParser) lists(s *sidecar) {
	t := p.t
	t.Timeout = timeout(s.timeout, p.fail)
	t.Retries, t.RetriesSet = retries(s.retries, t.Safe, p.fail)
	t.Tags = stringList(s.tags, "tags", p.fail)
	// MCP's openWorldHint says what our network tag says, so that
	// --local-only leaves such a tool out too.
	if p.openWorld && !slices.Contains(t.Tags, TagNetwork) {
		t.Tags = append(t.Tags, TagNetwork)
	}
	t.Requires = stringList(s.requires, "requires", p.fail)
	t.Env = stringList(s.env, "env", p.fail)
	for _, name := range t.Env {
		if strings.ContainsAny(name, "= \t") {
			p.fail(`"env" entry %q is not a variable name; list names only, the values come from the environment`, name)
		}
	}
	t.Platforms = stringList(s.platforms, "platforms", p.fail)
	for _, pl := range t.Platforms {
		if msg := checkPlatform(pl); msg != "" {
			p.fail(`"platforms" entry %q: %s`, pl, msg)
		}
	}
	t.Command = str(s.command, "command", p.fail)
	if s.command.Exists() && t.Command == "" {
		p.fail(`"command" is empty; give the executable's path relative to the sidecar, or remove the key`)
	}
	t.Examples, t.ExampleRequests = examples(s.examples, p.fail)
	t.MCPFields = s.mcpFields
}

// setDialect says where the definition came from, for messages and for
// tools that care.
func (p *sidecarParser) setDialect(s *sidecar) {
	if p.dialect == "" {
		switch key := last(s.schemaKeys); {
		case key == "inputSchema" || s.outputKey == "outputSchema" || s.annotations.Exists():
			p.dialect = DialectMCP
		case key == "parameters":
			p.dialect = DialectOpenAI
		case key == "input_schema" && !s.ours:
			p.dialect = DialectAnthropic
		default:
			p.dialect = DialectToolcall
		}
	}
	p.t.Dialect = p.dialect
}

// ValidName reports whether name is a valid tool name: 1 to 128 ASCII
// letters, digits, '_', '.' or '-' (MCP's rule). OpenAI and Anthropic
// accept fewer; the catalog maps names for them.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
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

// syntaxError says where data stops being JSON, as line and column.
func syntaxError(data []byte) string {
	if len(bytes.TrimSpace(data)) == 0 {
		return "the file is empty"
	}
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return "not valid JSON"
	}
	if strings.HasPrefix(se.Error(), "unexpected end") {
		return "not valid JSON: the file ends before the JSON does (a } or ] missing?)"
	}
	// Offset counts the bytes read, the offending one included.
	off := int(se.Offset) - 1
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("not valid JSON at line %d, column %d: %v", line, col, se)
}

// checkPlatform checks a "platforms" entry: GOOS or GOOS/GOARCH, as Go
// spells them, so a typo does not hide a tool everywhere.
func checkPlatform(p string) string {
	goos, goarch, hasArch := strings.Cut(p, "/")
	if !slices.Contains(knownOS, goos) {
		return "unknown operating system " + strconv.Quote(goos) + "; use Go's names: " + strings.Join(knownOS, ", ")
	}
	if hasArch && !slices.Contains(knownArch, goarch) {
		return "unknown architecture " + strconv.Quote(goarch) + "; use Go's names: " + strings.Join(knownArch, ", ")
	}
	return ""
}

var (
	knownOS   = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "illumos", "ios", "js", "linux", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows"}
	knownArch = []string{"386", "amd64", "arm", "arm64", "loong64", "mips", "mips64", "mips64le", "mipsle", "ppc64", "ppc64le", "riscv64", "s390x", "wasm"}
)

// timeout reads a Go duration ("20s", "1m30s") or a number of seconds.
func timeout(v gjson.Result, fail func(string, ...any)) time.Duration {
	var d time.Duration
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return 0
	case v.Type == gjson.Number:
		d = time.Duration(v.Num * float64(time.Second))
	case v.Type == gjson.String:
		var err error
		if d, err = time.ParseDuration(v.Str); err != nil {
			fail(`"timeout" %q is not a duration; write it like "20s" or "2m", or as a number of seconds`, v.Str)
			return 0
		}
	default:
		fail(`"timeout" must be a duration like "20s" or a number of seconds, found %s`, phrase.Describe(v))
		return 0
	}
	if d < 0 {
		fail(`"timeout" %s is negative; give a positive duration, or leave it out for the default`, v.Raw)
		return 0
	}
	return d
}

// retries reads "retries": how often a safe tool is run again after it
// failed, a whole number from 0 to MaxRetries. A tool with side effects
// is never run again, so asking for it is a mistake in the sidecar.
func retries(v gjson.Result, safe bool, fail func(string, ...any)) (int, bool) {
	if !v.Exists() || v.Type == gjson.Null {
		return 0, false
	}
	n, err := strconv.Atoi(v.Raw)
	switch {
	case v.Type != gjson.Number || err != nil:
		fail(`"retries" must be a whole number of retries from 0 to %d, found %s`, MaxRetries, phrase.Describe(v))
		return 0, false
	case n < 0 || n > MaxRetries:
		fail(`"retries" %d is out of range; give a number from 0 to %d`, n, MaxRetries)
		return 0, false
	case n > 0 && !safe:
		fail(`"retries" %d on a tool with side effects: such a tool is never run twice for one call; remove "retries", or mark the tool "safe": true if running it again does no harm`, n)
		return 0, false
	}
	return n, true
}

// examples reads "examples": each entry is {"arguments": {...}} (optionally
// with "description", "title" or "output" beside it), or the arguments object
// itself.
func examples(v gjson.Result, fail func(string, ...any)) (args [][]byte, requests []string) {
	if !v.Exists() || v.Type == gjson.Null {
		return nil, nil
	}
	if !v.IsArray() {
		fail(`"examples" must be an array of argument objects, found %s`, phrase.Describe(v))
		return nil, nil
	}
	i, anyRequest := 0, false
	v.ForEach(func(_, e gjson.Result) bool {
		a, request := e, ""
		if e.IsObject() && isWrapper(e) {
			a = e.Get("arguments")
			if a.Type == gjson.String && gjson.Valid(a.Str) {
				a = gjson.Parse(a.Str) // OpenAI writes arguments as a JSON string
			}
			if r := e.Get("request"); r.Exists() && r.Type != gjson.String {
				fail(`"examples"[%d].request must be a string: a request a person might make, found %s`, i, phrase.Describe(r))
			} else {
				request = r.Str
			}
		}
		if !a.IsObject() {
			fail(`"examples"[%d] must be an arguments object or {"arguments": {...}}, found %s`, i, phrase.Describe(a))
		} else {
			args = append(args, compact(a.Raw))
			requests = append(requests, request)
			anyRequest = anyRequest || request != ""
		}
		i++
		return true
	})
	if !anyRequest {
		requests = nil
	}
	return args, requests
}

// isWrapper reports whether an example is {"arguments": ...} plus notes,
// rather than the arguments themselves.
func isWrapper(e gjson.Result) bool {
	wrapper := false
	e.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "arguments":
			wrapper = true
		case "description", "title", "output", "result", "comment", "request":
		default:
			wrapper = false
			return false
		}
		return true
	})
	return wrapper
}

func str(v gjson.Result, key string, fail func(string, ...any)) string {
	if !v.Exists() || v.Type == gjson.Null {
		return ""
	}
	if v.Type != gjson.String {
		fail("%q must be a string, found %s", key, phrase.Describe(v))
		return ""
	}
	return v.Str
}

func boolean(v gjson.Result, key string, def bool, fail func(string, ...any)) bool {
	switch v.Type {
	case gjson.True:
		return true
	case gjson.False:
		return false
	}
	if v.Exists() && v.Type != gjson.Null {
		fail("%q must be true or false, found %s", key, phrase.Describe(v))
	}
	return def
}

// stringList reads an array of non-empty strings.
func stringList(v gjson.Result, key string, fail func(string, ...any)) []string {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		fail("%q must be an array of strings, found %s", key, phrase.Describe(v))
		return nil
	}
	var out []string
	v.ForEach(func(_, e gjson.Result) bool {
		if e.Type != gjson.String || e.Str == "" {
			fail("%q must hold non-empty strings, found %s", key, phrase.Describe(e))
			return true
		}
		out = append(out, e.Str)
		return true
	})
	return out
}

// compact returns raw JSON without insignificant space, so it fits on one
// JSONL line; key order and every value are kept as written.
func compact(raw string) []byte {
	return jsonw.AppendCompact(make([]byte, 0, len(raw)), raw)
}

func or(a, b gjson.Result) gjson.Result {
	if a.Exists() {
		return a
	}
	return b
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, " and ")
}

// unjoin splits an errors.Join result into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// toolKeys are the keys that only a tool definition has (toolOnly in
// sidecarKeys), and those of a pasted list ("tools") or JSON-RPC response
// ("jsonrpc"), so that loading one says what to do with it.
var toolKeys = sync.OnceValue(func() []string {
	var keys []string
	for _, k := range sidecarKeys {
		if k.toolOnly {
			keys = append(keys, k.key)
		}
	}
	return append(keys, "tools", "jsonrpc")
})

// MeansATool reports whether data, a .json file found in a tools
// directory, sets out to define a tool: anything but a JSON object, or an
// object with one of the keys only a tool definition has. A file that does
// not (package.json, tsconfig.json) is no sidecar, unless an executable
// beside it says otherwise; the loader decides that. A file that is not
// valid JSON sets out to be a tool when a tool key appears in it quoted.
func MeansATool(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !gjson.ValidBytes(data) {
		for _, k := range toolKeys() {
			if bytes.Contains(data, []byte(`"`+k+`"`)) {
				return true
			}
		}
		return false
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return true
	}
	found := false
	root.ForEach(func(k, _ gjson.Result) bool {
		found = slices.Contains(toolKeys(), k.Str)
		return !found
	})
	return found
}
