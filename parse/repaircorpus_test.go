package parse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/parse/jsonrepair"
)

// corpusDoc is one line of testdata/repaircorpus.jsonl: a defective
// document of a kind models write, with the value it was meant to be (want),
// the values of several written in a row (values), or why it must be
// refused (refuse: truncated, elided, ambiguous).
type corpusDoc struct {
	Kind   string          `json:"kind"`
	In     string          `json:"in"`
	Want   json.RawMessage `json:"want"`
	Values json.RawMessage `json:"values"`
	Refuse string          `json:"refuse"`
}

func readCorpus(t *testing.T) []corpusDoc {
	t.Helper()
	f, err := os.Open("testdata/repaircorpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []corpusDoc
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var d corpusDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		docs = append(docs, d)
	}
	return docs
}

// repairValues reads the values written one after another in src, each
// repaired as RepairJSON would, with whitespace or a ',' between them, as
// parse reads calls in a row.
func repairValues(src []byte) ([]json.RawMessage, error) {
	var vals []json.RawMessage
	i := 0
	for {
		k, err := jsonrepair.Space(src, i)
		if err != nil {
			return nil, err
		}
		if k == len(src) && len(vals) > 0 {
			return vals, nil
		}
		out, res, err := appendJSON(nil, src[k:], false, false)
		if err != nil {
			return nil, err
		}
		vals = append(vals, out)
		i = k + res.N
		if j, _ := jsonrepair.Space(src, i); j < len(src) && src[j] == ',' {
			i = j + 1
		}
	}
}

// sameJSON reports whether a and b hold the same value, numbers compared
// as numbers.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// TestRepairCorpus reads the held-out corpus of defective documents: none
// may be read as a value other than the one meant, and at least 90% must be
// read as meant or refused where the corpus says refusal is right.
func TestRepairCorpus(t *testing.T) {
	docs := readCorpus(t)
	type tally struct{ right, refused, wrong int }
	kinds := map[string]*tally{}
	var all tally
	for _, d := range docs {
		tl := kinds[d.Kind]
		if tl == nil {
			tl = &tally{}
			kinds[d.Kind] = tl
		}
		outcome, detail := judgeCorpusDoc(d)
		switch outcome {
		case "right":
			tl.right++
			all.right++
		case "refused":
			tl.refused++
			all.refused++
			t.Logf("refused %q: %s", d.In, detail)
		default:
			tl.wrong++
			all.wrong++
			t.Errorf("WRONG %q: %s", d.In, detail)
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %5s %7s %5s\n", "kind", "right", "refused", "wrong")
	for _, k := range names {
		tl := kinds[k]
		fmt.Fprintf(&b, "%-20s %5d %7d %5d\n", k, tl.right, tl.refused, tl.wrong)
	}
	fmt.Fprintf(&b, "%-20s %5d %7d %5d of %d", "all", all.right, all.refused, all.wrong, len(docs))
	t.Log("\n" + b.String())
	if all.right*10 < len(docs)*9 {
		t.Errorf("%d of %d right; want at least 90%%", all.right, len(docs))
	}
}

// judgeCorpusDoc says whether toolcall reads d right (the value meant, or
// a refusal where one is due), refuses it where a value was meant, or reads
// it wrong (another value, or a value where a refusal is due).
func judgeCorpusDoc(d corpusDoc) (outcome, detail string) {
	src := []byte(d.In)
	if d.Values != nil {
		vals, err := repairValues(src)
		if err != nil {
			return "refused", err.Error()
		}
		got, _ := json.Marshal(vals)
		if sameJSON(got, d.Values) {
			return "right", ""
		}
		return "wrong", fmt.Sprintf("read %s, meant %s", got, d.Values)
	}
	out, err := RepairJSON(nil, src)
	if d.Refuse != "" {
		if err != nil {
			return "right", ""
		}
		return "wrong", fmt.Sprintf("read %s, should be refused (%s)", out, d.Refuse)
	}
	if err != nil {
		return "refused", err.Error()
	}
	if sameJSON(out, d.Want) {
		return "right", ""
	}
	if bytes.Equal(out, d.Want) {
		return "right", ""
	}
	return "wrong", fmt.Sprintf("read %s, meant %s", out, d.Want)
}
