//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// flaky is a tool that fails (as fail says) until its nth run, then
// prints "ok after N"; each run adds a line to dir/runs.
func flaky(t *testing.T, dir string, n int, fail string) *Tool {
	t.Helper()
	runs := filepath.Join(dir, "runs")
	return shTool(t, dir, "flaky", `echo run >> `+runs+`
k=$(wc -l < `+runs+`)
if [ "$k" -lt `+string(rune('0'+n))+` ]; then echo "not yet $k" >&2; `+fail+`; fi
echo "ok after $k"`)
}

func runs(t *testing.T, dir string) int {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "runs"))
	return strings.Count(string(b), "\n")
}

// TestRetries runs a safe tool again after a failed exit, a signal or a
// timeout, up to its retries, and records every attempt.
func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int    // the run that succeeds
		fail     string // how the earlier ones fail
		retries  int
		runs     int
		ok       bool
		attempts string
	}{
		{name: "exit", n: 3, fail: "exit 1", retries: 2, runs: 3, ok: true,
			attempts: `[{"status":"error","kind":"execution","exit_code":1},{"status":"error","kind":"execution","exit_code":1},{"status":"ok","exit_code":0}]`},
		{name: "signal", n: 2, fail: "kill -9 $$", retries: 1, runs: 2, ok: true,
			attempts: `[{"status":"error","kind":"execution","signal":"SIGKILL"},{"status":"ok","exit_code":0}]`},
		{name: "timeout", n: 2, fail: "sleep 5", retries: 3, runs: 2, ok: true,
			attempts: `[{"status":"error","kind":"timeout"},{"status":"ok","exit_code":0}]`},
		{name: "not enough", n: 5, fail: "exit 3", retries: 2, runs: 3,
			attempts: `[{"status":"error","kind":"execution","exit_code":3},{"status":"error","kind":"execution","exit_code":3},{"status":"error","kind":"execution","exit_code":3}]`},
		{name: "none asked", n: 5, fail: "exit 3", runs: 1},
		{name: "first time", n: 1, fail: "exit 3", retries: 4, runs: 1, ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tool := flaky(t, dir, tc.n, tc.fail)
			tool.Timeout = 300 * time.Millisecond
			out, _, err := runExec(t, context.Background(), execSet{"flaky": tool}, callLine("c1", "flaky", `{}`),
				ExecOptions{Retries: tc.retries, RetryBackoff: time.Millisecond, Grace: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if got := runs(t, dir); got != tc.runs {
				t.Errorf("%d runs, want %d", got, tc.runs)
			}
			o := gjson.Parse(eventLines(out)[1])
			if o.Get("is_error").Bool() == tc.ok || o.Get("attempts").Raw != tc.attempts {
				t.Errorf("observation %s\nwant attempts %s", o.Raw, tc.attempts)
			}
			if tc.name == "not enough" && !strings.Contains(o.Get("error.message").Str, "it was run 3 times, and failed each time") {
				t.Errorf("message %q", o.Get("error.message").Str)
			}
		})
	}
}

// TestRetriesOnlySafe: a tool with side effects never runs twice, and a
// sidecar's own "retries" wins over the default, 0 included.
func TestRetriesOnlySafe(t *testing.T) {
	for _, tc := range []struct {
		name        string
		safe, set   bool
		own, def    int
		wantRuns    int
		allowUnsafe bool
	}{
		{name: "unsafe", def: 3, wantRuns: 1, allowUnsafe: true},
		{name: "unsafe with its own", set: true, own: 3, def: 3, wantRuns: 1, allowUnsafe: true},
		{name: "own zero", safe: true, set: true, own: 0, def: 3, wantRuns: 1},
		{name: "own two", safe: true, set: true, own: 2, def: 0, wantRuns: 3},
		{name: "default", safe: true, def: 1, wantRuns: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tool := flaky(t, dir, 9, "exit 1")
			tool.Safe, tool.Retries, tool.RetriesSet = tc.safe, tc.own, tc.set
			_, _, err := runExec(t, context.Background(), execSet{"flaky": tool}, callLine("c1", "flaky", `{}`),
				ExecOptions{Retries: tc.def, RetryBackoff: time.Millisecond, Policy: Policy{AllowUnsafe: tc.allowUnsafe}})
			if err != nil {
				t.Fatal(err)
			}
			if got := runs(t, dir); got != tc.wantRuns {
				t.Errorf("%d runs, want %d", got, tc.wantRuns)
			}
		})
	}
}

