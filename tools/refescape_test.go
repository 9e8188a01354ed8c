//go:build unix

package tools

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// refCall is a call to count naming ref n times, in an array.
func refCall(id, ref string, n int) string {
	return callLine(id, "count", `{"a":[`+strings.TrimSuffix(strings.Repeat(`"`+ref+`",`, n), ",")+`]}`)
}

// execAllocated runs one exec and says how many bytes it allocated: the
// test runs alone (no t.Parallel), so the count is its own.
func execAllocated(t *testing.T, set ToolSet, in string, opts ExecOptions) (string, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, _, err := runExec(t, context.Background(), set, in, opts)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(out), "\n")[1], after.TotalAlloc - before.TotalAlloc
}

// The second attack: a saved output of control characters, each of which
// the tool receives as six bytes (\u0001). Named three times, 3 MiB saved
// were 18 MiB passed, under a budget of 8: the budget counts what the tool
// receives, and the refusal says how much that is and what to do.
func TestRefBudgetCountsEscapedBytes(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	set := execSet{"count": shTool(t, dir, "count", `wc -c | tr -d ' '`)}
	ref := saveOutput(t, scratch, "call_1", strings.Repeat("\x01", 1<<20), nil)
	opts := ExecOptions{Scratch: scratch, MaxRefBytes: 8 << 20}

	obs, _ := execAllocated(t, set, refCall("2", ref, 3), opts)
	if gjson.Get(obs, "error.kind").Str != string(KindValidation) {
		t.Fatalf("3 MiB of control bytes, 18 MiB escaped, under an 8 MiB budget: %s", obs)
	}
	msg := gjson.Get(obs, "content").Str
	for _, want := range []string{
		fmt.Sprint(3 * (6<<20 + 2)), // what the tool would have received
		"--max-ref-bytes", "8388608", "JSON string", "control character takes 6 bytes",
		ref + " is 1048576 bytes saved, 6291458 as a JSON string, named 3 times",
		"name each saved output once, or pass a smaller part of it",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, msg)
		}
	}

	// Once fits: the tool gets the whole of it, as counted.
	obs, _ = execAllocated(t, set, refCall("3", ref, 1), opts)
	if n := gjson.Get(obs, "content").Int(); n != int64(len(`{"a":[]}`)+6<<20+2+1) {
		t.Errorf("one use: the tool read %d bytes: %s", n, obs)
	}
}

// A thousand refs to one output are refused before anything is built:
// the output is read once and measured, not copied a thousand times, nor
// up to the budget (348 MB of memory were once spent refusing them).
func TestRefRefusalBuildsNothing(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	set := execSet{"count": shTool(t, dir, "count", `wc -c`)}
	ref := saveOutput(t, scratch, "call_1", strings.Repeat("plain text\n", 100<<10), nil) // 1.1 MB
	obs, allocated := execAllocated(t, set, refCall("2", ref, 1000), ExecOptions{Scratch: scratch, MaxRefBytes: 32 << 20})
	if !strings.Contains(gjson.Get(obs, "content").Str, "--max-ref-bytes") {
		t.Fatalf("1,000 refs: %s", obs)
	}
	if allocated > 8<<20 {
		t.Errorf("refusing 1,000 refs to a 1.1 MB output allocated %d MB: more than reading it once", allocated>>20)
	}
}

// A call that passes holds what the tool gets once: not a copy for the
// resolution, another for the check and a third for stdin, nor one per
// use of the same output in the decoded value.
func TestRefPassedIsOneCopy(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	set := execSet{"count": shTool(t, dir, "count", `wc -c`)}
	ref := saveOutput(t, scratch, "call_1", strings.Repeat("\x01", 2<<20), nil)
	obs, allocated := execAllocated(t, set, refCall("2", ref, 3), ExecOptions{Scratch: scratch})
	passed := uint64(3 * (12<<20 + 2))
	if n := gjson.Get(obs, "content").Int(); n <= int64(passed) {
		t.Fatalf("the tool read %d bytes, want more than %d: %s", n, passed, obs)
	}
	// One copy passed, the file read once (ReadAll grows its buffer), and
	// a little for everything else.
	if limit := passed + 3*(2<<20) + 4<<20; allocated > limit {
		t.Errorf("passing %d MB allocated %d MB, more than one copy (limit %d MB)", passed>>20, allocated>>20, limit>>20)
	}
}
