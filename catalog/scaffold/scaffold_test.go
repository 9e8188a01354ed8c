package scaffold

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/catalog"
)

func TestParseParam(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Param
	}{
		{"city", Param{Name: "city", Type: "string"}},
		{"city:string:The city: any", Param{Name: "city", Type: "string", Description: "The city: any"}},
		{"n:integer?", Param{Name: "n", Type: "integer", Optional: true}},
		{"n?:number", Param{Name: "n", Type: "number", Optional: true}},
		{"_x::d", Param{Name: "_x", Type: "string", Description: "d"}},
	} {
		got, err := ParseParam(tc.in)
		if err != nil {
			t.Errorf("ParseParam(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseParam(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	for _, bad := range []string{"", ":string", "1a", "a-b", "a:int", "a b:string", "a:string??"} {
		_, err := ParseParam(bad)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("ParseParam(%q) = %v, want an InputError", bad, err)
		}
	}
}

func TestGoFieldsAreExportedAndDistinct(t *testing.T) {
	used := map[string]bool{}
	var got []string
	for _, name := range []string{"city", "max_results", "maxResults", "_", "_9", "City"} {
		got = append(got, goField(name, used))
	}
	want := []string{"City", "MaxResults", "MaxResults2", "P", "P9", "City2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("goField (-want +got):\n%s", diff)
	}
}

// A tool with every type of parameter passes the check in every language
// that needs nothing to be built.
func TestWrittenToolsPassTheCheck(t *testing.T) {
	var params []Param
	for _, typ := range paramTypes {
		params = append(params, Param{Name: "p_" + typ, Type: typ}, Param{Name: "o_" + typ, Type: typ, Optional: true, Description: "an \"optional\" one"})
	}
	dir := t.TempDir()
	for _, lang := range []string{"sh", "python", "node"} {
		res, err := Write(context.Background(), Spec{Name: "t_" + lang, Lang: lang, Dir: dir, Params: params, Description: "A\ntool."})
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if len(res.Problems) > 0 {
			t.Errorf("%s: the check found %v", lang, res.Problems)
		}
		fi, err := os.Stat(res.Files[1])
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: the program %s is not mode 0755: %v %v", lang, res.Files[1], fi.Mode(), err)
		}
	}
}

func TestWriteRefusesWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Write(context.Background(), Spec{Name: "x", Dir: dir})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("Write over x = %v, want an InputError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Errorf("x.json was written although Write refused")
	}
	for _, name := range []string{"", ".x", "a/b", "a b", "x.json"} {
		if _, err := Write(context.Background(), Spec{Name: name, Dir: dir}); !errors.As(err, &ie) {
			t.Errorf("Write(%q) = %v, want an InputError", name, err)
		}
	}
}

// TestSidecarAsksForARequest: the example in a new sidecar has a request
// for the author to write, which ranking reads once it is written.
func TestSidecarAsksForARequest(t *testing.T) {
	dir := t.TempDir()
	res, err := Write(context.Background(), Spec{Name: "get_tide", Lang: "sh", Dir: dir, Params: []Param{{Name: "port", Type: "string"}}, Description: "Tide times."})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"examples": [{"request": "", "arguments": {"port":"example"}}]`) {
		t.Errorf("no example request to fill in:\n%s", data)
	}
	filled := strings.Replace(string(data), `"request": ""`, `"request": "When is high water in Brest?"`, 1)
	if err := os.WriteFile(res.Files[0], []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Load([]string{dir}, catalog.LoadOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Select(context.Background(), catalog.Selection{Query: "high water at Brest", Max: 1, Cap: true, MinScore: catalog.DefaultMinScore})
	if err != nil || len(got) != 1 || !strings.Contains(got[0].Reason, "(example request)") {
		t.Errorf("ranked by its request: %v %v", got, err)
	}
}

// TestGoHeaderWithoutDescription: a go tool written without a
// description says what it is once, not "a toolcall tool: a toolcall
// tool." (issue 28).
func TestGoHeaderWithoutDescription(t *testing.T) {
	for _, tt := range []struct{ desc, want string }{
		{"", "// Command get_tide is a toolcall tool.\n"},
		{"Tide times.", "// Command get_tide is a toolcall tool: Tide times.\n"},
	} {
		src := string(goSourceText(Spec{Name: "get_tide", Lang: "go", Description: tt.desc}))
		if first, _, _ := strings.Cut(src, "\n"); first+"\n" != tt.want {
			t.Errorf("description %q: the source begins %q, want %q", tt.desc, first, tt.want)
		}
	}
}
