package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// The tool_call codec round-trips: DecodeCall(c.AppendJSON(nil)) is c as
// a reader of the line sees it (asEncoded), whatever bytes its strings
// hold; and the line is one JSON object.
func FuzzCallCodec(f *testing.F) {
	f.Add("call_1", "get_weather", "hermes", "Paris", true, "quotes")
	f.Add("", "", "", "", false, "")
	f.Add("id\xff", "na\x00me", "f\"o\\rmat", "\u2028\xc3", true, "trailing_comma")
	f.Fuzz(func(t *testing.T, id, name, format, value string, repaired bool, repair string) {
		c := Call{ID: id, Name: name, Format: format, Repaired: repaired}
		if value != "" { // "" stands for a call without arguments
			c.Arguments = append(jsonw.AppendString([]byte(`{"v":`), value), '}')
		}
		if repair != "" {
			c.Repairs = []string{repair}
		}
		line := c.AppendJSON(nil)
		got, hasName := DecodeCall(line)
		if !hasName {
			t.Fatalf("%s: no name read back", line)
		}
		if diff := cmp.Diff(asEncoded(c), got); diff != "" {
			t.Errorf("%s read back (-want +got):\n%s", line, diff)
		}
		if typ, err := eventType(line); err != nil || typ != TypeToolCall {
			t.Errorf("%s: type %q, %v", line, typ, err)
		}
	})
}
