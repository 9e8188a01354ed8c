package parse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// genericCase is one model output from testdata/generic: the input, the
// tools the request gave (each parameter's schema type), and the calls a
// peer's parser test expects from it (name and arguments, in order).
type genericCase struct {
	file   string
	ID     string                       `json:"id"`
	Source string                       `json:"source"`
	Tools  map[string]map[string]string `json:"tools"`
	Input  string                       `json:"input"`
	// Differs, when set, says why parse deliberately reads the case
	// otherwise than the peer (a rule of docs/parse-rules.md): it counts
	// as a disagreement, and is not a failure.
	Differs string `json:"differs"`
	Calls   []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"calls"`
}

// options are what parse --tools would build from the case's tools.
func (c *genericCase) options() Options {
	return Options{
		KnownTool: func(name string) bool { _, ok := c.Tools[name]; return ok },
		ParamType: func(tool, param string) string { return c.Tools[tool][param] },
	}
}

func readGenericCorpus(t *testing.T) []genericCase {
	t.Helper()
	files, _ := filepath.Glob("testdata/generic/*.jsonl")
	var cases []genericCase
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			c := genericCase{file: filepath.Base(file)}
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			cases = append(cases, c)
		}
		f.Close()
	}
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/generic")
	}
	return cases
}

// agrees reports whether out, parse's JSONL, holds exactly the case's
// calls, and why not.
func (c *genericCase) agrees(out string) (bool, string) {
	type call struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	var got []call
	for _, line := range bytes.Split([]byte(out), []byte("\n")) {
		var ev struct {
			Type string `json:"type"`
			call
		}
		if json.Unmarshal(line, &ev) != nil || ev.Type != "tool_call" {
			continue
		}
		got = append(got, ev.call)
	}
	if len(got) != len(c.Calls) {
		return false, "call count"
	}
	for k := range got {
		want := c.Calls[k].Arguments
		if want == nil {
			want = map[string]any{}
		}
		if got[k].Name != c.Calls[k].Name || !reflect.DeepEqual(got[k].Arguments, want) {
			return false, "call " + got[k].Name
		}
	}
	return true, ""
}

// TestGenericCorpus parses model outputs of recent formats
// (testdata/generic: peers.jsonl and peers2_SOURCE.jsonl from other
// projects' parser tests, inputs and the calls those tests expect, as
// data, each naming its source test; unseen.jsonl,
// spellings no family writes, invented here) with the request's tools
// known, and reports how many parse agrees on, per file. Every case
// must agree but those that say why parse differs on purpose
// (-run TestGenericCorpus -v shows the figures), and each reads the same
// whole and cut into pieces.
func TestGenericCorpus(t *testing.T) {
	cases := readGenericCorpus(t)
	agree, total := map[string]int{}, map[string]int{}
	for _, c := range cases {
		out := parseAll(t, []byte(c.Input), c.options(), nil)
		checkEvents(t, out)
		total[c.file]++
		switch ok, why := c.agrees(out); {
		case ok && c.Differs != "":
			t.Errorf("%s %s agrees now: drop its differs (%s)", c.file, c.ID, c.Differs)
		case ok:
			agree[c.file]++
		case c.Differs != "":
			t.Logf("%s %s differs on purpose: %s", c.file, c.ID, c.Differs)
		default:
			t.Errorf("%s %s (%s; from %s):\n%s", c.file, c.ID, why, c.Source, out)
		}
		for _, n := range []int{1, 7} {
			if cut := parseAll(t, []byte(c.Input), c.options(), []int{n}); cut != out {
				t.Errorf("%s in pieces of %d changes the events:\nwhole:\n%s\ncut:\n%s", c.ID, n, out, cut)
			}
		}
		checkSpread(t, []byte(c.Input), c.options(), 16, 2)
	}
	for f, n := range total {
		t.Logf("%s: agreement %d of %d (%.1f%%)", f, agree[f], n, 100*float64(agree[f])/float64(n))
	}
}
