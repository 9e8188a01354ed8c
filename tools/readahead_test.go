package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolcall/toolcall/internal/leaktest"
)

// endlessInput is text events, one a line, far more than an Exec whose
// output failed should read: past them it fails, so that an Exec that
// reads on ends rather than hangs.
type endlessInput struct {
	lines atomic.Int64 // read in the test once Exec's reader is gone
	past  int64
	rest  string
}

func (r *endlessInput) Read(p []byte) (int, error) {
	if r.rest == "" {
		n := r.lines.Add(1)
		if n > r.past {
			return 0, errors.New("read on past a failed write")
		}
		r.rest = fmt.Sprintf(`{"type":"text","content":"line %d"}`+"\n", n)
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

type diskFull struct{}

func (diskFull) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestExecStopsOnWriteError: when its output fails, Exec returns that
// error without reading the rest of its input, and leaves no reader
// behind, though its context is never cancelled.
func TestExecStopsOnWriteError(t *testing.T) {
	in := &endlessInput{past: 100_000}
	_, err := Exec(context.Background(), in, diskFull{}, execSet{}, ExecOptions{Environ: []string{}})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Exec = %v, want the writer's error", err)
	}
	leaktest.NoGoroutine(t, "tools.readAhead")
	if in.lines.Load() > in.past {
		t.Fatalf("Exec read all %d lines of its input after its output failed", in.past)
	}
}
