package catalog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
)

// Problem is one thing wrong with a tools directory, for catalog --check.
type Problem struct {
	File    string // the sidecar, or the directory
	Tool    string // the tool's name, when known
	Message string
	// Placeholder marks what toolcall new wrote for the author to
	// replace: its description asking for one, its "example" values.
	Placeholder bool
}

// PlaceholderDescription is the description toolcall new writes for the
// tool named name when given none; --check fails on it until it is
// replaced, since a model chooses a tool by its description.
func PlaceholderDescription(name string) string {
	return "Say here what " + name + " does and when a model should call it."
}

// PlaceholderValue is the string toolcall new puts in its example for
// each string the schema asks for; --check fails on it until the example
// holds values a real call would have, which ranking reads.
const PlaceholderValue = "example"

// String is "file: tool: message", or "file: message" without a tool.
func (p Problem) String() string {
	if p.Tool == "" {
		return p.File + ": " + p.Message
	}
	return p.File + ": " + p.Tool + ": " + p.Message
}

// Check lints the tool directories dirs and keeps going past every problem,
// so one run lists them all: unreadable directories, invalid sidecars
// (remote refs and bad names included), schemas that do not compile,
// executables missing, not executable or ambiguous, duplicate names,
// examples that fail their own schema, aliases that stand for no
// property or enum value of it, and keys that mean nothing where they
// stand (Tool.StrayKeys). Tools that are fine but cannot run
// here (a required command missing, another platform) are not problems;
// they come back in skipped, with the reason, as do .json files that are
// not sidecars (package.json) and so are skipped; those have no Tool. A
// directory without a tool is a problem. Both lists are in directory
// order, then by file name. Sidecar warnings go to opts.Warn, as does a
// note for each schema without "$schema" that is read as draft-07.
func Check(dirs []string, opts LoadOptions) (problems, skipped []Problem) {
	s := scan(dirs, opts)
	for _, d := range append(s.dirErrs, s.emptyDirs()...) {
		msg := strings.TrimPrefix(d.err.Error(), "tools directory "+d.dir)
		problems = append(problems, Problem{File: d.dir, Message: strings.TrimLeft(msg, ": ")})
	}
	// Checking examples compiles schemas, the slow part.
	found := make([][]Problem, len(s.entries))
	parallel(len(s.entries), func(i int) { found[i] = s.entries[i].problems() })
	for i, e := range s.entries {
		if e.notTool {
			skipped = append(skipped, Problem{File: e.file, Message: e.notToolReason()})
			continue
		}
		warn(opts, e.warns...)
		if e.tool != nil && e.schemaErr == nil && e.tool.InputSchema != nil {
			if why := e.tool.LegacyDraft(); why != "" {
				warn(opts, fmt.Sprintf(`%s: tool %q: the input schema has no "$schema" and is not valid draft 2020-12 (%s), so it is read as draft-07; add "$schema": "http://json-schema.org/draft-07/schema#" to say so, or rewrite it for 2020-12`, e.file, e.tool.Name, why))
			}
		}
		problems = append(problems, found[i]...)
		if e.tool != nil && e.skip != "" {
			skipped = append(skipped, Problem{File: e.file, Tool: e.tool.Name, Message: e.skip})
		}
	}
	return problems, skipped
}

// problems lists what is wrong with one sidecar and its tool.
func (e *entry) problems() []Problem {
	if e.notTool {
		return nil
	}
	var ps []Problem
	if e.err != nil {
		for _, err := range unjoin(e.err) {
			var se *tools.SidecarError
			if errors.As(err, &se) {
				ps = append(ps, Problem{File: se.File, Tool: se.Tool, Message: se.Err.Error()})
			} else {
				ps = append(ps, Problem{File: e.file, Message: err.Error()})
			}
		}
		return ps
	}
	if e.server != nil {
		// Its "mcp_server" passed; --check lints files and starts nothing.
		return nil
	}
	t := e.tool
	add := func(msg string) { ps = append(ps, Problem{File: e.file, Tool: t.Name, Message: msg}) }
	for _, msg := range []string{e.exeErr, e.dup, e.missing} {
		if msg != "" {
			add(msg)
		}
	}
	if t.OutputSchema != nil {
		if _, err := t.CompileOutput(); err != nil {
			add("output_schema: " + strings.TrimPrefix(err.Error(), e.file+": "))
		}
	}
	for _, msg := range t.StrayKeys {
		add(msg) // a warning at load; --check holds the directory to more
	}
	ps = append(ps, e.aliasProblems()...)
	if t.InputSchema == nil {
		return ps // registered without a schema on purpose: nothing to compile
	}
	if e.schemaErr != nil {
		add(strings.TrimPrefix(e.schemaErr.Error(), e.file+": "))
		return ps
	}
	if t.Description == PlaceholderDescription(t.Name) {
		ps = append(ps, Problem{File: e.file, Tool: t.Name, Placeholder: true,
			Message: "the description is toolcall new's placeholder: say what the tool does and when a model should call it"})
	}
	for i, ex := range t.Examples {
		if holdsPlaceholder(gjson.ParseBytes(ex)) {
			ps = append(ps, Problem{File: e.file, Tool: t.Name, Placeholder: true,
				Message: fmt.Sprintf("example %d holds toolcall new's placeholder %q: give the values a real call would have", i+1, PlaceholderValue)})
		}
		checked, err := t.CheckArguments(ex, false)
		if err != nil {
			add(fmt.Sprintf("example %d cannot be checked: %v", i+1, err))
			continue
		}
		for _, se := range checked.Errors {
			// The message starts with the pointer.
			add(fmt.Sprintf("example %d does not match the schema: %s (fix the example or the schema)", i+1, se.Message))
		}
	}
	return ps
}

// holdsPlaceholder reports whether v is, or holds, PlaceholderValue.
func holdsPlaceholder(v gjson.Result) bool {
	if v.Type == gjson.String {
		return v.Str == PlaceholderValue
	}
	if !v.IsObject() && !v.IsArray() {
		return false // ForEach would give a scalar itself
	}
	found := false
	v.ForEach(func(_, e gjson.Result) bool {
		found = holdsPlaceholder(e)
		return !found
	})
	return found
}

// unjoin splits an errors.Join result into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
