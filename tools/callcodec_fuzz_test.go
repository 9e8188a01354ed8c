package tools

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// The tool_call codec round-trips: DecodeCall(c.AppendJSON(nil)) is c as
// a reader of the line sees it (asEncoded), whatever bytes its strings
// hold; and the line is one JSON object. A CallEncoder writes each call
// of a stream as AppendJSON does, whatever calls came before it.
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
		if diff := diffEmpty(asEncoded(c), got); diff != "" {
			t.Errorf("%s read back (-want +got):\n%s", line, diff)
		}
		if typ, err := EventType(line); err != nil || typ != TypeToolCall {
			t.Errorf("%s: type %q, %v", line, typ, err)
		}
		var e CallEncoder
		swapped := Call{ID: id, Name: format, Format: name}
		for _, c := range []Call{c, c, swapped, c, {}, c} {
			if got, want := e.AppendJSON(nil, &c), c.AppendJSON(nil); string(got) != string(want) {
				t.Fatalf("CallEncoder wrote %s, AppendJSON %s", got, want)
			}
		}
	})
}

// diffEmpty is cmp.Diff with nil and empty taken as equal, called only
// when reflect.DeepEqual (stricter, so never equal where cmp would not
// be) finds a difference: cmp's reflection took three quarters of each
// fuzz input's time, and with it the minimizer's, while the codec took a
// twentieth.
func diffEmpty(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, cmpopts.EquateEmpty())
}
