package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolcall/toolcall/run"
)

// TestBatchProgressLine: the progress line says the requests done of
// how many, the failures, the rate and what is left to wait.
func TestBatchProgressLine(t *testing.T) {
	p := newBatchProgress(&bytes.Buffer{}, 40)
	for _, tt := range []struct {
		res  run.BatchResult
		d    time.Duration
		want string
	}{
		{run.BatchResult{}, 0, "toolcall: batch 0/40"},
		{run.BatchResult{Answered: 9, Failed: 1}, 4 * time.Second, "toolcall: batch 10/40, 1 failed, 2.5/s, about 12s left"},
		{run.BatchResult{Answered: 40}, 10 * time.Second, "toolcall: batch 40/40, 4.0/s"},
		{run.BatchResult{Answered: 12, Skipped: 10}, 1 * time.Second, "toolcall: batch 12/40, 10 done before, 2.0/s, about 14s left"},
	} {
		if got := p.line(tt.res, tt.d); got != tt.want {
			t.Errorf("line(%+v, %s) = %q, want %q", tt.res, tt.d, got, tt.want)
		}
	}
	unknown := newBatchProgress(&bytes.Buffer{}, 0)
	if got, want := unknown.line(run.BatchResult{Answered: 3}, time.Second), "toolcall: batch 3, 3.0/s"; got != want {
		t.Errorf("without a total: %q, want %q", got, want)
	}
}

// TestBatchProgressRewrites: the line is rewritten in place, and taken
// off the screen around what else is written to the terminal.
func TestBatchProgressRewrites(t *testing.T) {
	var term bytes.Buffer
	p := newBatchProgress(&term, 2)
	at := p.start
	p.now = func() time.Time { at = at.Add(time.Second); return at }
	p.done(run.BatchResult{Answered: 1})
	p.around(&term).Write([]byte("[a] answer\n"))
	p.done(run.BatchResult{Answered: 1, Failed: 1})
	p.end()
	first := "toolcall: batch 1/2, 1.0/s, about 1s left"
	second := "toolcall: batch 2/2, 1 failed, 1.0/s"
	blank := strings.Repeat(" ", len(first))
	want := "\r" + first + "\r" + blank + "\r[a] answer\n\r" + first +
		"\r" + second + strings.Repeat(" ", len(first)-len(second)) + "\n"
	if got := term.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestCountRequests counts the lines of a --batch file a shard takes.
func TestCountRequests(t *testing.T) {
	f := filepath.Join(t.TempDir(), "b.jsonl")
	os.WriteFile(f, []byte("{\"prompt\":\"a\"}\n\n  \n{\"prompt\":\"b\"}\n{\"prompt\":\"c\"}"), 0o644)
	if got := countRequests(f, run.Shard{}); got != 3 {
		t.Errorf("all: %d, want 3", got)
	}
	if got := countRequests(f, run.Shard{Index: 0, Count: 2}); got != 2 { // lines 1 and 5
		t.Errorf("shard 0/2: %d, want 2", got)
	}
	if got := countRequests(filepath.Join(t.TempDir(), "none"), run.Shard{}); got != 0 {
		t.Errorf("no file: %d, want 0", got)
	}
}
