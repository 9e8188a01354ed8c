package event

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/schema"
)

// BenchmarkEventCodec encodes and decodes events whose strings hold 1 KiB
// and 1 MiB of text, of the bytes the encoder must escape or replace as
// well as prose: the codec is linear in its input when both sizes run at
// the same MB/s.
func BenchmarkEventCodec(b *testing.B) {
	piece := "The committee noted \"revenue\" rose\\fell 4%.\n\ttab\x01 é中😀 \u2028 \xff{[}]"
	for _, size := range []int{1 << 10, 1 << 20} {
		text := strings.Repeat(piece, size/len(piece)+1)[:size]
		args := append(jsonw.AppendString([]byte(`{"q":`), text), '}')
		events := []struct {
			name   string
			e      Event
			decode func([]byte) Event
		}{
			{"text", &TextEvent{Type: TypeText, Content: []byte(text)}, func(l []byte) Event { e := DecodeText(l); return &e }},
			{"tool_call", &tools.CallEvent{Call: tools.Call{ID: "call_1", Name: "search", Arguments: args}, Checked: true, Validated: true,
				Coerced: []schema.Coercion{{Pointer: "/q", From: text, To: []byte("1")}}}, func(l []byte) Event { e, _ := tools.DecodeCallEvent(l); return &e }},
			{"tool_observation", &tools.Observation{ID: "call_1", Name: "search", Content: text, Error: &tools.ToolError{Kind: "execution", Message: text, Details: args}},
				func(l []byte) Event { e := tools.DecodeObservation(l); return &e }},
		}
		for _, ev := range events {
			line := ev.e.AppendJSON(nil)
			b.Run(fmt.Sprintf("%s/%dKiB", ev.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(line)))
				var buf []byte
				for b.Loop() {
					buf = ev.e.AppendJSON(buf[:0])
					if _, err := tools.EventType(buf); err != nil {
						b.Fatal(err)
					}
					ev.decode(buf)
				}
			})
		}
	}
}
