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
	"time"

	"github.com/tidwall/gjson"
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
	allowNoSchema, noSchemaMode       gjson.Result
	requires, platforms, env, command gjson.Result
	mcpFields                         []RawField   // MCP fields passed through
	ours                              bool         // a key only our own dialect has
	schemaType, properties            gjson.Result // a bare JSON Schema given as the sidecar
}

func (s *sidecar) collect(obj gjson.Result) {
	obj.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "name":
			s.name = v
		case "title":
			s.title = v
		case "description":
			s.description = v
		case "input_schema", "parameters", "inputSchema":
			if !slices.Contains(s.schemaKeys, k.Str) {
				s.schemaKeys = append(s.schemaKeys, k.Str)
			}
			s.schema = v
		case "output_schema", "outputSchema":
			s.outputSchema, s.outputKey = v, k.Str
			s.ours = s.ours || k.Str == "output_schema"
		case "annotations":
			s.annotations = v
		case "strict":
			s.strict = v
		case "function":
			s.function = v
		case "type":
			s.schemaType = v
		case "properties":
			s.properties = v
		case "safe":
			s.safe, s.ours = v, true
		case "timeout":
			s.timeout, s.ours = v, true
		case "tags":
			s.tags, s.ours = v, true
		case "examples":
			s.examples, s.ours = v, true
		case "allow_no_schema":
			s.allowNoSchema, s.ours = v, true
		case "no_schema_mode":
			s.noSchemaMode, s.ours = v, true
		case "requires":
			s.requires, s.ours = v, true
		case "platforms":
			s.platforms, s.ours = v, true
		case "env":
			s.env, s.ours = v, true
		case "command":
			s.command, s.ours = v, true
		default:
			if slices.Contains(mcpPassThrough, k.Str) {
				s.mcpFields = append(s.mcpFields, RawField{Key: k.Str, Value: compact(v.Raw)})
			}
			// Anything else belongs to some dialect's extras
			// (cache_control, x-* keys, ...) and is ignored.
		}
		return true
	})
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
	t := &Tool{File: file, Safe: true}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, &SidecarError{File: file, Tool: t.Name, Err: fmt.Errorf(format, args...)})
	}
	var warns []string
	warn := func(format string, args ...any) {
		warns = append(warns, file+": "+fmt.Sprintf(format, args...))
	}
	done := func() (*Tool, []string, error) {
		if len(errs) > 0 {
			return nil, warns, errors.Join(errs...)
		}
		return t, warns, nil
	}

	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM some editors write
	if !gjson.ValidBytes(data) {
		fail("%s; fix the JSON syntax", syntaxError(data))
		return done()
	}
	root := gjson.ParseBytes(data)
	if _, shape, ok := listShape(root); ok {
		// An OpenAI "tools" array, an MCP tools/list result or response,
		// or a BFCL entry, pasted whole.
		fail("this file is %s, not a sidecar, which describes one tool; put each tool in its own NAME.json beside its executable, or give this file itself to --tools (--tools %s) to list and validate its tools without running them", shape, file)
		return done()
	}
	if !root.IsObject() {
		fail("a sidecar must be a JSON object, found %s", describe(root))
		return done()
	}

	var s sidecar
	s.collect(root)
	dialect := ""
	if s.function.Exists() {
		if !s.function.IsObject() {
			fail(`"function" must be an object (OpenAI's {"type": "function", "function": {...}}), found %s`, describe(s.function))
			return done()
		}
		// OpenAI's nested shape: the definition is inside "function";
		// our own keys (safe, tags, ...) may sit beside it or inside.
		var in sidecar
		in.collect(s.function)
		for _, k := range in.schemaKeys {
			if !slices.Contains(s.schemaKeys, k) {
				s.schemaKeys = append(s.schemaKeys, k)
			}
		}
		s.name, s.description = or(in.name, s.name), or(in.description, s.description)
		s.title, s.strict = or(in.title, s.title), or(in.strict, s.strict)
		s.schema = or(in.schema, s.schema)
		for _, p := range []struct{ out, in *gjson.Result }{
			{&s.safe, &in.safe}, {&s.timeout, &in.timeout}, {&s.tags, &in.tags},
			{&s.examples, &in.examples}, {&s.allowNoSchema, &in.allowNoSchema},
			{&s.noSchemaMode, &in.noSchemaMode}, {&s.requires, &in.requires},
			{&s.platforms, &in.platforms}, {&s.env, &in.env}, {&s.command, &in.command},
			{&s.outputSchema, &in.outputSchema}, {&s.annotations, &in.annotations},
		} {
			*p.out = or(*p.out, *p.in)
		}
		dialect = DialectOpenAI
	}

	// Name: the sidecar's, else the file's.
	t.Name = strings.TrimSuffix(filepath.Base(file), ".json")
	if s.name.Exists() {
		if s.name.Type != gjson.String {
			fail(`"name" must be a string, found %s`, describe(s.name))
		} else {
			t.Name = s.name.Str
		}
	}
	if !ValidName(t.Name) {
		fail("tool name %q is not valid: use 1 to 128 letters, digits, '_', '.' or '-' (rename the file or set \"name\")", t.Name)
	}
	t.Title = str(s.title, "title", fail)
	t.Description = str(s.description, "description", fail)
	if strings.TrimSpace(t.Description) == "" && (!s.description.Exists() || s.description.Type == gjson.String) {
		warn("tool %q has no description; models pick tools by their description, so add one", t.Name)
	}

	// The schema.
	if len(s.schemaKeys) > 1 {
		fail("%s given together; they are aliases of one schema, keep one", quoteList(s.schemaKeys))
	}
	tooDeepSchema := false
	if s.schema.Exists() && s.schema.Type != gjson.Null {
		if !s.schema.IsObject() {
			fail("%q must be a JSON Schema object, found %s", s.schemaKeys[len(s.schemaKeys)-1], describe(s.schema))
		} else if ptr, deep := checkSchemaDepth(s.schema.Raw); deep {
			fail("%s", tooDeep(last(s.schemaKeys), ptr))
			tooDeepSchema = true
		} else {
			key := last(s.schemaKeys)
			facts := inspectSchema(s.schema, schemaURL(t.Name))
			if facts.mapped != nil {
				var mapped []string
				t.InputSchema, mapped = mapTypes(s.schema, facts.mapped)
				dialect = DialectBFCL
				warn("BFCL/Gorilla type names mapped to JSON Schema: %s", strings.Join(mapped, ", "))
			} else {
				t.InputSchema = compact(s.schema.Raw)
			}
			checkRoot(gjson.ParseBytes(t.InputSchema), key, fail)
			for _, e := range facts.refErrs {
				fail("%s: %w", key, e)
			}
		}
	}

	// Fail closed without a schema, unless the author opted out on purpose.
	allow := boolean(s.allowNoSchema, "allow_no_schema", false, fail)
	mode := str(s.noSchemaMode, "no_schema_mode", fail)
	validMode := mode == NoSchemaReadOnly || mode == NoSchemaHumanApproval || mode == NoSchemaFull
	switch {
	case t.InputSchema != nil:
		if allow {
			warn(`tool %q has a schema, so "allow_no_schema" is ignored`, t.Name)
		}
		if mode != "" && !validMode {
			fail(`"no_schema_mode" %q is not one of read-only, human-approval, full`, mode)
		}
	case len(s.schemaKeys) > 0 && !s.schema.IsObject() && s.schema.Type != gjson.Null, tooDeepSchema:
		// Reported above as a schema of the wrong kind, or too deep.
	case !allow:
		if s.schemaType.Exists() && s.properties.Exists() {
			fail(`no "input_schema": this file looks like a bare JSON Schema; put it under "input_schema" and add "description"`)
		} else {
			fail(`no "input_schema": every tool needs a JSON Schema of its arguments (fail closed); add one, or set "allow_no_schema": true with "no_schema_mode" one of read-only, human-approval, full`)
		}
	case !validMode:
		if mode == "" {
			fail(`"allow_no_schema": true needs "no_schema_mode" set to one of read-only, human-approval, full`)
		} else {
			fail(`"no_schema_mode" %q is not one of read-only, human-approval, full`, mode)
		}
	default:
		t.AllowNoSchema, t.NoSchemaMode = true, mode
	}

	if s.outputSchema.Exists() && s.outputSchema.Type != gjson.Null {
		if !s.outputSchema.IsObject() {
			fail("%q must be a JSON Schema object, found %s", s.outputKey, describe(s.outputSchema))
		} else if ptr, deep := checkSchemaDepth(s.outputSchema.Raw); deep {
			fail("%s", tooDeep(s.outputKey, ptr))
		} else {
			t.OutputSchema = compact(s.outputSchema.Raw)
			for _, e := range inspectSchema(s.outputSchema, schemaURL(t.Name+".output")).refErrs {
				fail("%s: %w", s.outputKey, e)
			}
		}
	}

	// Safety: an explicit "safe" wins; else MCP's annotations decide.
	openWorld := false
	if s.annotations.Exists() && s.annotations.Type != gjson.Null {
		if !s.annotations.IsObject() {
			fail(`"annotations" must be an object (MCP tool annotations), found %s`, describe(s.annotations))
		} else {
			t.Annotations = compact(s.annotations.Raw)
			// MCP's defaults: a tool is not read-only and is destructive
			// unless it says otherwise.
			readOnly := s.annotations.Get("readOnlyHint").Type == gjson.True
			nonDestructive := s.annotations.Get("destructiveHint").Type == gjson.False
			t.Safe = readOnly || nonDestructive
			openWorld = s.annotations.Get("openWorldHint").Type == gjson.True
			if t.Title == "" {
				if title := s.annotations.Get("title"); title.Type == gjson.String {
					t.Title = title.Str
				}
			}
		}
	}
	t.Safe = boolean(s.safe, "safe", t.Safe, fail)
	if s.strict.Exists() && s.strict.Type != gjson.Null {
		t.Strict, t.StrictSet = boolean(s.strict, "strict", false, fail), true
	}

	t.Timeout = timeout(s.timeout, fail)
	t.Tags = stringList(s.tags, "tags", fail)
	// MCP's openWorldHint says what our network tag says, so that
	// --local-only leaves such a tool out too.
	if openWorld && !slices.Contains(t.Tags, TagNetwork) {
		t.Tags = append(t.Tags, TagNetwork)
	}
	t.Requires = stringList(s.requires, "requires", fail)
	t.Env = stringList(s.env, "env", fail)
	for _, name := range t.Env {
		if strings.ContainsAny(name, "= \t") {
			fail(`"env" entry %q is not a variable name; list names only, the values come from the environment`, name)
		}
	}
	t.Platforms = stringList(s.platforms, "platforms", fail)
	for _, p := range t.Platforms {
		if msg := checkPlatform(p); msg != "" {
			fail(`"platforms" entry %q: %s`, p, msg)
		}
	}
	t.Command = str(s.command, "command", fail)
	if s.command.Exists() && t.Command == "" {
		fail(`"command" is empty; give the executable's path relative to the sidecar, or remove the key`)
	}
	t.Examples = examples(s.examples, fail)
	t.MCPFields = s.mcpFields

	// The dialect, for messages and for tools that care where a
	// definition came from.
	if dialect == "" {
		switch key := last(s.schemaKeys); {
		case key == "inputSchema" || s.outputKey == "outputSchema" || s.annotations.Exists():
			dialect = DialectMCP
		case key == "parameters":
			dialect = DialectOpenAI
		case key == "input_schema" && !s.ours:
			dialect = DialectAnthropic
		default:
			dialect = DialectToolcall
		}
	}
	t.Dialect = dialect
	return done()
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

