package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The packages of the module in layers, top first. Imports point down
// only: a package may import those of a lower layer, never those of its
// own layer or above. So parse and catalog, which share a layer, never
// import each other, and internal/* imports nothing of ours.
var layers = []struct {
	name     string
	packages []string // paths inside the module; a trailing /... takes every package under it
}{
	{"cmd", []string{"cmd/..."}},
	// Scores a model's calls, running cases through run.
	{"eval", []string{"run/eval"}},
	{"run", []string{"run", "run/mcpserve"}},
	// Built on one of parse or catalog: a model's chat template, read
	// with parse's building blocks; a new tool, checked by catalog.
	{"chattemplate, scaffold", []string{"parse/chattemplate", "catalog/scaffold"}},
	{"parse, catalog", []string{"parse", "catalog"}},
	// The stream's events as values, and the sinks that write them: over
	// the vocabulary (tools.Call, tools.Observation), under every stage.
	{"event", []string{"tools/event"}},
	// The MCP client is a source of tools, as catalog's directories are:
	// it makes tools.Tools, and the executor calls them through
	// tools.Server, so tools knows nothing of MCP.
	{"mcpclient", []string{"tools/mcpclient"}},
	// The JSON repair is a leaf beside tools: parse's, but it knows
	// nothing of calls, formats or events, only lenient JSON.
	{"tools, jsonrepair", []string{"tools", "parse/jsonrepair"}},
	// Two leaves under tools that know nothing of tools, calls or
	// events, nor of each other: redaction knows strings and JSON (the
	// executor, the loop's transcript and cmd's messages all redact
	// through it); schema checking, the schemas the tools hold.
	{"redact, schema", []string{"tools/redact", "tools/schema"}},
	{"internal", []string{"internal/..."}},
}

// Below cmd/ nothing knows about flags or terminals.
var cmdOnly = []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/mattn/go-isatty"}

// Below run/ nothing opens a network connection; net/url is only parsing.
var runOnly = []string{"net", "net/http"}

type listedPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
}

// TestLayers fails when an import points up or across the package graph
// that docs/development.md draws, so a shortcut taken in a hurry shows at once.
func TestLayers(t *testing.T) {
	pkgs := listModule(t)
	module := modulePath(pkgs)
	inModule := func(p string) (string, bool) {
		rel, ok := strings.CutPrefix(p, module+"/")
		return rel, ok
	}

	layerOf := func(rel string) int {
		for i, l := range layers {
			for _, pat := range l.packages {
				if base, ok := strings.CutSuffix(pat, "/..."); ok {
					if rel == base || strings.HasPrefix(rel, base+"/") {
						return i
					}
				} else if rel == pat {
					return i
				}
			}
		}
		return -1
	}

	for _, p := range pkgs {
		rel, ok := inModule(p.ImportPath)
		if !ok {
			continue
		}
		from := layerOf(rel)
		if from < 0 {
			t.Errorf("%s: not in the layer table of layers_test.go; add it to the layer it belongs to", rel)
			continue
		}
		// The package's tests are held to the same rule: a test of
		// parse that needs catalog belongs a layer up.
		imports := slices.Concat(p.Imports, p.TestImports, p.XTestImports)
		for _, imp := range imports {
			irel, ok := inModule(imp)
			if !ok || irel == rel {
				continue
			}
			to := layerOf(irel)
			if to >= 0 && to <= from {
				t.Errorf("%s (layer %s) imports %s (layer %s): imports point down only: cmd -> run -> {parse, catalog} -> tools -> internal/*",
					rel, layers[from].name, irel, layers[to].name)
			}
		}
		if from == 0 {
			continue
		}
		// Dependencies of the package itself, not of its tests: a
		// test may drive a cobra command without the library knowing it.
		for _, dep := range p.Deps {
			for _, banned := range cmdOnly {
				if dep == banned || strings.HasPrefix(dep, banned+"/") {
					t.Errorf("%s depends on %s: flags and terminals belong to cmd/", rel, dep)
				}
			}
		}
		if from <= layerOf("run") {
			continue
		}
		for _, imp := range p.Imports {
			if slices.Contains(runOnly, imp) {
				t.Errorf("%s imports %s: only run/ and cmd/ talk to the network", rel, imp)
			}
		}
	}
}

// listModule asks the go command for every package of the module, with
// the imports of its tests and its dependencies.
func listModule(t *testing.T) []listedPackage {
	t.Helper()
	// go test puts the go command that runs it first on PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the packages with")
	}
	cmd := exec.Command(goTool, "list", "-json=ImportPath,Imports,TestImports,XTestImports,Deps", "../../...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// modulePath is the module's import path, read off this package's own.
func modulePath(pkgs []listedPackage) string {
	for _, p := range pkgs {
		if m, ok := strings.CutSuffix(p.ImportPath, "/cmd/toolcall"); ok {
			return m
		}
	}
	return ""
}
