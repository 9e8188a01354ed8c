package chattemplate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pythonIdentical is how many corpus templates render every conversation
// of testdata/conversations.json byte for byte as Python's Jinja does, set
// up as transformers sets it up (testdata/python, written by
// testdata/render_python.py), or fail where it fails. A change that
// lowers it fails; one that raises it raises this number.
//
// Tools and arguments given as JSON, and messages, keep their key order
// (values.go); the rest are listed, with why, in testdata/python/DIFFERENT.
const pythonIdentical = 167

// conversationsFile is testdata/conversations.json.
type conversationsFile struct {
	Now           time.Time         `json:"now"`
	Tools         []json.RawMessage `json:"tools"`
	Conversations []struct {
		Name     string `json:"name"`
		Tools    bool   `json:"tools"`
		Gen      bool   `json:"add_generation_prompt"`
		Messages []struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
			Name       string `json:"name"`
		} `json:"messages"`
	} `json:"conversations"`
}

type pythonRender struct {
	Render *string `json:"render"`
	Error  string  `json:"error"`
}

func TestPythonRenders(t *testing.T) {
	raw, err := os.ReadFile("testdata/conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	var convs conversationsFile
	if err := json.Unmarshal(raw, &convs); err != nil {
		t.Fatal(err)
	}
	listed := listedDifferent(t)
	identical := 0
	for _, f := range templates(t) {
		raw, err := os.ReadFile(filepath.Join("testdata/python", nameOf(f)+".json"))
		if err != nil {
			t.Fatalf("%v: run testdata/render_python.py", err)
		}
		var want map[string]pythonRender
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		tp, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		same := true
		for _, c := range convs.Conversations {
			var msgs []Message
			for _, m := range c.Messages {
				msg := Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
				for _, tc := range m.ToolCalls {
					msg.ToolCalls = append(msg.ToolCalls, Call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
				}
				msgs = append(msgs, msg)
			}
			o := RenderOptions{AddGenerationPrompt: c.Gen, Now: convs.Now}
			if c.Tools {
				for _, tl := range convs.Tools {
					o.Tools = append(o.Tools, tl)
				}
			}
			got, err := tp.Render(msgs, o)
			w := want[c.Name]
			switch {
			case w.Render == nil && err != nil:
			case w.Render == nil:
				t.Logf("%s/%s: Python fails (%s); toolcall renders %.80q", nameOf(f), c.Name, w.Error, got)
				same = false
			case err != nil:
				t.Logf("%s/%s: toolcall fails: %.200v", nameOf(f), c.Name, err)
				same = false
			case got != *w.Render:
				i := 0
				for i < len(got) && i < len(*w.Render) && got[i] == (*w.Render)[i] {
					i++
				}
				t.Logf("%s/%s: differs at byte %d: %q, Python %q", nameOf(f), c.Name, i,
					got[max(0, i-30):min(len(got), i+50)], (*w.Render)[max(0, i-30):min(len(*w.Render), i+50)])
				same = false
			}
		}
		if same {
			identical++
		}
		switch why, ok := listed[nameOf(f)]; {
		case same && ok:
			t.Errorf("%s renders as Python does now: remove it from testdata/python/DIFFERENT (%s)", nameOf(f), why)
		case !same && !ok:
			t.Errorf("%s renders differently from Python: fix it, or list it with the reason in testdata/python/DIFFERENT", nameOf(f))
		}
	}
	t.Logf("%d of %d templates render byte-identical to Python's Jinja", identical, len(templates(t)))
	if n := len(templates(t)); identical*100 < n*95 {
		t.Errorf("%d of %d templates render as Python does: under 95%%", identical, n)
	}
	if identical < pythonIdentical {
		t.Errorf("%d templates render as Python does, fewer than the %d before", identical, pythonIdentical)
	} else if identical > pythonIdentical {
		t.Logf("more than pythonIdentical (%d): raise it", pythonIdentical)
	}
}

// listedDifferent reads testdata/python/DIFFERENT: the templates known to
// render differently from Python, and why.
func listedDifferent(t *testing.T) map[string]string {
	raw, err := os.ReadFile("testdata/python/DIFFERENT")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, why, ok := strings.Cut(line, "\t")
		if !ok || why == "" {
			t.Fatalf("testdata/python/DIFFERENT: %q is not a name, a tab and a reason", line)
		}
		out[name] = why
	}
	return out
}
