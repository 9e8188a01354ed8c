package eval

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"testing/fstest"
)

// A case file is input a user writes: whatever it holds, Load reads it
// or says what is wrong with it, and never panics; every case it reads
// can be checked against any calls, its own ground truth scoring right.
func FuzzLoadCase(f *testing.F) {
	for _, name := range []string{"../../testdata/bfcl/BFCL_v4_simple_python.json", "../../testdata/bfcl/BFCL_v4_parallel.json", "../../testdata/bfcl/BFCL_v4_simple_java.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		line, _, _ := bytes.Cut(data, []byte("\n"))
		f.Add(line, []byte(`[{"f": {"a": [1, ""]}}]`))
	}
	f.Add([]byte(`{"id": "x_1", "prompt": "p", "function": [{"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}]}`), []byte(`[{"f": {"a": [1]}}]`))
	f.Fuzz(func(t *testing.T, line, truth []byte) {
		var v map[string]any
		if json.Unmarshal(line, &v) == nil && json.Valid(truth) {
			v["ground_truth"] = json.RawMessage(truth)
			line, _ = json.Marshal(v)
		}
		fsys := fstest.MapFS{"cases.jsonl": {Data: line}}
		cases, err := loadFile(fsys, "cases.jsonl", "cases.jsonl")
		if err != nil {
			return
		}
		for _, c := range cases {
			Check(c, nil, 0)
			Check(c, []Call{{Name: "f", Arguments: json.RawMessage(`{"a": 1}`)}}, 0)
			if !c.Irrelevant() {
				Check(c, answerCalls(c), 0)
			}
		}
	})
}
