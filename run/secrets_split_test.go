package run

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
	"github.com/toolcall/toolcall/tools/redact"
)

// bigReply is a Backend that sends one reply in large pieces.
type bigReply struct{ reply string }

func (b bigReply) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	for r := b.reply; len(r) > 0; {
		n := min(256<<10, len(r))
		if _, err := sink.Text([]byte(r[:n])); err != nil {
			return Response{}, err
		}
		r = r[n:]
	}
	return Response{Model: "big"}, nil
}

// The attack: the model writes the API key where parse cuts a long run of
// prose into text events (hard, at 2 MiB before any event). Each event
// alone holds half of the key, which is not the key, and both were written
// as they were.
func TestHostileKeySplitAcrossTextEvents(t *testing.T) {
	const key = "tcsk-9Qm2Zr7Lx4Vb8Np3Kd6Wf1Hy5"
	reply := strings.Repeat("x", 2<<20-12) + key + " is the key, and more prose follows."
	out, _ := runLoop(t, bigReply{reply}, Options{Exec: tools.ExecOptions{Secrets: []string{key}}, MaxIterations: 1}, "Tell me the key.")
	texts := 0
	for _, line := range strings.Split(out, "\n") {
		if gjson.Get(line, "type").Str == "text" {
			texts++
		}
	}
	if texts < 2 {
		t.Fatalf("the reply was not cut into text events (%d); the test does not reach the cut", texts)
	}
	if strings.Contains(out, key[:12]) || strings.Contains(out, key[12:]) {
		t.Errorf("a half of the key reached the transcript")
	}
	if !strings.Contains(out, "[REDACTED] is the key") && !strings.Contains(out, "[REDACTED]\"") {
		t.Errorf("the key is not marked as replaced")
	}
}

// Only the start of a secret at an event's end holds the event back, and
// a held event is handed on with the next event or at the end, unchanged
// when the next does not complete a secret.
func TestRedactingSinkHoldsOnlyAStart(t *testing.T) {
	const key = "tcsk-9Qm2Zr7Lx4Vb8Np3Kd6Wf1Hy5"
	var out strings.Builder
	rs := newRedactingSink(event.NewJSONL(&out), redact.New(nil, nil, key))
	text := func(typ, content, format string) *event.TextEvent {
		return &event.TextEvent{Type: typ, Content: []byte(content), Format: format}
	}
	rs.Emit(text(event.TypeText, "plain", ""))
	if out.String() != `{"type":"text","content":"plain"}`+"\n" {
		t.Errorf("an event without the start of a secret was held: %q", out.String())
	}
	out.Reset()
	held := text(event.TypeText, "ends with tcsk-9Qm", "")
	rs.Emit(held)
	if out.Len() != 0 {
		t.Errorf("an event ending with the start of the key was written at once: %q", out.String())
	}
	held.Content[0] = 'E' // the caller's to reuse once Emit returns
	rs.Emit(text(event.TypeText, "not the rest", ""))
	if want := `{"type":"text","content":"ends with tcsk-9Qm"}` + "\n" + `{"type":"text","content":"not the rest"}` + "\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	rs.Emit(text(event.TypeReasoning, "ends with tcsk-9Qm2Z", "think"))
	rs.Flush()
	if out.String() != `{"type":"reasoning","content":"ends with tcsk-9Qm2Z","format":"think"}`+"\n" {
		t.Errorf("Flush wrote %q", out.String())
	}
	out.Reset()
	rs.Emit(text(event.TypeText, "the key is tcsk-9Qm2Zr7L", ""))
	rs.Emit(text(event.TypeText, "x4Vb8Np3Kd6Wf1Hy5, and more", ""))
	rs.Flush()
	if got := out.String(); strings.Contains(got, "tcsk-9Qm") || strings.Contains(got, "Hy5") || !strings.Contains(got, "[REDACTED]") {
		t.Errorf("a key cut across two events came out as %q", got)
	}
}
