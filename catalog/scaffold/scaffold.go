// Package scaffold writes a new tool into a tools directory: an executable
// that reads its arguments and prints a result, in the language asked for,
// and a sidecar whose schema and example come from the parameters given.
// The tool it writes answers its example, and passes catalog.Check once
// the author has replaced the placeholders it leaves (Result.ToDo): the
// description when none was given, the "example" values; nothing it does
// needs the network.
package scaffold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/launch"
	"github.com/toolcall/toolcall/tools"
)

// Languages are the languages a tool can be written in, the default first.
var Languages = []string{"sh", "python", "go", "node"}

// paramTypes are the JSON Schema types a parameter can have.
var paramTypes = []string{"string", "integer", "number", "boolean", "array", "object"}

// Spec says what tool to write.
type Spec struct {
	Name        string
	Lang        string // one of Languages; "": sh
	Dir         string // the tools directory; created if missing
	Description string // "": a sentence asking for one
	Params      []Param
	Unsafe      bool // the tool has side effects: "safe": false
}

// Param is one parameter of the tool's arguments.
type Param struct {
	Name        string
	Type        string // one of paramTypes
	Description string
	Optional    bool
}

// Result is what Write did.
type Result struct {
	Files   []string // the paths written, the sidecar first
	Example []byte   // the example's arguments, compact JSON
	// Problems are what catalog --check found wrong with the new tool;
	// with one, the tool is written but will not be offered.
	Problems []catalog.Problem
	// ToDo are the placeholders Write left for the author to replace
	// (catalog.Problem.Placeholder): catalog --check fails on them until
	// then, but the tool runs.
	ToDo []catalog.Problem
}

// InputError is a request Write refuses before writing anything: a bad
// name, parameter or language, or a file that is already there.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func refuse(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// ParseParam reads a --param value: NAME[:TYPE[:DESCRIPTION]], where TYPE
// is one of paramTypes (string when left out) and a "?" after the type, or
// after the name, makes the parameter optional.
func ParseParam(s string) (Param, error) {
	name, rest, _ := strings.Cut(s, ":")
	typ, desc, _ := strings.Cut(rest, ":")
	p := Param{Description: strings.TrimSpace(desc)}
	if n, ok := strings.CutSuffix(name, "?"); ok {
		name, p.Optional = n, true
	}
	if t, ok := strings.CutSuffix(typ, "?"); ok {
		typ, p.Optional = t, true
	}
	p.Name, p.Type = name, typ
	if p.Type == "" {
		p.Type = "string"
	}
	if !validParam(p.Name) {
		return Param{}, refuse("parameter %q: a name is a letter or _ followed by letters, digits and _ (such as city or max_results); write NAME:TYPE:DESCRIPTION", p.Name)
	}
	if !contains(paramTypes, p.Type) {
		return Param{}, refuse("parameter %q: type %q is not one of %s (add ? for an optional one, as in %s:%s?)", p.Name, p.Type, strings.Join(paramTypes, ", "), p.Name, "string")
	}
	return p, nil
}

