package catalog

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/mcpclient"
)

// The output formats of Render.
const (
	FormatJSONL     = "jsonl"
	FormatOpenAI    = "openai"
	FormatAnthropic = "anthropic"
	FormatOllama    = "ollama"
	FormatMCP       = "mcp"
	FormatPrompt    = "prompt"
)

// The styles of the prompt format: the syntax the model is told to call
// tools in.
const (
	StyleJSONL    = "jsonl"
	StyleXML      = "xml"
	StyleMarkdown = "markdown"
)

// Formats lists the output formats, the default first; Styles the prompt
// styles, the default first.
var (
	Formats = []string{FormatJSONL, FormatOpenAI, FormatAnthropic, FormatOllama, FormatMCP, FormatPrompt}
	Styles  = []string{StyleJSONL, StyleXML, StyleMarkdown}
)

// RenderOptions says how Render writes the tools.
type RenderOptions struct {
	Format string // one of Formats; "" is jsonl
	Style  string // one of Styles, for the prompt format; "" is jsonl
	// PageSize > 0 makes the mcp format list that many tools and give a
	// nextCursor when more follow; Cursor, from a previous nextCursor,
	// says where to go on.
	PageSize int
	Cursor   string
}

// openObject stands in for the schema of a tool registered without one
// where a provider requires a schema (openai, anthropic, ollama, mcp): any
// object. The call is still marked validated: false by validate.
const openObject = `{"type":"object"}`

// Render writes picked in the format opts ask for. Every format is
// deterministic, compact JSON with keys in a fixed order (or, for prompt,
// plain text), and every line ends with a newline.
//
//   - jsonl: one tool event per line, keys in this order: type, name,
//     title*, description, input_schema (null for a tool without a schema),
//     command ("" for an MCP server's tool), mcp_source* (which server:
//     its sidecar, or the --mcp command), safe, tags, timeout*, retries*, output_schema*, annotations*, the MCP
//     fields passed through (execution*, icons*, _meta*), examples*,
//     allow_no_schema* and no_schema_mode*, strict*, requires*, platforms*,
//     env*, then score and reason when the tools were ranked. Keys marked *
//     appear only when the tool has them. It is the form that keeps every
//     part of a definition: read as a sidecar, an event gives the same tool.
//   - openai: one line, the Chat Completions "tools" array:
//     {"type":"function","function":{"name","description","parameters","strict"*}}.
//   - anthropic: one line, an array of {"name","description","input_schema","strict"*}.
//   - ollama: one line, an array like openai's, without strict, and with
//     the parameters cut to what Ollama's API types carry: what else the
//     schema says is added to the descriptions in words (see ollama.go).
//   - mcp: one line, a tools/list result:
//     {"tools":[{"name","title"*,"description","inputSchema","outputSchema"*,"annotations","execution"*,"icons"*,"_meta"*}],"nextCursor"*}.
//   - prompt: the system-prompt text for a model without native tool calls
//     (see prompt.go).
//
// openai and anthropic get the provider-safe name (Catalog.ProviderName);
// the others the tool's own name. Schemas are written as the sidecar had
// them, with the insignificant white space removed; a tool without one gets
// {"type":"object"} in the formats that require a schema. mcp annotations
// are the sidecar's when it had them, else made from the tool's safe flag
// and network tag.
func Render(w io.Writer, c *Catalog, picked []Ranked, opts RenderOptions) error {
	format := opts.Format
	if format == "" {
		format = FormatJSONL
	}
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("unknown format %q: use one of %s", opts.Format, strings.Join(Formats, ", "))
	}
	if format != FormatMCP && (opts.PageSize != 0 || opts.Cursor != "") {
		return fmt.Errorf("a page size or cursor applies only to the mcp format, not %s", format)
	}
	if opts.PageSize < 0 {
		return fmt.Errorf("page size %d is negative: give 0 (no pages) or more", opts.PageSize)
	}
	var b []byte
	switch format {
	case FormatJSONL:
		for _, r := range picked {
			b = appendToolEvent(b, r)
			b = append(b, '\n')
		}
	case FormatOpenAI, FormatOllama:
		b = append(b, '[')
		for i, r := range picked {
			if i > 0 {
				b = append(b, ',')
			}
			name := r.Tool.Name
			if format == FormatOpenAI {
				name = providerName(c, r.Tool)
			}
			b = append(b, `{"type":"function","function":{"name":`...)
			b = jsonw.AppendString(b, name)
			if format == FormatOllama {
				b = appendOllamaFunction(b, r.Tool)
				b = append(b, "}}"...)
				continue
			}
			b = append(b, `,"description":`...)
			b = jsonw.AppendString(b, r.Tool.Description)
			b = append(b, `,"parameters":`...)
			b = appendSchema(b, r.Tool.InputSchema, openObject)
			if format == FormatOpenAI && r.Tool.StrictSet {
				b = append(b, `,"strict":`...)
				b = strconv.AppendBool(b, r.Tool.Strict)
			}
			b = append(b, "}}"...)
		}
		b = append(b, "]\n"...)
	case FormatAnthropic:
		b = append(b, '[')
		for i, r := range picked {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsonw.AppendString(b, providerName(c, r.Tool))
			b = append(b, `,"description":`...)
			b = jsonw.AppendString(b, r.Tool.Description)
			b = append(b, `,"input_schema":`...)
			b = appendSchema(b, r.Tool.InputSchema, openObject)
			if r.Tool.StrictSet {
				b = append(b, `,"strict":`...)
				b = strconv.AppendBool(b, r.Tool.Strict)
			}
			b = append(b, '}')
		}
		b = append(b, "]\n"...)
	case FormatMCP:
		var err error
		if b, err = appendMCP(b, picked, opts); err != nil {
			return err
		}
	case FormatPrompt:
		style, err := PromptStyle(opts.Style)
		if err != nil {
			return err
		}
		b = appendPrompt(b, picked, style)
	}
	_, err := w.Write(b)
	return err
}