// tooDeep words the error for a schema nested deeper than MaxSchemaDepth.
func tooDeep(key, ptr string) string {
	return fmt.Sprintf("%q is nested more than %d levels deep (at %s); toolcall refuses such schemas, as compiling them takes too long: flatten it, or define a repeated part once under \"$defs\" and refer to it with \"$ref\"",
		key, MaxSchemaDepth, truncateText(ptr, 120))
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
		fail(`"timeout" must be a duration like "20s" or a number of seconds, found %s`, describe(v))
		return 0
	}
	if d < 0 {
		fail(`"timeout" %s is negative; give a positive duration, or leave it out for the default`, v.Raw)
		return 0
	}
	return d
}

// examples reads "examples": each entry is {"arguments": {...}} (optionally
// with "description", "title" or "output" beside it), or the arguments object
// itself.
func examples(v gjson.Result, fail func(string, ...any)) [][]byte {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		fail(`"examples" must be an array of argument objects, found %s`, describe(v))
		return nil
	}
	var out [][]byte
	i := 0
	v.ForEach(func(_, e gjson.Result) bool {
		args := e
		if e.IsObject() && isWrapper(e) {
			args = e.Get("arguments")
			if args.Type == gjson.String && gjson.Valid(args.Str) {
				args = gjson.Parse(args.Str) // OpenAI writes arguments as a JSON string
			}
		}
		if !args.IsObject() {
			fail(`"examples"[%d] must be an arguments object or {"arguments": {...}}, found %s`, i, describe(args))
		} else {
			out = append(out, compact(args.Raw))
		}
		i++
		return true
	})
	return out
}

