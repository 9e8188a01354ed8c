//go:build unix

package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tidwall/gjson"
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

// A file written beside its name replaces it only on Commit: what had the
// name stays whole until then, and Abort leaves nothing behind.
func TestFileBeside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(path, []byte("good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := CreateBeside(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	if b, _ := os.ReadFile(path); string(b) != "good\n" {
		t.Errorf("before Commit the file holds %q", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "good\n" {
		t.Errorf("after Abort the file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Abort left %d files", len(entries))
	}
	f, _ = CreateBeside(path)
	f.Write([]byte(`{"type":"stop"}` + "\n"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if b, _ := os.ReadFile(path); !gjson.ValidBytes(b) {
		t.Errorf("after Commit the file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Commit left %d files", len(entries))
	}
}