func providerName(c *Catalog, t *tools.Tool) string {
	if c == nil {
		return t.Name
	}
	return c.ProviderName(t)
}

// appendToolEvent appends r as a tool event (key order at Render).
func appendToolEvent(b []byte, r Ranked) []byte {
	t := r.Tool
	b = append(b, `{"type":"tool","name":`...)
	b = jsonw.AppendString(b, t.Name)
	if t.Title != "" {
		b = append(b, `,"title":`...)
		b = jsonw.AppendString(b, t.Title)
	}
	b = append(b, `,"description":`...)
	b = jsonw.AppendString(b, t.Description)
	b = append(b, `,"input_schema":`...)
	b = appendSchema(b, t.InputSchema, "null")
	b = append(b, `,"command":`...)
	b = jsonw.AppendString(b, t.Command)
	if t.Server != nil {
		name := t.Server.String()
		if s, ok := t.Server.(*mcpclient.Server); ok {
			name = s.Name // the sidecar, or the --mcp argument
		}
		b = append(b, `,"mcp_source":`...)
		b = jsonw.AppendString(b, name)
	}
	b = append(b, `,"safe":`...)
	b = strconv.AppendBool(b, t.Safe)
	b = append(b, `,"tags":`...)
	b = jsonw.AppendStrings(b, t.Tags)
	if t.Timeout > 0 {
		b = append(b, `,"timeout":`...)
		b = jsonw.AppendString(b, t.Timeout.String())
	}
	if t.RetriesSet {
		b = strconv.AppendInt(append(b, `,"retries":`...), int64(t.Retries), 10)
	}
	if len(t.OutputSchema) > 0 {
		b = append(b, `,"output_schema":`...)
		b = jsonw.AppendCompact(b, t.OutputSchema)
	}
	if len(t.Annotations) > 0 {
		b = append(b, `,"annotations":`...)
		b = jsonw.AppendCompact(b, t.Annotations)
	}
	b = appendRawFields(b, t.MCPFields)
	if len(t.Examples) > 0 {
		b = append(b, `,"examples":[`...)
		for i, e := range t.Examples {
			if i > 0 {
				b = append(b, ',')
			}
			// An example with a request keeps it, in the sidecar's
			// wrapper form, so that the event reads back the same.
			if i < len(t.ExampleRequests) && t.ExampleRequests[i] != "" {
				b = append(b, `{"request":`...)
				b = jsonw.AppendString(b, t.ExampleRequests[i])
				b = append(b, `,"arguments":`...)
				b = jsonw.AppendCompact(b, e)
				b = append(b, '}')
				continue
			}
			b = jsonw.AppendCompact(b, e)
		}
		b = append(b, ']')
	}
	if t.InputSchema == nil && t.NoSchemaMode != "" {
		// allow_no_schema too, so that the event read as a sidecar
		// registers the tool the same way.
		b = append(b, `,"allow_no_schema":true,"no_schema_mode":`...)
		b = jsonw.AppendString(b, t.NoSchemaMode)
	}
	if t.StrictSet {
		b = append(b, `,"strict":`...)
		b = strconv.AppendBool(b, t.Strict)
	}
	for _, l := range []struct {
		key  string
		list []string
	}{{"requires", t.Requires}, {"platforms", t.Platforms}, {"env", t.Env}} {
		if len(l.list) > 0 {
			b = append(b, ',')
			b = jsonw.AppendString(b, l.key)
			b = append(b, ':')
			b = jsonw.AppendStrings(b, l.list)
		}
	}
	if r.Scored {
		b = append(b, `,"score":`...)
		b = strconv.AppendFloat(b, r.Score, 'f', -1, 64)
		b = append(b, `,"reason":`...)
		b = jsonw.AppendString(b, r.Reason)
	}
	return append(b, '}')
}

