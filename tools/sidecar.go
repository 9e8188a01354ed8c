package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/phrase"
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
