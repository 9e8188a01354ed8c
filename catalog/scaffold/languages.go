package scaffold

import (
	"fmt"
	"go/format"
	"strings"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// language is how a tool is written in one language.
type language struct {
	ext      string   // the executable's extension
	requires []string // commands the tool needs on PATH, for the sidecar
	source   func(Spec) []byte
}

var languages = map[string]language{
	"sh":     {ext: ".sh", source: shSource},
	"python": {ext: ".py", requires: []string{"python3"}, source: pythonSource},
	"node":   {ext: ".js", requires: []string{"node"}, source: nodeSource},
	"go":     {source: goSourceText},
}

// about is the comment every template starts with: what the program is
// given and what it is to do, behind the language's comment marker.
func about(spec Spec, marker string) string {
	desc := strings.Join(strings.Fields(spec.Description), " ")
	if desc == "" {
		desc = "a toolcall tool."
	}
	lines := []string{
		spec.Name + ": " + desc,
		"",
		"toolcall runs this with the arguments as one line of JSON on stdin,",
		"already checked against the input_schema in " + spec.Name + ".json, so",
		"nothing needs checking again. For example:",
		"    " + string(example(spec.Params)),
		"Whatever it prints on stdout is the result the model reads. To report",
		"a failure, print why on stderr and exit non-zero.",
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(marker+" "+l, " ") + "\n")
	}
	return b.String()
}

func shSource(spec Spec) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString(about(spec, "#"))
	if len(spec.Params) > 0 {
		p := spec.Params[0].Name
		fmt.Fprintf(&b, "#\n# Read a field with jq, if it is installed:\n#     %s=$(printf '%%s' \"$args\" | jq -r .%s)\n", p, p)
	}
	b.WriteString("set -eu\n\nargs=$(cat)\n\n# Replace this with the tool's work.\nprintf '%s\\n' \"$args\"\n")
	return []byte(b.String())
}

// keyValues writes one line per parameter, "key": value, with value
// reading the argument in the language (get) and a comment on optional
// ones.
func keyValues(b *strings.Builder, params []Param, indent, comment string, get func(key string, optional bool) string) {
	for _, p := range params {
		key := string(jsonw.AppendString(nil, p.Name))
		fmt.Fprintf(b, "%s%s: %s,", indent, key, get(key, p.Optional))
		if p.Optional {
			b.WriteString(comment + " optional")
		}
		b.WriteString("\n")
	}
}

func pythonSource(spec Spec) []byte {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env python3\n")
	b.WriteString(about(spec, "#"))
	b.WriteString("import json\nimport sys\n\n\ndef main():\n    args = json.load(sys.stdin)\n\n    # Replace this with the tool's work.\n    result = {\n")
	keyValues(&b, spec.Params, "        ", "  #", func(key string, optional bool) string {
		if optional {
			return "args.get(" + key + ")"
		}
		return "args[" + key + "]"
	})
	b.WriteString("    }\n    json.dump(result, sys.stdout)\n    print()\n\n\nif __name__ == \"__main__\":\n    main()\n")
	return []byte(b.String())
}

func nodeSource(spec Spec) []byte {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env node\n")
	b.WriteString(about(spec, "//"))
	b.WriteString("\"use strict\";\n\nconst chunks = [];\nprocess.stdin.on(\"data\", (chunk) => chunks.push(chunk));\nprocess.stdin.on(\"end\", () => {\n")
	b.WriteString("  const args = JSON.parse(Buffer.concat(chunks).toString(\"utf8\"));\n\n  // Replace this with the tool's work.\n  const result = {\n")
	keyValues(&b, spec.Params, "    ", " //", func(key string, optional bool) string {
		if optional {
			return "args[" + key + "] ?? null"
		}
		return "args[" + key + "]"
	})
	b.WriteString("  };\n  console.log(JSON.stringify(result));\n});\n")
	return []byte(b.String())
}

// goTypes are the Go types of the parameter types, and of optional ones.
var goTypes = map[string][2]string{
	"string":  {"string", "*string"},
	"integer": {"int64", "*int64"},
	"number":  {"float64", "*float64"},
	"boolean": {"bool", "*bool"},
	"array":   {"[]string", "[]string"},
	"object":  {"map[string]any", "map[string]any"},
}

func goSourceText(spec Spec) []byte {
	var b strings.Builder
	// "Command NAME is a toolcall tool: DESCRIPTION", or without one
	// just the first part, not "a toolcall tool: a toolcall tool."
	head := "// Command " + spec.Name + " is a toolcall tool: "
	if strings.TrimSpace(spec.Description) == "" {
		head = "// Command " + spec.Name + " is "
	}
	b.WriteString(strings.Replace(about(spec, "//"), "// "+spec.Name+": ", head, 1))
	fmt.Fprintf(&b, "//\n// Build it in the tools directory, beside %s.json, with:\n//\n//\tgo build -o %s %s\n", spec.Name, spec.Name, goSource(spec.Name))
	b.WriteString("package main\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"os\"\n)\n\n")
	fmt.Fprintf(&b, "// arguments are the tool's arguments, as %s.json describes them.\ntype arguments struct {\n", spec.Name)
	used := map[string]bool{}
	for _, p := range spec.Params {
		field := goField(p.Name, used)
		typ := goTypes[p.Type][0]
		tag := p.Name
		comment := ""
		if p.Optional {
			typ = goTypes[p.Type][1]
			tag += ",omitempty"
			comment = " // optional: nil when not given"
		}
		fmt.Fprintf(&b, "\t%s %s `json:%q`%s\n", field, typ, tag, comment)
	}
	b.WriteString("}\n\nfunc main() {\n\tvar args arguments\n\tif err := json.NewDecoder(os.Stdin).Decode(&args); err != nil {\n")
	fmt.Fprintf(&b, "\t\tfmt.Fprintln(os.Stderr, %q, err)\n\t\tos.Exit(1)\n\t}\n\n", spec.Name+": reading the arguments:")
	b.WriteString("\t// Replace this with the tool's work.\n\tresult := args\n\tif err := json.NewEncoder(os.Stdout).Encode(result); err != nil {\n")
	fmt.Fprintf(&b, "\t\tfmt.Fprintln(os.Stderr, %q, err)\n\t\tos.Exit(1)\n\t}\n}\n", spec.Name+":")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		panic(fmt.Sprintf("scaffold: the go template does not compile (a bug): %v\n%s", err, b.String()))
	}
	return src
}

// goField is an exported Go field name for a parameter: city -> City,
// max_results -> MaxResults, numbered when two would be the same.
func goField(name string, used map[string]bool) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	f := b.String()
	if f == "" || f[0] >= '0' && f[0] <= '9' {
		f = "P" + f
	}
	base := f
	for n := 2; used[f]; n++ {
		f = fmt.Sprintf("%s%d", base, n)
	}
	used[f] = true
	return f
}
