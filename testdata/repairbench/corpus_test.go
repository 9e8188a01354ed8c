package repairbench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kaptinlin/jsonrepair"
)

// The held-out corpus of defective documents that parse's TestRepairCorpus
// scores toolcall on, scored here the same way for the other libraries:
// kaptinlin/jsonrepair (Go) live, the JavaScript jsonrepair from its
// outcomes recorded in jsonrepair-js-3.15.0.jsonl (by record-jsonrepair.mjs),
// and Python's json_repair from json_repair-py-0.61.7.jsonl (by
// record-json_repair.py, run on the library's source at its tag). Neither
// node nor python is a dependency of the tests.
const corpusPath = "../../parse/testdata/repaircorpus.jsonl"

type corpusDoc struct {
	Kind   string          `json:"kind"`
	In     string          `json:"in"`
	Want   json.RawMessage `json:"want"`
	Values json.RawMessage `json:"values"`
	Refuse string          `json:"refuse"`
}

type recorded struct {
	In    string  `json:"in"`
	Out   *string `json:"out"`
	Error string  `json:"error"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// readRecorded reads one library's recorded outcomes, which must be for
// the corpus as it is: record names the command that records them again.
func readRecorded(t *testing.T, path string, docs []corpusDoc, record string) []recorded {
	t.Helper()
	rs := readJSONL[recorded](t, path)
	if len(rs) != len(docs) {
		t.Fatalf("%s: %d recorded outcomes for %d documents: record them again (%s)", path, len(rs), len(docs), record)
	}
	for i, d := range docs {
		if rs[i].In != d.In {
			t.Fatalf("%s: outcome %d is for %q, not %q: record them again (%s)", path, i+1, rs[i].In, d.In, record)
		}
	}
	return rs
}

// outcome is the recorded repair, or the library's refusal as an error.
func (r recorded) outcome() (string, error) {
	if r.Out == nil {
		return "", errors.New(r.Error)
	}
	return *r.Out, nil
}

func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// judge scores one library's reading of d: the value meant (several values
// in a row: an array of them, as these libraries return them), or a refusal
// where the corpus says one is due, is right; a refusal where a value was
// meant is refused; anything else is wrong.
func judge(d corpusDoc, out string, err error) string {
	if d.Refuse != "" {
		if err != nil {
			return "right"
		}
		return "wrong"
	}
	if err != nil {
		return "refused"
	}
	want := d.Want
	if d.Values != nil {
		want = d.Values
	}
	if sameJSON([]byte(out), want) {
		return "right"
	}
	return "wrong"
}

type tally struct{ right, refused, wrong int }

func (t *tally) add(outcome string) {
	switch outcome {
	case "right":
		t.right++
	case "refused":
		t.refused++
	default:
		t.wrong++
	}
}

// TestCorpusOthers logs, per kind of defect, how often each library reads
// the corpus right, refuses, or reads it wrong.
func TestCorpusOthers(t *testing.T) {
	docs := readJSONL[corpusDoc](t, corpusPath)
	js := readRecorded(t, "jsonrepair-js-3.15.0.jsonl", docs, "node record-jsonrepair.mjs "+corpusPath)
	py := readRecorded(t, "json_repair-py-0.61.7.jsonl", docs, "python3 record-json_repair.py "+corpusPath)
	libs := []string{"jsonrepair-js", "json_repair-py", "kaptinlin"}
	kinds := map[string]map[string]*tally{}
	total := map[string]*tally{}
	for _, l := range libs {
		total[l] = &tally{}
	}
	for i, d := range docs {
		jsOut, jsErr := js[i].outcome()
		pyOut, pyErr := py[i].outcome()
		kOut, kErr := jsonrepair.Repair(d.In)
		if kinds[d.Kind] == nil {
			kinds[d.Kind] = map[string]*tally{}
			for _, l := range libs {
				kinds[d.Kind][l] = &tally{}
			}
		}
		outcomes := map[string]string{
			"jsonrepair-js":  judge(d, jsOut, jsErr),
			"json_repair-py": judge(d, pyOut, pyErr),
			"kaptinlin":      judge(d, kOut, kErr),
		}
		for l, o := range outcomes {
			kinds[d.Kind][l].add(o)
			total[l].add(o)
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s", "kind")
	for _, l := range libs {
		fmt.Fprintf(&b, " %22s", l+" r/ref/w")
	}
	b.WriteByte('\n')
	row := func(name string, ts map[string]*tally) {
		fmt.Fprintf(&b, "%-18s", name)
		for _, l := range libs {
			tl := ts[l]
			fmt.Fprintf(&b, " %22s", fmt.Sprintf("%d/%d/%d", tl.right, tl.refused, tl.wrong))
		}
		b.WriteByte('\n')
	}
	for _, k := range names {
		row(k, kinds[k])
	}
	row("all", total)
	t.Log("\n" + b.String())
}