// validParam keeps parameter names to what every language's template can
// use as a key and Go as a field name's source.
func validParam(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// goBuildTimeout bounds the build of a go tool: a first build fills the
// cache with the standard library, which takes a while on a slow machine.
const goBuildTimeout = 5 * time.Minute

// Write writes the tool spec describes into spec.Dir, then checks it as
// catalog --check would. It refuses (an *InputError) an invalid name or
// parameter, and any file that is there already: nothing is overwritten.
func Write(ctx context.Context, spec Spec) (Result, error) {
	if spec.Lang == "" {
		spec.Lang = Languages[0]
	}
	if err := validate(spec); err != nil {
		return Result{}, err
	}
	l := languages[spec.Lang]
	exe := spec.Name + l.ext
	files := []file{
		{path: spec.Name + ".json", data: sidecar(spec, l), mode: 0o644},
	}
	if spec.Lang == "go" {
		files = append(files, file{path: filepath.Join("src", spec.Name, "main.go"), data: l.source(spec), mode: 0o644})
	} else {
		files = append(files, file{path: exe, data: l.source(spec), mode: 0o755})
	}
	if err := checkFree(spec.Dir, spec.Name, files); err != nil {
		return Result{}, err
	}
	if spec.Lang == "go" {
		if _, err := exec.LookPath("go"); err != nil {
			return Result{}, refuse("--lang go builds the tool with the go command, which is not on PATH: install Go, or choose another language")
		}
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return Result{}, fmt.Errorf("creating the tools directory: %w", err)
	}
	var res Result
	for _, f := range files {
		p := filepath.Join(spec.Dir, f.path)
		if err := writeNew(p, f.data, f.mode); err != nil {
			return res, err
		}
		res.Files = append(res.Files, p)
	}
	if spec.Lang == "go" {
		p := filepath.Join(spec.Dir, spec.Name)
		if err := buildGo(ctx, spec.Dir, spec.Name); err != nil {
			return res, err
		}
		res.Files = append(res.Files, p)
	}
	res.Example = example(spec.Params)
	res.Problems, res.ToDo = check(spec.Dir, res.Files[0], spec.Name)
	return res, nil
}

// validate checks the name, language and parameters.
func validate(spec Spec) error {
	if !tools.ValidName(spec.Name) || strings.HasPrefix(spec.Name, ".") || strings.HasSuffix(spec.Name, ".json") {
		return refuse("%q is not a valid tool name: use 1 to 128 letters, digits, _, . or - (such as get_weather), not starting with a dot", spec.Name)
	}
	if _, ok := languages[spec.Lang]; !ok {
		return refuse("language %q: choose one of %s", spec.Lang, strings.Join(Languages, ", "))
	}
	if spec.Dir == "" {
		return refuse("no tools directory given")
	}
	seen := map[string]bool{}
	for _, p := range spec.Params {
		if seen[p.Name] {
			return refuse("parameter %q is given twice", p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// file is one file to write, relative to the tools directory.
type file struct {
	path string
	data []byte
	mode fs.FileMode
}

// checkFree refuses when any file to write is there already, and when a
// file in dir could be taken for the new tool's executable (name, or name
// with one extension), which would make two.
func checkFree(dir, name string, files []file) error {
	for _, f := range files {
		p := filepath.Join(dir, f.path)
		if _, err := os.Lstat(p); err == nil {
			return refuse("%s exists already: toolcall new overwrites nothing; choose another name, or remove it", p)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "src", name)); err == nil {
		return refuse("%s exists already: toolcall new overwrites nothing; choose another name, or remove it", filepath.Join(dir, "src", name))
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return refuse("tools directory %s: %v", dir, err)
	}
	for _, de := range des {
		n := de.Name()
		if n == name || strings.TrimSuffix(n, filepath.Ext(n)) == name && filepath.Ext(n) != "" {
			return refuse("%s exists already and would be taken for tool %s's program: toolcall new overwrites nothing; choose another name, or remove it", filepath.Join(dir, n), name)
		}
	}
	return nil
}

// writeNew creates path, failing if it exists (even if it appeared since
// checkFree looked).
func writeNew(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return refuse("%s exists already: toolcall new overwrites nothing", path)
		}
		return fmt.Errorf("writing the tool: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// The umask may have taken the executable bits away.
	return os.Chmod(path, mode)
}

// buildGo builds src/NAME/main.go into the executable NAME, as the
// source's comment tells a person to. GOTOOLCHAIN=local: a build never
// downloads a toolchain.
func buildGo(ctx context.Context, dir, name string) error {
	var out bytes.Buffer
	env := append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=")
	r := launch.Run(ctx, launch.Spec{
		Path: "go", LookPath: true, Dir: dir, Env: env,
		Args:    []string{"build", "-o", name, goSource(name)},
		Stdout:  &out,
		Stderr:  &out,
		Timeout: goBuildTimeout,
	})
	switch {
	case r.StartErr != nil:
		return fmt.Errorf("building the tool with go: %w", r.StartErr)
	case r.TimedOut:
		return fmt.Errorf("building the tool with go took more than %s; build it yourself in %s with: go build -o %s %s", goBuildTimeout, dir, name, goSource(name))
	case r.Interrupted:
		return ctx.Err()
	case r.ExitCode != 0:
		return fmt.Errorf("go build failed: %s", strings.TrimSpace(out.String()))
	}
	return nil
}

// goSource is the go tool's source, relative to the tools directory.
func goSource(name string) string {
	return "./" + filepath.ToSlash(filepath.Join("src", name, "main.go"))
}

// check lists what catalog --check finds wrong with the tool named name
// whose sidecar is file, and apart the placeholders Write left in it; the
// other tools of dir are not its business.
func check(dir, file, name string) (problems, todo []catalog.Problem) {
	all, _ := catalog.Check([]string{dir}, catalog.LoadOptions{})
	for _, p := range all {
		switch {
		case p.File != file && p.Tool != name:
		case p.Placeholder:
			todo = append(todo, p)
		default:
			problems = append(problems, p)
		}
	}
	return problems, todo
}

// example is an arguments object with a value of the right type for every
// parameter.
func example(params []Param) []byte {
	b := []byte{'{'}
	for i, p := range params {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, p.Name)
		b = append(b, ':')
		b = append(b, exampleValue(p.Type)...)
	}
	return append(b, '}')
}

func exampleValue(typ string) string {
	switch typ {
	case "integer":
		return "1"
	case "number":
		return "1.5"
	case "boolean":
		return "true"
	case "array":
		return "[" + string(jsonw.AppendString(nil, catalog.PlaceholderValue)) + "]"
	case "object":
		return "{}"
	}
	return string(jsonw.AppendString(nil, catalog.PlaceholderValue))
}

// schemaOf is the JSON Schema of one parameter.
func schemaOf(p Param) []byte {
	b := []byte(`{"type":`)
	b = jsonw.AppendString(b, p.Type)
	if p.Type == "array" {
		// OpenAI refuses an array schema without items.
		b = append(b, `,"items":{"type":"string"}`...)
	}
	if p.Description != "" {
		b = append(b, `,"description":`...)
		b = jsonw.AppendString(b, p.Description)
	}
	return append(b, '}')
}

// sidecar is the tool's sidecar, indented for a person to edit.
func sidecar(spec Spec, l language) []byte {
	desc := spec.Description
	if desc == "" {
		desc = catalog.PlaceholderDescription(spec.Name)
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"description\": ")
	b.Write(jsonw.AppendString(nil, desc))
	b.WriteString(",\n  \"input_schema\": {\n    \"type\": \"object\",\n    \"properties\": {")
	var required []string
	for i, p := range spec.Params {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n      ")
		b.Write(jsonw.AppendString(nil, p.Name))
		b.WriteString(": ")
		b.Write(schemaOf(p))
		if !p.Optional {
			required = append(required, string(jsonw.AppendString(nil, p.Name)))
		}
	}
	if len(spec.Params) > 0 {
		b.WriteString("\n    ")
	}
	b.WriteString("},\n")
	if len(required) > 0 {
		b.WriteString("    \"required\": [" + strings.Join(required, ", ") + "],\n")
	}
	b.WriteString("    \"additionalProperties\": false\n  },\n")
	fmt.Fprintf(&b, "  \"safe\": %t,\n", !spec.Unsafe)
	if len(l.requires) > 0 {
		b.WriteString("  \"requires\": [")
		for i, r := range l.requires {
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(jsonw.AppendString(nil, r))
		}
		b.WriteString("],\n")
	}
	// The request is left for the author: words a person would use to
	// ask for this call, which ranking reads. Words made up here would
	// match every request that happened to share them.
	b.WriteString("  \"examples\": [{\"request\": \"\", \"arguments\": ")
	b.Write(example(spec.Params))
	b.WriteString("}]\n}\n")
	return b.Bytes()
}
