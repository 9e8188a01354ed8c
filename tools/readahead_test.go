package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/leaktest"
)

// endlessInput is an input that never ends: text events, one a line,
// until past lines of them have been read, when it fails, so that an Exec
// that reads on past a dead output ends rather than hangs.
type endlessInput struct {
	lines, past int
	rest        string
}

func (r *endlessInput) Read(p []byte) (int, error) {
	if r.rest == "" {
		if r.lines == r.past {
			return 0, errors.New("read on past a failed write")
		}
		r.lines++
		r.rest = fmt.Sprintf(`{"type":"text","content":"line %d"}`+"\n", r.lines)
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
	if in.lines == in.past {
		t.Fatalf("Exec read all %d lines of its input after its output failed", in.past)
	}
	leaktest.NoGoroutine(t, "tools.readAhead")
}
