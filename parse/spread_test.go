package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// streamSpread runs Stream over in, with forks given blocks of at least
// block bytes over up to procs cores; block 0 turns forks off. piece, when
// not 0, is the most a read for spreading takes, and reads take less now
// and then, as from a pipe.
func streamSpread(t testing.TB, in []byte, opts Options, block, procs, piece int) (string, Stats) {
	t.Helper()
	wasBlock, wasProcs, wasPiece := spreadBlock, spreadProcs, pieceSize
	defer func() { spreadBlock, spreadProcs, pieceSize = wasBlock, wasProcs, wasPiece }()
	spreadBlock, spreadProcs = 1<<62, func() int { return procs }
	if block > 0 {
		spreadBlock = block
	}
	var r io.Reader = bytes.NewReader(in)
	if piece > 0 {
		pieceSize = piece
		r = &unevenReader{b: in, max: piece}
	}
	var out bytes.Buffer
	stats, err := Stream(context.Background(), r, &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), stats
}

// checkSpread fails unless Stream writes the same events, and counts the
// same, with forks as without.
func checkSpread(t testing.TB, in []byte, opts Options, block, procs int) {
	t.Helper()
	want, wantStats := streamSpread(t, in, opts, 0, 1, 0)
	// In one piece, forks take blocks of it; in many, workers also read
	// ahead (ahead.go).
	for _, piece := range []int{0, 8 * block} {
		got, gotStats := streamSpread(t, in, opts, block, procs, piece)
		if got != want || gotStats != wantStats {
			t.Fatalf("forks over blocks of %d bytes, pieces of %d, change the events:\nwithout (%+v):\n%s\nwith (%+v):\n%s\ninput:\n%q", block, piece, wantStats, want, gotStats, got, in)
		}
	}
}

// unevenReader hands out b in reads of up to max bytes, some of them
// shorter, as a pipe does.
type unevenReader struct {
	b   []byte
	max int
	n   int
}

func (r *unevenReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	r.n++
	size := min(len(p), r.max)
	if r.n%3 == 0 {
		size = 1 + size*(r.n%7)/8
	}
	n := copy(p[:min(size, len(p))], r.b)
	r.b = r.b[n:]
	return n, nil
}

// spreadInputs are inputs made of many lines, from every format's
// fixtures: each fixture several times over, and all of them in a row.
func spreadInputs(t *testing.T) map[string][]byte {
	inputs := map[string][]byte{}
	var all []byte
	for _, pattern := range []string{"testdata/formats/*.txt", "testdata/known/*.txt"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			inputs[file] = bytes.Repeat(append(b, '\n'), 4)
			all = append(append(all, b...), '\n')
		}
	}
	inputs["all"] = all
	var jsonl, hermes, mixed, ids bytes.Buffer
	for i := range 400 {
		fmt.Fprintf(&jsonl, `{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris","day":%d}}`+"\n", i)
		// Ids of the model's own now and then: the numbers between skip
		// them, 9 to 10 and 99 to 100 among them.
		if i%7 == 3 {
			fmt.Fprintf(&ids, `{"type":"tool_call","id":"t%d","name":"f","arguments":{}}`+"\n", i)
		} else {
			ids.WriteString(`{"type":"tool_call","name":"f","arguments":{}}` + "\n")
		}
		fmt.Fprintf(&hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"day\": %d}}\n</tool_call>\nNext.\n", i)
		switch i % 9 {
		case 0:
			fmt.Fprintf(&mixed, `{"type":"tool_call","id":"call_%d","name":"f","arguments":{}}`+"\n", i)
		case 1:
			mixed.WriteString("</tool_call>\n")
		case 2:
			mixed.WriteString("<think>\nstill thinking\n")
		case 3:
			mixed.WriteString("</think>\n```json\n")
		case 4:
			mixed.WriteString("```\n[f(a=1)]\n")
		case 5:
			mixed.WriteString(`{"type":"tool_call","name":"f","arguments":{"s":"a"b"}}` + "\n")
		default:
			fmt.Fprintf(&mixed, "<tool_call>{\"name\":\"g\",\"arguments\":{\"n\":%d}}</tool_call>\n", i)
		}
	}
	var solarCalls, harmony bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&solarCalls, "Line %d.\n<|tool_calls|><|tool_call:begin|>c%d<|tool_call:name|>f<|tool_call:args|>{\"n\": %d}<|tool_call:end|><|calls|><|end|>\n", i, i, i)
		fmt.Fprintf(&harmony, "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"n\":%d}<|call|>\n", i)
	}
	inputs["solar"], inputs["harmony"] = solarCalls.Bytes(), harmony.Bytes()
	inputs["jsonl"], inputs["hermes"], inputs["mixed"], inputs["ids"] = jsonl.Bytes(), hermes.Bytes(), mixed.Bytes(), ids.Bytes()
	// Dense, then prose, then dense again: reading ahead stops and starts.
	prose := bytes.Repeat([]byte("Some prose, with a <tag> and a { now and then.\n"), 400)
	inputs["turns"] = bytes.Join([][]byte{jsonl.Bytes(), prose, hermes.Bytes(), prose, jsonl.Bytes()}, nil)
	return inputs
}

