package run

import (
	"strings"
	"testing"
)

// A recording is read a bounded line at a time: a line past the bound is
// an error naming it, and the lines are numbered as an editor shows them,
// blank ones counted.
func TestReadTranscriptBounded(t *testing.T) {
	rec := `{"type":"system","content":"s"}` + "\n\n" + `{"type":"user","content":"` + strings.Repeat("x", 100) + `"}` + "\n"
	events, err := readTranscript(strings.NewReader(rec), 200)
	if err != nil || len(events) != 2 {
		t.Fatalf("%d events, %v", len(events), err)
	}
	_, err = readTranscript(strings.NewReader(rec), 50)
	if err == nil || !strings.Contains(err.Error(), "transcript line 3 is 128 bytes long, more than the 50 bytes a line may have") {
		t.Errorf("err = %v", err)
	}
	_, err = readTranscript(strings.NewReader(rec+"[1]\n"), 200)
	if err == nil || !strings.Contains(err.Error(), "transcript line 4: not a JSON object") {
		t.Errorf("err = %v", err)
	}
}