// appendMCP appends a tools/list result, paginated as opts ask.
func appendMCP(b []byte, picked []Ranked, opts RenderOptions) ([]byte, error) {
	page, next := picked, ""
	if opts.PageSize > 0 || opts.Cursor != "" {
		names := make([]string, len(picked))
		for i, r := range picked {
			names[i] = r.Tool.Name
		}
		off := 0
		if opts.Cursor != "" {
			var err error
			if off, err = decodeCursor(opts.Cursor, names); err != nil {
				return nil, err
			}
		}
		end := len(picked)
		if opts.PageSize > 0 && off+opts.PageSize < end {
			end = off + opts.PageSize
			next = encodeCursor(end, names)
		}
		page = picked[off:end]
	}
	b = append(b, `{"tools":[`...)
	for i, r := range page {
		t := r.Tool
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonw.AppendString(b, t.Name)
		if t.Title != "" {
			b = append(b, `,"title":`...)
			b = jsonw.AppendString(b, t.Title)
		}
		b = append(b, `,"description":`...)
		b = jsonw.AppendString(b, t.Description)
		b = append(b, `,"inputSchema":`...)
		b = appendSchema(b, t.InputSchema, openObject)
		if len(t.OutputSchema) > 0 {
			b = append(b, `,"outputSchema":`...)
			b = jsonw.AppendCompact(b, t.OutputSchema)
		}
		b = appendAnnotations(b, t)
		b = appendRawFields(b, t.MCPFields)
		b = append(b, '}')
	}
	b = append(b, ']')
	if next != "" {
		b = append(b, `,"nextCursor":`...)
		b = jsonw.AppendString(b, next)
	}
	return append(b, "}\n"...), nil
}

// appendAnnotations appends the tool's MCP annotations, with their key:
// the sidecar's as written, or else only what the sidecar does claim:
// destructiveHint for a tool marked "safe": false and openWorldHint for one
// tagged network. A tool that merely did not say it has side effects is not
// advertised as read-only, since an MCP client may trust the hint.
func appendAnnotations(b []byte, t *tools.Tool) []byte {
	if len(t.Annotations) > 0 {
		b = append(b, `,"annotations":`...)
		return jsonw.AppendCompact(b, t.Annotations)
	}
	unsafe, network := !t.Safe, slices.Contains(t.Tags, tools.TagNetwork)
	switch {
	case unsafe && network:
		b = append(b, `,"annotations":{"destructiveHint":true,"openWorldHint":true}`...)
	case unsafe:
		b = append(b, `,"annotations":{"destructiveHint":true}`...)
	case network:
		b = append(b, `,"annotations":{"openWorldHint":true}`...)
	}
	return b
}

// ErrBadCursor is the error of a cursor that is not a nextCursor of the
// same listing.
var ErrBadCursor = errors.New("bad cursor")

// An mcp cursor is base64url("<offset>.<check>"), the check being the first
// 8 hex digits of the SHA-256 of the offset and the names of the whole
// listing. A cursor thus works only for the listing it came from: if the
// tools or the selection change, the client is told to start again rather
// than being given a page that skips or repeats tools.
func encodeCursor(off int, names []string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(off) + "." + cursorCheck(off, names)))
}

func decodeCursor(cursor string, names []string) (int, error) {
	bad := fmt.Errorf("%w %q: it is not a nextCursor from this tool list (the tools or the selection changed, or it was cut); list again without a cursor", ErrBadCursor, cursor)
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, bad
	}
	offText, check, ok := strings.Cut(string(raw), ".")
	off, err := strconv.Atoi(offText)
	if !ok || err != nil || off <= 0 || off >= len(names) || check != cursorCheck(off, names) {
		return 0, bad
	}
	return off, nil
}

func cursorCheck(off int, names []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d", off)
	for _, n := range names {
		h.Write([]byte{0})
		h.Write([]byte(n))
	}
	return hex.EncodeToString(h.Sum(nil)[:4])
}

// appendRawFields appends each field as a key of the object being written.
func appendRawFields(b []byte, fs []tools.RawField) []byte {
	for _, f := range fs {
		b = append(b, ',')
		b = jsonw.AppendString(b, f.Key)
		b = append(b, ':')
		b = jsonw.AppendCompact(b, f.Value)
	}
	return b
}

// appendSchema appends schema compacted, or ifNone when there is none.
func appendSchema(b, schema []byte, ifNone string) []byte {
	if len(schema) == 0 {
		return append(b, ifNone...)
	}
	return jsonw.AppendCompact(b, schema)
}
