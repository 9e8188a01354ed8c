package tools

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/editdist"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
)

// List shapes: the ways providers and servers publish several tool
// definitions in one document.
const (
	ListArray   = "a tools array"                  // OpenAI's or Anthropic's "tools", or a list of MCP tools
	ListMCP     = "an MCP tools/list result"       // {"tools": [...]}
	ListJSONRPC = "a JSON-RPC tools/list response" // {"jsonrpc": "2.0", "result": {"tools": [...]}}
	ListBFCL    = "a BFCL entry"                   // {"question": ..., "function": [...]}
)

// listShape finds the list of tool definitions in a document and says
// which shape held it; ok is false when root is none of them.
func listShape(root gjson.Result) (list gjson.Result, shape string, ok bool) {
	switch {
	case root.IsArray():
		if first := root.Get("0"); first.Exists() && !first.IsObject() {
			return gjson.Result{}, "", false // not definitions at all
		}
		return root, ListArray, true
	case !root.IsObject():
		return gjson.Result{}, "", false
	}
	if l := root.Get("result.tools"); root.Get("jsonrpc").Exists() && l.IsArray() {
		return l, ListJSONRPC, true
	}
	if l := root.Get("tools"); l.IsArray() && !root.Get("name").Exists() {
		return l, ListMCP, true
	}
	if l := root.Get("function"); l.IsArray() {
		return l, ListBFCL, true
	}
	return gjson.Result{}, "", false
}

// ParseToolList reads a file that holds several tool definitions as
// providers and servers publish them: an OpenAI or Anthropic "tools"
// array, an MCP tools/list result or the whole JSON-RPC response, or a
// BFCL entry. Each definition is read as a sidecar would be (any dialect),
// and must have a name. The tools have schemas and no executables:
// Command is empty and Definition is set, so they can be listed, parsed
// for and validated, but not run.
//
// It returns the tools in the file's order, the shape found, warnings,
// and an error joining one *SidecarError per problem, each naming the
// file and the definition's place in it ("tools[2]").
func ParseToolList(file string, data []byte) ([]*Tool, string, []string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !gjson.ValidBytes(data) {
		if msg := jsonLinesHint(data); msg != "" {
			return nil, "", nil, &SidecarError{File: file, Err: errors.New(msg)}
		}
		return nil, "", nil, &SidecarError{File: file, Err: fmt.Errorf("%s; fix the JSON syntax", syntaxError(data))}
	}
	list, shape, ok := listShape(gjson.ParseBytes(data))
	if !ok {
		return nil, "", nil, &SidecarError{File: file, Err: errors.New(`not a list of tools: give --tools a directory of sidecars, or a file holding an OpenAI or Anthropic "tools" array, an MCP tools/list result ({"tools": [...]}) or its JSON-RPC response, or a BFCL entry ({"function": [...]})`)}
	}
	var ts []*Tool
	var warns []string
	var errs []error
	i := 0
	list.ForEach(func(_, def gjson.Result) bool {
		where := file + ": " + listPlace(shape) + "[" + strconv.Itoa(i) + "]"
		i++
		if !def.IsObject() {
			errs = append(errs, &SidecarError{File: where, Err: fmt.Errorf("a tool definition must be a JSON object, found %s", phrase.Describe(def))})
			return true
		}
		if !hasName(def) {
			errs = append(errs, &SidecarError{File: where, Err: errors.New(`the definition has no "name"; in a list, every tool must name itself`)})
			return true
		}
		t, w, err := ParseSidecar(where, []byte(def.Raw))
		warns = append(warns, w...)
		if err != nil {
			errs = append(errs, err)
			return true
		}
		t.Definition = true
		ts = append(ts, t)
		return true
	})
	if len(errs) > 0 {
		return nil, shape, warns, errors.Join(errs...)
	}
	if len(ts) == 0 {
		return nil, shape, warns, &SidecarError{File: file, Err: fmt.Errorf("%s holds no tools", shape)}
	}
	return ts, shape, warns, nil
}

// listPlace is how a definition's place in a list is written.
func listPlace(shape string) string {
	switch shape {
	case ListMCP:
		return "tools"
	case ListJSONRPC:
		return "result.tools"
	case ListBFCL:
		return "function"
	}
	return ""
}

// hasName reports whether a definition names its tool, at the top or in
// OpenAI's "function".
func hasName(def gjson.Result) bool {
	if def.Get("name").Type == gjson.String {
		return true
	}
	return def.Get("function.name").Type == gjson.String
}

// jsonLinesHint recognises several JSON values one per line (BFCL's files
// are JSONL) and says what to do, or returns "".
func jsonLinesHint(data []byte) string {
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) < 2 {
		return ""
	}
	for _, l := range lines {
		if !gjson.ValidBytes(bytes.TrimSpace(l)) {
			return ""
		}
	}
	return fmt.Sprintf("the file holds %d JSON values, one per line (JSONL, as BFCL's data files are); give --tools one entry per file, such as one line of it", len(lines))
}

// notRunnable answers a call to a tool that is only a definition (read
// from a list of tools, without an executable): it cannot run here.
func (v *validator) notRunnable(c Call, t *Tool) *Observation {
	names := v.runnable()
	sugg := editdist.Suggest(c.Name, names)
	var sb strings.Builder
	fmt.Fprintf(&sb, "Tool %s is not available here: it is only a definition, from a list of tools, with no program to run it.", jsonw.Quote(c.Name))
	writeChoices(&sb, sugg, names)
	msg := sb.String()
	return refusal(c, KindUnknownTool, msg, msg, suggestionDetails(sugg))
}

// runnable lists the names of the tools that can be run here.
func (v *validator) runnable() []string {
	var out []string
	for _, name := range v.available() {
		if t, ok := v.set.Lookup(name); ok && !t.Definition {
			out = append(out, name)
		}
	}
	return out
}
