package event

import (
	"testing"

	"github.com/toolcall/toolcall/tools"
)

// The parse_error validate and exec write for a line over --max-line is
// the event ParseError writes: tools writes it itself, below this package.
func TestLongLineIsParseError(t *testing.T) {
	l := tools.LongLine{N: 3, Offset: 120, Size: 9000, Head: []byte("{\"type\":\"tool_call\",\"na\xc3")}
	got := string(l.AppendJSON(nil, 4096))
	e := ParseError{Error: "line 3 is 9000 bytes long, more than the limit of 4096 (--max-line); it was skipped",
		Raw: []byte(`{"type":"tool_call","na`), Offset: 120}
	if want := string(e.AppendJSON(nil)); got != want {
		t.Errorf("LongLine wrote\n%s\nParseError writes\n%s", got, want)
	}
}
