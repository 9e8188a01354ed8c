//go:build unix

package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The attack: two shards share --out, and a request of shard 1 reuses the
// id of one of shard 0. Once shard 0 wrote x.jsonl, shard 1 took its own
// request for done and reported the other's result (exit 0). The id is
// the other shard's: the request fails as a duplicate, as in one shard.
func TestHostileShardDuplicateIDIsAnError(t *testing.T) {
	out := t.TempDir()
	input := `{"id":"x","prompt":"first"}` + "\n" + `{"id":"x","prompt":"second"}` + "\n"
	runBatch(t, context.Background(), &batchModel{}, input, BatchOptions{Out: out, Shard: Shard{Index: 0, Count: 2}})
	if _, err := os.Stat(filepath.Join(out, "x.jsonl")); err != nil {
		t.Fatal(err)
	}
	var warned []string
	got, res := runBatch(t, context.Background(), &batchModel{}, input, BatchOptions{Out: out, Shard: Shard{Index: 1, Count: 2},
		Warn: func(_ int, err error) { warned = append(warned, err.Error()) }})
	if res.Skipped != 0 || res.Failed != 1 || len(warned) != 1 || !strings.Contains(warned[0], `"id" "x" is line 1's already`) {
		t.Errorf("shard 1: %+v, warnings %q\n%s", res, warned, got)
	}
}

// The attack: a FIFO planted as ID.jsonl under --out. Opening it to see
// whether the request is done waited for a writer forever, and an
// interrupt could not stop it. It is not a transcript: the request runs,
// and its transcript takes the name.
func TestHostileFIFOUnderOutDoesNotHang(t *testing.T) {
	out := t.TempDir()
	fifo := filepath.Join(out, "x.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	_, res := runBatch(t, context.Background(), &batchModel{}, `{"id":"x","prompt":"hi"}`+"\n", BatchOptions{Out: out})
	if res.Answered != 1 || res.Skipped != 0 {
		t.Errorf("%+v", res)
	}
	if fi, err := os.Lstat(fifo); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("x.jsonl is not the transcript: %v %v", fi, err)
	}
}

// kill -9 in the middle of a request leaves its temporary file. A resumed
// batch removes those of the requests it handles, and leaves those of
// requests it does not own (another shard's, running beside it).
func TestResumeRemovesItsOwnLeftovers(t *testing.T) {
	out := t.TempDir()
	mine := filepath.Join(out, ".x.jsonl.123456.tmp")
	theirs := filepath.Join(out, ".y.jsonl.654321.tmp")
	other := filepath.Join(out, ".notes.tmp")
	for _, f := range []string{mine, theirs, other} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	input := `{"id":"x","prompt":"hi"}` + "\n" + `{"id":"y","prompt":"hi"}` + "\n"
	runBatch(t, context.Background(), &batchModel{}, input, BatchOptions{Out: out, Shard: Shard{Index: 0, Count: 2}})
	if _, err := os.Stat(mine); err == nil {
		t.Error("the leftover of request x is still there")
	}
	for _, f := range []string{theirs, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s, not this shard's, was removed", filepath.Base(f))
		}
	}
}

// The attack: --out . (or any directory on another mount than $TMPDIR,
// such as tmpfs). A transcript was written to $TMPDIR and renamed into
// place: EXDEV at the end of a complete run, and the transcript lost. It
// is written beside its name, whatever $TMPDIR is; here $TMPDIR does not
// exist at all.
func TestHostileBatchOutKeepsTranscriptWithoutTMPDIR(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("TMPDIR", filepath.Join(dir, "no-such-dir"))
	_, res := runBatch(t, context.Background(), &batchModel{}, `{"id":"x","prompt":"add"}`+"\n", BatchOptions{Out: "."})
	if res.Answered != 1 || res.Failed != 0 {
		t.Errorf("%+v", res)
	}
	b, err := os.ReadFile(filepath.Join(dir, "x.jsonl"))
	if err != nil || !strings.Contains(string(b), `"type":"stop"`) {
		t.Fatalf("the transcript under --out .: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("--out . holds %d files, want the transcript alone", len(entries))
	}
}