// isWrapper reports whether an example is {"arguments": ...} plus notes,
// rather than the arguments themselves.
func isWrapper(e gjson.Result) bool {
	wrapper := false
	e.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "arguments":
			wrapper = true
		case "description", "title", "output", "result", "comment":
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
		fail("%q must be a string, found %s", key, describe(v))
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
		fail("%q must be true or false, found %s", key, describe(v))
	}
	return def
}

// stringList reads an array of non-empty strings.
func stringList(v gjson.Result, key string, fail func(string, ...any)) []string {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		fail("%q must be an array of strings, found %s", key, describe(v))
		return nil
	}
	var out []string
	v.ForEach(func(_, e gjson.Result) bool {
		if e.Type != gjson.String || e.Str == "" {
			fail("%q must hold non-empty strings, found %s", key, describe(e))
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
	return AppendCompact(make([]byte, 0, len(raw)), raw)
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

// toolKeys are the keys that only a tool definition has: the schema under
// any of its names, OpenAI's "function", MCP's, and our own. "name",
// "title", "description" and "type" are not among them: package.json has
// them too. A pasted list ("tools") or JSON-RPC response ("jsonrpc")
// counts, so that loading it says what to do with it.
var toolKeys = []string{
	"input_schema", "parameters", "inputSchema", "function", "output_schema",
	"outputSchema", "annotations", "safe", "timeout", "tags", "examples",
	"allow_no_schema", "no_schema_mode", "requires", "platforms", "env",
	"command", "tools", "jsonrpc",
}

// MeansATool reports whether data, a .json file found in a tools
// directory, sets out to define a tool: anything but a JSON object, or an
// object with one of the keys only a tool definition has. A file that does
// not (package.json, tsconfig.json) is no sidecar, unless an executable
// beside it says otherwise; the loader decides that. A file that is not
// valid JSON sets out to be a tool when a tool key appears in it quoted.
func MeansATool(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !gjson.ValidBytes(data) {
		for _, k := range toolKeys {
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
		found = slices.Contains(toolKeys, k.Str)
		return !found
	})
	return found
}
