package chattemplate

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/parse"
)

// With --template, a text where the template's syntax reads no call but
// detection reads one gives detection's events, marked; otherwise the
// template's events, as parse.Stream alone would write them.
func TestStreamNeverWorseThanDetection(t *testing.T) {
	hermes := parse.Options{Format: "hermes"}
	const mistral = `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]`
	const hermesCall = "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	cases := []struct{ name, in, want string }{
		{"detection reads a call the template's syntax does not", mistral,
			`{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"format":"auto:mistral"}` + "\n"},
		{"the template's syntax reads it", hermesCall,
			`{"type":"text","content":"Sure.\n"}` + "\n" +
				`{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"format":"hermes"}` + "\n"},
		{"the template's call first, then another syntax", hermesCall + "\n" + mistral,
			`{"type":"text","content":"Sure.\n"}` + "\n" +
				`{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"format":"hermes"}` + "\n" +
				`{"type":"text","content":"\n` + strings.ReplaceAll(mistral, `"`, `\"`) + `"}` + "\n"},
		{"no call at all", "Just prose.",
			`{"type":"text","content":"Just prose."}` + "\n"},
	}
	for _, c := range cases {
		var out strings.Builder
		st, err := Stream(context.Background(), strings.NewReader(c.in), &out, hermes, parse.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if out.String() != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, out.String(), c.want)
		}
		if want := strings.Count(c.want, `"type":"tool_call"`); st.Calls != want {
			t.Errorf("%s: %d calls counted, want %d", c.name, st.Calls, want)
		}
	}
}

// Past maxHold of prose with no call the template's events are written
// and detection's dropped: memory stays bounded.
func TestStreamHoldsBounded(t *testing.T) {
	prose := strings.Repeat("a line of prose, no call in it\n", maxHold/16)
	var out strings.Builder
	_, err := Stream(context.Background(), strings.NewReader(prose+`[TOOL_CALLS][{"name": "f", "arguments": {}}]`), &out, parse.Options{Format: "hermes"}, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), `"type":"tool_call"`) || !strings.Contains(out.String(), "[TOOL_CALLS]") {
		t.Errorf("after %d bytes of prose: %.300s", len(prose), out.String())
	}
}
