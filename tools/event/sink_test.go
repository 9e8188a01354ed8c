package event

import (
	"errors"
	"strings"
	"testing"
)

// The JSONL sink writes each event as its encoder does, one whole line a
// write; Tee hands each event to every sink, and stops at the first that
// fails.
func TestJSONLAndTee(t *testing.T) {
	var a, b lines
	s := Tee(NewJSONL(&a), NewJSONL(&b))
	events := []Event{&TextEvent{Type: TypeText, Content: []byte("hi \"there\"")}, &Stop{Reason: "final_answer", Iterations: 1}}
	var want []string
	for _, e := range events {
		if err := s.Emit(e); err != nil {
			t.Fatal(err)
		}
		want = append(want, string(e.AppendJSON(nil))+"\n")
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, got := range [][]string{a, b} {
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("wrote %q, want %q", got, want)
		}
	}
	failing := Tee(NewJSONL(failWriter{}), NewJSONL(&a))
	if err := failing.Emit(events[0]); err == nil || len(a) != 2 {
		t.Errorf("after a failed sink: %v, %d lines", err, len(a))
	}
}

// lines keeps each write.
type lines []string

func (l *lines) Write(p []byte) (int, error) { *l = append(*l, string(p)); return len(p), nil }

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