// TestSpreadSameEvents checks that parsing a piece of input on several
// cores writes exactly what parsing it on one does, over every format's
// fixtures, and that forks are kept where the input is dense.
func TestSpreadSameEvents(t *testing.T) {
	inputs := spreadInputs(t)
	kept, ahead := forksKept.Load(), piecesAhead.Load()
	for _, in := range inputs {
		for _, opts := range []Options{{}, knownTools("f", "g", "get_weather"), {Format: FormatHermes},
			{Format: FormatTemplate, Syntax: solar}, {Format: FormatHarmony, Syntax: &Syntax{Prompt: "<|start|>assistant"}}} {
			for _, block := range []int{1, 7, 64, 1024} {
				checkSpread(t, in, opts, block, 4)
			}
		}
	}
	t.Logf("%d forks kept, %d pieces read ahead kept", forksKept.Load()-kept, piecesAhead.Load()-ahead)
	for name, opts := range map[string]Options{"jsonl": {}, "hermes": {}, "ids": {}, "solar": {Format: FormatTemplate, Syntax: solar}} {
		kept := forksKept.Load()
		_, stats := streamSpread(t, inputs[name], opts, 1024, 4, 0)
		if forksKept.Load() == kept {
			t.Errorf("%s: no fork was kept (%d calls)", name, stats.Calls)
		}
		ahead := piecesAhead.Load()
		// Past what the input's detection reads in one go.
		_, stats = streamSpread(t, bytes.Repeat(inputs[name], 4), opts, 1024, 2, 8<<10)
		if piecesAhead.Load() == ahead {
			t.Errorf("%s: no piece read ahead was kept (%d calls)", name, stats.Calls)
		}
	}
}

// TestSpreadNumbersOn checks the ids of calls parsed by forks: counted on
// across blocks and from Options.FirstID, as one Parser counts them.
func TestSpreadNumbersOn(t *testing.T) {
	in := strings.Repeat(`{"type":"tool_call","name":"f","arguments":{}}`+"\n", 300)
	out, _ := streamSpread(t, []byte(in), Options{FirstID: 7}, 512, 4, 0)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 300 {
		t.Fatalf("%d events, want 300", len(lines))
	}
	for i, l := range lines {
		if want := fmt.Sprintf(`"id":"call_%d"`, 8+i); !strings.Contains(l, want) {
			t.Fatalf("event %d: %s, want %s", i, l, want)
		}
	}
}