// TestRetriesWithinTheRun: no retry starts when its wait would pass
// ctx's deadline, and a wait cut short by ctx reads as interrupted.
func TestRetriesWithinTheRun(t *testing.T) {
	dir := t.TempDir()
	tool := flaky(t, dir, 9, "exit 1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, _, err := runExec(t, ctx, execSet{"flaky": tool}, callLine("c1", "flaky", `{}`), ExecOptions{Retries: 5, RetryBackoff: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := runs(t, dir); got != 1 {
		t.Errorf("%d runs: a retry started that could not end before the deadline", got)
	}
	if o := eventLines(out)[1]; gjson.Get(o, "error.kind").Str != "execution" || gjson.Get(o, "attempts").Exists() {
		t.Errorf("observation %s", o)
	}

	dir = t.TempDir()
	tool = flaky(t, dir, 9, "exit 1")
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	out, _, _ = runExec(t, ctx, execSet{"flaky": tool}, callLine("c1", "flaky", `{}`), ExecOptions{Retries: 5, RetryBackoff: 10 * time.Second})
	if o := eventLines(out)[1]; gjson.Get(o, "error.kind").Str != "interrupted" {
		t.Errorf("a retry's wait was cut short, but the observation says %s", o)
	}
}

// TestRetriesScratch: the output saved under --scratch is the last
// attempt's, not the earlier ones' with it.
func TestRetriesScratch(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	runsFile := filepath.Join(dir, "runs")
	tool := shTool(t, dir, "big", `echo run >> `+runsFile+`
k=$(wc -l < `+runsFile+`)
i=0; while [ $i -lt 300 ]; do echo "attempt $k line $i"; i=$((i+1)); done
[ "$k" -ge 2 ]`)
	out, _, err := runExec(t, context.Background(), execSet{"big": tool}, callLine("c1", "big", `{}`),
		ExecOptions{Retries: 1, RetryBackoff: time.Millisecond, MaxOutput: 1000, Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	o := gjson.Parse(eventLines(out)[1])
	ref := o.Get("ref").Str
	if ref == "" || o.Get("attempts.#").Int() != 2 {
		t.Fatalf("observation %s", o.Raw)
	}
	saved, err := readRef(scratch, strings.TrimPrefix(ref, "ref:"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(saved), "attempt 1") || strings.Count(string(saved), "attempt 2 line") != 300 {
		t.Errorf("saved %d bytes, with the first attempt's: %v", len(saved), strings.Contains(string(saved), "attempt 1"))
	}
}

// TestRetryWait doubles the wait, within its cap, drawn from its upper
// half.
func TestRetryWait(t *testing.T) {
	for n, want := range []time.Duration{100, 200, 400, 800} {
		want *= time.Millisecond
		for range 50 {
			if w := retryWait(100*time.Millisecond, n); w < want/2 || w > want {
				t.Fatalf("wait %d: %v, want %v to %v", n, w, want/2, want)
			}
		}
	}
	if w := retryWait(time.Second, 30); w > maxRetryWait || w < maxRetryWait/2 {
		t.Errorf("wait 30: %v, want at most %v", w, maxRetryWait)
	}
	if w := retryWait(0, 0); w > DefaultRetryBackoff || w < DefaultRetryBackoff/2 {
		t.Errorf("default wait %v", w)
	}
}

// TestSidecarRetries reads "retries" and refuses what it cannot mean.
func TestSidecarRetries(t *testing.T) {
	const schema = `"description": "d", "input_schema": {"type": "object"}`
	for _, tc := range []struct {
		extra string
		n     int
		set   bool
		err   string
	}{
		{extra: ``},
		{extra: `, "retries": null`},
		{extra: `, "retries": 0`, set: true},
		{extra: `, "retries": 3`, n: 3, set: true},
		{extra: `, "retries": 10`, n: 10, set: true},
		{extra: `, "retries": 11`, err: `"retries" 11 is out of range; give a number from 0 to 10`},
		{extra: `, "retries": -1`, err: `"retries" -1 is out of range`},
		{extra: `, "retries": 1.5`, err: `"retries" must be a whole number of retries from 0 to 10`},
		{extra: `, "retries": "2"`, err: `"retries" must be a whole number`},
		{extra: `, "retries": 2, "safe": false`, err: `"retries" 2 on a tool with side effects`},
		{extra: `, "retries": 0, "safe": false`, set: true},
		{extra: `, "retries": 2, "annotations": {"destructiveHint": true}`, err: `on a tool with side effects`},
	} {
		tool, _, err := ParseSidecar("t.json", []byte(`{`+schema+tc.extra+`}`))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.extra, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.extra, err)
		case tool.Retries != tc.n || tool.RetriesSet != tc.set:
			t.Errorf("%s: retries %d, set %v", tc.extra, tool.Retries, tool.RetriesSet)
		}
	}
}
