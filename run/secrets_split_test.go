package run

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
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
// a held event is written with the next line or at the end, unchanged when
// the next does not complete a secret.
func TestRedactingWriterHoldsOnlyAStart(t *testing.T) {
	const key = "tcsk-9Qm2Zr7Lx4Vb8Np3Kd6Wf1Hy5"
	var out strings.Builder
	rw := newRedactingWriter(&out, redact.New(nil, nil, key))
	rw.Write([]byte(`{"type":"text","content":"plain"}` + "\n"))
	if out.String() != `{"type":"text","content":"plain"}`+"\n" {
		t.Errorf("an event without the start of a secret was held: %q", out.String())
	}
	out.Reset()
	rw.Write([]byte(`{"type":"text","content":"ends with tcsk-9Qm"}` + "\n"))
	if out.Len() != 0 {
		t.Errorf("an event ending with the start of the key was written at once: %q", out.String())
	}
	rw.Write([]byte(`{"type":"text","content":"not the rest"}` + "\n"))
	if want := `{"type":"text","content":"ends with tcsk-9Qm"}` + "\n" + `{"type":"text","content":"not the rest"}` + "\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	rw.Write([]byte(`{"type":"reasoning","content":"ends with tcsk-9Qm2Z","format":"think"}` + "\n"))
	rw.Flush()
	if out.String() != `{"type":"reasoning","content":"ends with tcsk-9Qm2Z","format":"think"}`+"\n" {
		t.Errorf("Flush wrote %q", out.String())
	}
}
