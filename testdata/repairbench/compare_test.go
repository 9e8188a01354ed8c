package repairbench

import (
	"encoding/json"
	"testing"

	"github.com/kaptinlin/jsonrepair"
	"github.com/toolcall/toolcall/parse"
)

// brokenJSON is what models write instead of JSON.
var brokenJSON = []string{
	`{"a": 1,}`,
	`[1, 2, 3,]`,
	`{'a': 'b'}`,
	`{'text': 'it\'s'}`,
	`{a: 1, some_key: "x"}`,
	`{"a": True, "b": False, "c": None}`,
	`{"a": 1 // comment` + "\n}",
	`{"a": /* c */ 1}`,
	"{\"a\": 1 # comment\n}",
	"{\"text\": \"line one\nline two\"}",
	"{\"text\": \"tab\there\"}",
	`{"a": "\'quoted\'"}`,
	`{"path": "C:\Users\me"}`,
	`{"re": "\d+\.\d*"}`,
	`{"a": 1 "b": 2}`,
	"[1\n2\n3]",
	`["a" "b"]`,
	`[1 -2]`,
	`{"a": [1, 2`,
	`{"name": "f", "arguments": {"x": 1}`,
	`{"a": "unterminated`,
	`{"a": 12`,
	`{"a": tr`,
	`{"a":`,
	`{"a": 1,`,
	`[1,,2]`,
	`{"a": hello}`,
	`{"a": undefined}`,
	`[NaN, Infinity]`,
	`[+1, .5, 1., 07]`,
	`[0x1F]`,
	`{"text": "he said "hi" to me"}`,
	`{"a": 'it's'}`,
	`{“a”: “b”}`,
	`{"a": 1}}`,
	`{"a": 1} trailing text`,
	"```json\n{\"a\": 1}\n```",
	`{"a": [1, 2}`,
	`{"a" 1}`,
	`["\x41\u00e9"]`,
	`{"a": "b" + "c"}`,
	`{"a": 1, "a": 2}`,
}

// TestCompare logs where toolcall and kaptinlin/jsonrepair read broken JSON
// differently. It fails only if toolcall writes invalid JSON.
func TestCompare(t *testing.T) {
	same := 0
	for _, in := range brokenJSON {
		ours, err := parse.RepairJSON(nil, []byte(in))
		o := string(ours)
		if err != nil {
			o = "error: " + err.Error()
		} else if !json.Valid(ours) {
			t.Errorf("toolcall: %q -> invalid JSON %s", in, ours)
		}
		theirs, kerr := jsonrepair.Repair(in)
		k := theirs
		if kerr != nil {
			k = "error: " + kerr.Error()
		} else if !json.Valid([]byte(theirs)) {
			k += "   (not valid JSON)"
		} else if compact, err := compactJSON(theirs); err == nil {
			k = compact
		}
		if o == k {
			same++
			continue
		}
		t.Logf("%q\n\ttoolcall:  %s\n\tkaptinlin: %s", in, o, k)
	}
	t.Logf("%d of %d read the same", same, len(brokenJSON))
}

func compactJSON(s string) (string, error) {
	var v json.RawMessage
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}
