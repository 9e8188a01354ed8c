//go:build unix

package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Run, given calls as values, writes what Exec writes given the same
// calls as lines: passed, refused (unknown tool, bad arguments, bad id,
// consent refused) and consented, with ids and names that are not valid
// UTF-8 read as a reader of the line reads them; and consent given with
// "all" holds across Runs of one Executor.
func TestExecutorRunIsExec(t *testing.T) {
	dir := t.TempDir()
	echo := shTool(t, dir, "echo", "cat")
	echo.InputSchema = []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	unsafe := shTool(t, dir, "unsafe", "echo ran")
	unsafe.Safe = false
	set := execSet{"echo": echo, "unsafe": unsafe}
	calls := []Call{
		{ID: "call_1", Name: "echo", Arguments: []byte(`{"n":1}`), Format: "hermes", Repaired: true, Repairs: []string{"quotes"}},
		{ID: "call_2", Name: "nope", Arguments: []byte(`{}`)},
		{ID: "call_3", Name: "echo", Arguments: []byte(`{"n":"x"}`)},
		{ID: "bad\x00id", Name: "echo", Arguments: []byte(`{}`)},
		{ID: "id\xff\xfe", Name: "ech\xffo", Arguments: []byte(`{}`)},
		{ID: "call_6", Name: "unsafe"},
		{ID: "call_7", Name: "echo", Arguments: []byte(`{"n":7}`), Repairs: []string{"not written without repaired"}},
	}
	var lines strings.Builder
	for i := range calls {
		lines.Write(append(calls[i].AppendJSON(nil), '\n'))
	}
	asked := 0
	opts := ExecOptions{Environ: []string{"PATH=/usr/bin:/bin"}, Confirm: func(*Tool, *Call) Consent { asked++; return ConsentAll }}
	want, _, err := runExec(t, context.Background(), set, lines.String(), opts)
	if err != nil {
		t.Fatal(err)
	}
	asked = 0
	x := NewExecutor(set, opts)
	for round := range 2 {
		var got []byte
		unread, err := x.Run(context.Background(), calls, func(o Outcome) error {
			got = o.AppendJSON(got)
			return nil
		})
		if err != nil || unread != 0 {
			t.Fatalf("round %d: unread %d, %v", round, unread, err)
		}
		if diff := cmp.Diff(volatileMS(want), volatileMS(string(got))); diff != "" {
			t.Errorf("round %d: Run and Exec differ (-Exec +Run):\n%s", round, diff)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times over two Runs of one Executor, want once", asked)
	}
}

// volatileMS is out without its durations.
func volatileMS(out string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if i := strings.Index(line, `,"duration_ms":`); i >= 0 {
			j := i + len(`,"duration_ms":`)
			for j < len(line) && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			line = line[:i] + line[j:]
		}
		b.WriteString(line)
	}
	return b.String()
}