// FuzzSpread checks the promise of TestSpreadSameEvents on any input, cut
// into blocks as small as a byte.
func FuzzSpread(f *testing.F) {
	addFileSeeds(f, "testdata/formats/*.txt")
	f.Add([]byte("x\n</tool_call>\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n"), uint16(3))
	f.Fuzz(func(t *testing.T, in []byte, block uint16) {
		// Three times over, so that the Parser comes back to the states
		// forks start from.
		in = bytes.Join([][]byte{in, in, in}, []byte("\n"))
		checkSpread(t, in, Options{}, 1+int(block%64), 4)
		checkSpread(t, in, knownTools("f", "get_weather"), 1+int(block%64), 3)
		checkSpread(t, in, Options{Format: FormatTemplate, Syntax: solar}, 1+int(block%64), 2)
	})
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestAheadStops checks that Stream, reading ahead, returns the error that
// stops it, having parsed nothing more, and leaves no worker behind.
func TestAheadStops(t *testing.T) {
	wasBlock, wasProcs, wasPiece := spreadBlock, spreadProcs, pieceSize
	defer func() { spreadBlock, spreadProcs, pieceSize = wasBlock, wasProcs, wasPiece }()
	spreadBlock, spreadProcs, pieceSize = 512, func() int { return 2 }, 4<<10
	in := bytes.Repeat(spreadInputs(t)["jsonl"], 8)
	before := runtime.NumGoroutine()

	ahead := piecesAhead.Load()
	_, err := Stream(context.Background(), &unevenReader{b: in, max: pieceSize}, &failingWriter{n: 64 << 10}, Options{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Stream = %v, want the writer's error", err)
	}
	if piecesAhead.Load() == ahead {
		t.Fatal("no piece was read ahead before the writer failed")
	}

	ctx, cancel := context.WithCancel(context.Background())
	r := &cancelingReader{r: &unevenReader{b: in, max: pieceSize}, after: 20, cancel: cancel}
	if _, err := Stream(ctx, r, io.Discard, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stream = %v, want context.Canceled", err)
	}

	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines left behind", runtime.NumGoroutine()-before)
}

// cancelingReader cancels its context after a number of reads.
type cancelingReader struct {
	r      io.Reader
	after  int
	cancel func()
}

func (r *cancelingReader) Read(p []byte) (int, error) {
	if r.after--; r.after == 0 {
		r.cancel()
	}
	return r.r.Read(p)
}

// TestAheadWritesBeforeWaiting checks the promise of Stream's doc while
// workers read ahead: the events of what has arrived are written before
// the input is waited for.
func TestAheadWritesBeforeWaiting(t *testing.T) {
	wasBlock, wasProcs, wasPiece := spreadBlock, spreadProcs, pieceSize
	defer func() { spreadBlock, spreadProcs, pieceSize = wasBlock, wasProcs, wasPiece }()
	spreadBlock, pieceSize = 512, 4<<10
	var first, rest bytes.Buffer
	for i := range 600 {
		b := &first
		if i >= 500 {
			b = &rest
		}
		fmt.Fprintf(b, `{"type":"tool_call","name":"f","arguments":{"n":%d}}`+"\n", i)
	}
	for _, procs := range []int{1, 2} {
		spreadProcs = func() int { return procs }
		w := &lineCounter{}
		r := &waitingReader{first: &unevenReader{b: first.Bytes(), max: pieceSize}, rest: bytes.NewReader(rest.Bytes()), count: w.lines, want: 500}
		ahead := piecesAhead.Load()
		if _, err := Stream(context.Background(), r, w, Options{}); err != nil {
			t.Fatal(err)
		}
		if r.seen < r.want {
			t.Errorf("on %d cores: %d of 500 events written while the input was waited for", procs, r.seen)
		}
		if procs > 1 && piecesAhead.Load() == ahead {
			t.Error("no piece was read ahead")
		}
		if w.lines() != 600 {
			t.Errorf("on %d cores: %d events, want 600", procs, w.lines())
		}
	}
}

// lineCounter counts the lines written to it, from any goroutine.
type lineCounter struct {
	mu sync.Mutex
	n  int
}

func (w *lineCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.n += bytes.Count(p, []byte{'\n'})
	w.mu.Unlock()
	return len(p), nil
}

func (w *lineCounter) lines() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// waitingReader reads first, then waits until count reaches want (or ten
// seconds have passed) before it reads rest; seen is the count it saw.
type waitingReader struct {
	first, rest io.Reader
	count       func() int
	want, seen  int
	waited      bool
}

func (r *waitingReader) Read(p []byte) (int, error) {
	if n, err := r.first.Read(p); err != io.EOF {
		return n, err
	}
	if !r.waited {
		r.waited = true
		deadline := time.Now().Add(10 * time.Second)
		for r.seen = r.count(); r.seen < r.want && time.Now().Before(deadline); r.seen = r.count() {
			time.Sleep(time.Millisecond)
		}
	}
	return r.rest.Read(p)
}
