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

// Check decides as Run does, and does nothing else: nobody is asked, no
// warning is given, nothing is counted.
func TestExecutorCheckIsPure(t *testing.T) {
	dir := t.TempDir()
	unsafe := shTool(t, dir, "unsafe", "echo ran")
	unsafe.Safe = false
	broken := shTool(t, dir, "broken", "echo ran")
	broken.InputSchema = []byte(`{"type":"object","properties":{"a":{"$ref":"#/nowhere"}}}`)
	set := execSet{"unsafe": unsafe, "broken": broken}
	asked, warned := 0, 0
	x := NewExecutor(set, ExecOptions{Environ: []string{"PATH=/usr/bin:/bin"},
		Confirm: func(*Tool, *Call) Consent { asked++; return ConsentYes },
		Warn:    func(int, error) { warned++ }})

	v := x.Check(Call{Name: "unsafe", Arguments: []byte(`{}`)})
	if v.Refusal != nil || v.Tool != unsafe || v.Consent == "" || v.Call.ID != "call_1" {
		t.Errorf("unsafe: %+v", v)
	}
	v = x.Check(Call{ID: "c2", Name: "nope"})
	if v.Refusal == nil || v.Refusal.Error.Kind != KindUnknownTool || v.Refusal.ID != "c2" {
		t.Errorf("unknown: %+v", v)
	}
	if v = x.Check(Call{ID: "c3", Name: "broken", Arguments: []byte(`{"a":1}`)}); v.Refusal == nil {
		t.Errorf("broken schema: %+v", v)
	}
	if asked != 0 || warned != 0 || x.Stats().Calls != 0 {
		t.Errorf("Check asked %d times, warned %d times, counted %d calls", asked, warned, x.Stats().Calls)
	}

	// Run, by contrast, asks, warns once and counts; its refusal is
	// Check's.
	var obs []Observation
	calls := []Call{{ID: "c3", Name: "broken", Arguments: []byte(`{"a":1}`)}, {ID: "c4", Name: "broken", Arguments: []byte(`{}`)}, {ID: "c5", Name: "unsafe"}}
	if _, err := x.Run(context.Background(), calls, func(o Outcome) error { obs = append(obs, o.Observation); return nil }); err != nil {
		t.Fatal(err)
	}
	if asked != 1 || warned != 1 || x.Stats().Calls != 3 {
		t.Errorf("Run asked %d times, warned %d times, counted %d calls; want 1, 1, 3", asked, warned, x.Stats().Calls)
	}
	if diff := cmp.Diff(*v.Refusal, obs[0]); diff != "" {
		t.Errorf("Check's refusal and Run's observation differ (-Check +Run):\n%s", diff)
	}
}
