package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools/schema"
)

// Result is a tool's stdout turned into what the model reads.
type Result struct {
	// Content is the text for the model; always valid UTF-8.
	Content string
	// IsError is set by an MCP result with "isError": true.
	IsError bool
	// Parts is the MCP content array, compact JSON, when it has a part
	// that is not text (image, audio, resource, resource_link); nil
	// otherwise. Content shows each such part as a placeholder.
	Parts []byte
	// Structured is the structured result, compact JSON: an MCP
	// structuredContent, or the JSON object a tool with an outputSchema
	// printed.
	Structured []byte
	// SchemaErr is a *schema.OutputError when the tool has an outputSchema
	// and its successful result has no structured content or does not
	// match it; nil otherwise.
	SchemaErr error
}

// The keys an MCP CallToolResult may have. An object with any other key
// is some tool's own JSON that happens to have a "content" array, and is
// passed on as text.
var mcpResultKeys = map[string]bool{"content": true, "isError": true, "structuredContent": true, "_meta": true}

// The MCP content types.
var mcpPartTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource": true, "resource_link": true}

// interpretOutput turns a tool's stdout into a Result.
//
// Stdout that is an MCP CallToolResult (an object with a "content" array
// of typed parts, and no keys MCP does not define) is taken as such: the
// text parts, joined by newlines, are the content, and other parts appear
// as placeholders ("[image: image/png, 12.3 KB]"); a structuredContent
// with no text part beside it is shown as its compact JSON. Anything else
// (text, other JSON) is the content as it is, less trailing newlines.
// Truncated output is text, unless it is valid JSON: an MCP result that
// was cut in its text parts (cutMCPText), never a cut through the JSON
// itself, where the cut marker stands. Invalid UTF-8 becomes
// U+FFFD. t may be nil; with an OutputSchema, the structured result is
// checked against it (SchemaErr).
//
// Redaction is separate (redactResult), and best done after this, so
// that secrets are looked for in the decoded strings.
func interpretOutput(t *Tool, stdout []byte, truncated bool) Result {
	if !utf8.Valid(stdout) {
		stdout = bytes.ToValidUTF8(stdout, []byte("\uFFFD"))
	}
	text := string(bytes.TrimRight(stdout, "\r\n"))
	if truncated && !gjson.ValidBytes(stdout) {
		return Result{Content: text}
	}
	obj := bytes.TrimSpace(stdout)
	isObject := len(obj) > 0 && obj[0] == '{' && gjson.ValidBytes(obj)
	var res Result
	mcp := false
	if isObject {
		res, mcp = mcpResult(gjson.ParseBytes(obj))
	}
	if !mcp {
		res = Result{Content: text}
		if isObject && t != nil && t.OutputSchema != nil {
			// A plain JSON object from a tool that declares an output
			// schema is its structured result.
			res.Structured = jsonw.AppendCompact(nil, obj)
		}
	}
	if t != nil && t.OutputSchema != nil && !res.IsError {
		if res.Structured == nil {
			res.SchemaErr = &schema.OutputError{File: t.File, Tool: t.Name,
				Problems: []string{"the tool has an outputSchema but gave no structured result (structuredContent, or a JSON object)"}}
		} else {
			res.SchemaErr = t.CheckOutput(res.Structured)
		}
	}
	return res
}

// isMCP reports whether v has the shape of an MCP CallToolResult.
func isMCP(v gjson.Result) bool {
	content := v.Get("content")
	if !content.IsArray() {
		return false
	}
	ok := true
	v.ForEach(func(k, _ gjson.Result) bool {
		ok = mcpResultKeys[k.Str]
		return ok
	})
	content.ForEach(func(_, p gjson.Result) bool {
		ok = ok && p.IsObject() && mcpPartTypes[p.Get("type").Str] && p.Get("type").Type == gjson.String
		return ok
	})
	return ok
}

// mcpResult interprets an MCP CallToolResult.
func mcpResult(v gjson.Result) (Result, bool) {
	if !isMCP(v) {
		return Result{}, false
	}
	var res Result
	res.IsError = v.Get("isError").Type == gjson.True
	var lines []string
	hasText, other := false, false
	v.Get("content").ForEach(func(_, p gjson.Result) bool {
		switch p.Get("type").Str {
		case "text":
			hasText = true
			lines = append(lines, p.Get("text").Str)
		default:
			other = true
			lines = append(lines, placeholder(p))
		}
		return true
	})
	if other {
		res.Parts = jsonw.AppendCompact(nil, v.Get("content").Raw)
	}
	if sc := v.Get("structuredContent"); sc.Exists() && sc.Type != gjson.Null {
		res.Structured = jsonw.AppendCompact(nil, sc.Raw)
		if !hasText {
			lines = append(lines, string(res.Structured))
		}
	}
	res.Content = strings.Join(lines, "\n")
	return res, true
}

// placeholder is how the model sees a part that is not text. A resource
// that holds text shows that text under its placeholder.
func placeholder(p gjson.Result) string {
	typ := p.Get("type").Str
	switch typ {
	case "image", "audio":
		return "[" + typ + ": " + describeData(p.Get("mimeType").Str, p.Get("data").Str) + "]"
	case "resource":
		r := p.Get("resource")
		uri := r.Get("uri").Str
		if t := r.Get("text"); t.Type == gjson.String {
			return "[resource: " + uri + "]\n" + t.Str
		}
		return "[resource: " + uri + ", " + describeData(r.Get("mimeType").Str, r.Get("blob").Str) + "]"
	case "resource_link":
		s := "[resource link: " + p.Get("uri").Str
		if name := p.Get("name").Str; name != "" {
			s += " (" + name + ")"
		}
		return s + "]"
	}
	return "[" + typ + "]"
}

// describeData says what base64 data holds: its type and decoded size.
func describeData(mime, b64 string) string {
	n := 0
	for i := 0; i < len(b64); i++ {
		if c := b64[i]; c != '=' && c != '\n' && c != '\r' && c != ' ' {
			n++
		}
	}
	size := formatSize(n * 3 / 4)
	if mime == "" {
		return size
	}
	return mime + ", " + size
}

// formatSize is a byte count for people: 512 B, 12.3 KB, 4.0 MB.
func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
