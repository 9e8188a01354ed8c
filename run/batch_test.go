//go:build unix

package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// batchModel is a Backend for many requests at once: it answers a prompt
// at once, calls the add tool first for a prompt that begins with "add",
// and for a prompt in hold waits until that channel is closed or the
// request is cancelled. Every turn is announced on started, if set.
type batchModel struct {
	hold    map[string]chan struct{}
	started chan string
	turns   atomic.Int64
}

func (m *batchModel) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	m.turns.Add(1)
	prompt := req.Messages[1].Content // after the system text
	if m.started != nil {
		m.started <- prompt
	}
	if c, ok := m.hold[prompt]; ok {
		select {
		case <-c:
		case <-ctx.Done():
			return Response{}, ctx.Err()
		}
	}
	reply := `{"type":"final_answer","content":"answer to ` + prompt + `"}`
	if strings.HasPrefix(prompt, "add") && len(req.Messages) == 2 {
		reply = `{"type":"tool_call","name":"add","arguments":{"a":2,"b":3}}`
	}
	if _, err := sink.Text([]byte(reply)); err != nil {
		return Response{}, err
	}
	return Response{Model: "batch"}, nil
}

// runBatch runs a batch of the given input lines with the model.
func runBatch(t *testing.T, ctx context.Context, m Backend, input string, opts BatchOptions) (string, BatchResult) {
	t.Helper()
	opts.Loop.Backend = m
	if opts.Loop.Catalog == nil {
		opts.Loop.Catalog = shCatalog(t, addTool)
	}
	opts.Loop.Exec.Environ = []string{"PATH=" + os.Getenv("PATH")}
	var out bytes.Buffer
	res, err := Batch(ctx, strings.NewReader(input), &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), res
}

// requestsOf lists, line by line, the request of each event of a batch's
// output ("-" for the batch event) and its type.
func requestsOf(out string) []string {
	var seq []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		e := gjson.Parse(line)
		r := e.Get("request").Str
		if r == "" {
			r = "-"
		}
		seq = append(seq, r+" "+e.Get("type").Str)
	}
	return seq
}

// Each transcript comes whole, then its summary, in the order of the
// input, though the first request ends last.
func TestBatchOrder(t *testing.T) {
	slow := make(chan struct{})
	m := &batchModel{hold: map[string]chan struct{}{"slow": slow}, started: make(chan string, 10)}
	go func() {
		// The slow request ends once the others have been answered.
		seen := 0
		for p := range m.started {
			if p != "slow" {
				seen++
			}
			if seen == 3 { // add asks twice
				close(slow)
				return
			}
		}
	}()
	in := `{"id":"s","prompt":"slow"}` + "\n" + `{"id":"f","prompt":"fast"}` + "\n" + `{"prompt":"add 2 and 3"}` + "\n"
	out, res := runBatch(t, context.Background(), m, in, BatchOptions{Jobs: 3})
	want := []string{
		"s system", "s user", "s assistant", "s final_answer", "s step", "s stop", "s summary",
		"f system", "f user", "f assistant", "f final_answer", "f step", "f stop", "f summary",
		"3 system", "3 user", "3 assistant", "3 tool_call", "3 tool_observation", "3 step", "3 assistant", "3 final_answer", "3 step", "3 stop", "3 summary",
		"- batch",
	}
	if got := requestsOf(out); !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
	if res.Requests != 3 || res.Answered != 3 || res.Failed != 0 || res.Calls != 1 {
		t.Errorf("result %+v", res)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if got := lines[len(lines)-2]; !strings.HasPrefix(got, `{"request":"3","type":"summary","reason":"final_answer","iterations":2,"calls":1,"duration_ms":`) {
		t.Errorf("summary %s", got)
	}
	if got := lines[len(lines)-1]; !strings.HasPrefix(got, `{"type":"batch","requests":3,"final_answer":3,"failed":0,"skipped":0,"interrupted":0,"not_started":0,"calls":1,"phases":{"model_ms":{"p50":`) {
		t.Errorf("batch event %s", got)
	}
}

// A line that is not a request gets a summary with the error, and the
// batch goes on; a request that reaches no final answer counts as failed.
func TestBatchBadLines(t *testing.T) {
	var warned []string
	in := strings.Join([]string{
		`{"id":"ok","prompt":"hi"}`,
		`{"id":"broken","prompt":`,
		``,
		`{"id":true,"prompt":"x"}`,
		`{"id":"no prompt"}`,
		strings.Repeat("x", 300),
		`plain text is a prompt`,
		`{"id":42,"messages":[{"role":"user","content":"numbers name requests too"}]}`,
		`{"id":"ok","prompt":"the same id again"}`,
	}, "\n")
	out, res := runBatch(t, context.Background(), &batchModel{}, in, BatchOptions{
		MaxLine: 200,
		Warn:    func(line int, err error) { warned = append(warned, err.Error()) },
	})
	var sums []string
	for _, line := range strings.Split(out, "\n") {
		if e := gjson.Parse(line); e.Get("type").Str == TypeSummary {
			sums = append(sums, e.Get("request").Str+" "+e.Get("reason").Str+" "+e.Get("error").Str)
		}
	}
	want := []string{
		"ok final_answer ",
		"2 error line 2: not valid JSON; want {\"id\": …, \"prompt\": …} or {\"id\": …, \"messages\": […]}",
		"4 error line 4: \"id\" must be a string or a number",
		"no prompt error line 5: the request on stdin has neither \"prompt\" (a string) nor \"messages\" (an array)",
		"6 error line 6: the line is too long: more than 200 bytes",
		"7 final_answer ",
		"42 final_answer ",
		"9 error line 9: \"id\" \"ok\" is line 1's already; give each request an id of its own",
	}
	if !slices.Equal(sums, want) {
		t.Errorf("summaries:\n%s\nwant:\n%s", strings.Join(sums, "\n"), strings.Join(want, "\n"))
	}
	if len(warned) != 5 {
		t.Errorf("warned %q, want the 5 bad lines", warned)
	}
	if res.Requests != 8 || res.Answered != 3 || res.Failed != 5 {
		t.Errorf("result %+v", res)
	}
}

// With Out, each transcript is a file of its own, written whole when its
// request ends, without the request field; stdout has the summaries.
func TestBatchOut(t *testing.T) {
	dir := t.TempDir()
	hold := make(chan struct{})
	m := &batchModel{hold: map[string]chan struct{}{"held": hold}, started: make(chan string, 10)}
	done := make(chan struct{})
	var stdout bytes.Buffer
	var err error
	opts := BatchOptions{Jobs: 2, Out: dir}
	opts.Loop.Backend = m
	opts.Loop.Catalog = shCatalog(t, addTool)
	go func() {
		defer close(done)
		_, err = Batch(context.Background(), strings.NewReader(`{"id":"a","prompt":"add"}`+"\n"+`{"id":"h","prompt":"held"}`+"\n"), &stdout, opts)
	}()
	for p := range m.started {
		if p == "held" {
			break
		}
	}
	// While h runs, its transcript is nowhere to be seen under its name.
	if _, err := os.Stat(filepath.Join(dir, "h.jsonl")); !os.IsNotExist(err) {
		t.Errorf("h.jsonl exists while its request runs: %v", err)
	}
	close(hold)
	go func() {
		for range m.started {
		}
	}()
	<-done
	close(m.started)
	if err != nil {
		t.Fatal(err)
	}
	out := stdout.String()

	for _, id := range []string{"a", "h"} {
		data, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		tr := string(data)
		if !strings.HasSuffix(tr, `{"type":"stop","reason":"final_answer","iterations":`+map[string]string{"a": "2", "h": "1"}[id]+"}\n") || strings.Contains(tr, `"request"`) {
			t.Errorf("%s.jsonl:\n%s", id, tr)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the out directory, want the 2 transcripts and no temporary file", len(entries))
	}
	if got, want := requestsOf(out), []string{"a summary", "h summary", "- batch"}; !slices.Equal(got, want) {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if !strings.Contains(out, `"file":"`+filepath.Join(dir, "a.jsonl")+`"`) {
		t.Errorf("no file in the summary:\n%s", out)
	}
}

// A batch run again with the same Out skips the requests already done,
// runs again those interrupted or cut short, and with Force runs all.
func TestBatchResume(t *testing.T) {
	dir := t.TempDir()
	in := `{"id":"a","prompt":"one"}` + "\n" + `{"id":"b","prompt":"two"}` + "\n" + `{"id":"c","prompt":"three"}` + "\n" + `{"id":"d","prompt":"four"}` + "\n"
	m := &batchModel{}
	runBatch(t, context.Background(), m, in, BatchOptions{Out: dir})
	if m.turns.Load() != 4 {
		t.Fatalf("%d turns, want 4", m.turns.Load())
	}
	// b was interrupted, c cut short (no stop event), d ended without an
	// answer: only b and c run again.
	b := filepath.Join(dir, "b.jsonl")
	data, _ := os.ReadFile(b)
	os.WriteFile(b, bytes.Replace(data, []byte(`"reason":"final_answer"`), []byte(`"reason":"interrupted"`), 1), 0o644)
	c := filepath.Join(dir, "c.jsonl")
	data, _ = os.ReadFile(c)
	os.WriteFile(c, data[:bytes.Index(data, []byte(`{"type":"stop"`))], 0o644)
	d := filepath.Join(dir, "d.jsonl")
	data, _ = os.ReadFile(d)
	os.WriteFile(d, bytes.Replace(data, []byte(`"reason":"final_answer"`), []byte(`"reason":"max_iterations"`), 1), 0o644)

	m = &batchModel{}
	out, res := runBatch(t, context.Background(), m, in, BatchOptions{Out: dir})
	if m.turns.Load() != 2 {
		t.Errorf("%d turns, want 2 (b and c)", m.turns.Load())
	}
	if res.Skipped != 2 || res.Answered != 3 || res.Failed != 1 {
		t.Errorf("result %+v, want a and d skipped, d failed as recorded", res)
	}
	for _, want := range []string{
		`{"request":"a","type":"summary","reason":"final_answer","iterations":1,"file":"` + filepath.Join(dir, "a.jsonl") + `","skipped":true}`,
		`{"request":"b","type":"summary","reason":"final_answer","iterations":1,"calls":0,`,
		`{"request":"d","type":"summary","reason":"max_iterations","iterations":1,"file":"` + filepath.Join(dir, "d.jsonl") + `","skipped":true}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}

	m = &batchModel{}
	runBatch(t, context.Background(), m, in, BatchOptions{Out: dir, Force: true})
	if m.turns.Load() != 4 {
		t.Errorf("%d turns with Force, want 4", m.turns.Load())
	}
}

// An interrupt stops dispatching: the running request ends with stop
// interrupted and is written, the others do not start and are counted,
// those of a file as well as those read.
func TestBatchInterrupt(t *testing.T) {
	for _, fromFile := range []bool{true, false} {
		t.Run(fmt.Sprint("file=", fromFile), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hold := make(chan struct{}) // never closed: the interrupt ends it
			m := &batchModel{hold: map[string]chan struct{}{"p1": hold}, started: make(chan string, 1)}
			go func() {
				<-m.started
				cancel()
			}()
			var in strings.Builder
			for i := range 5 {
				fmt.Fprintf(&in, `{"id":"r%d","prompt":"p%d"}`+"\n", i+1, i+1)
			}
			var r interface{ Read([]byte) (int, error) } = strings.NewReader(in.String())
			if fromFile {
				name := filepath.Join(t.TempDir(), "in.jsonl")
				os.WriteFile(name, []byte(in.String()), 0o644)
				f, err := os.Open(name)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				r = f
			}
			opts := BatchOptions{Jobs: 1}
			opts.Loop.Backend = m
			opts.Loop.Catalog = shCatalog(t, addTool)
			var out bytes.Buffer
			res, err := Batch(ctx, r, &out, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := requestsOf(out.String()), []string{"r1 system", "r1 user", "r1 step", "r1 stop", "r1 summary", "- batch"}; !slices.Equal(got, want) {
				t.Errorf("events %q, want %q\n%s", got, want, out.String())
			}
			if !strings.Contains(out.String(), `"reason":"interrupted"`) || res.Interrupted != 1 {
				t.Errorf("r1 not interrupted: %+v\n%s", res, out.String())
			}
			if fromFile && (res.NotStarted != 4 || res.Uncounted || res.Requests != 5) {
				t.Errorf("result %+v, want 4 not started of 5, all counted", res)
			}
			if !fromFile && !res.Uncounted {
				t.Errorf("result %+v, want the rest of the pipe uncounted", res)
			}
		})
	}
}

// Every request is in exactly one shard, whatever the count.
func TestBatchShards(t *testing.T) {
	var in strings.Builder
	for i := range 13 {
		if i == 5 {
			in.WriteString("\n") // a blank line keeps its number
		}
		fmt.Fprintf(&in, `{"id":"q%d","prompt":"p"}`+"\n", i)
	}
	cat := shCatalog(t, addTool)
	for n := 1; n <= 5; n++ {
		seen := map[string]int{}
		for i := range n {
			out, _ := runBatch(t, context.Background(), &batchModel{}, in.String(), BatchOptions{Jobs: 2, Shard: Shard{Index: i, Count: n}, Loop: Options{Catalog: cat}})
			for _, line := range strings.Split(out, "\n") {
				if e := gjson.Parse(line); e.Get("type").Str == TypeSummary {
					seen[e.Get("request").Str]++
				}
			}
		}
		if len(seen) != 13 {
			t.Errorf("%d shards: %d requests run, want 13", n, len(seen))
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("%d shards: %s ran %d times", n, id, k)
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	for s, want := range map[string]Shard{"0/1": {0, 1}, "2/4": {2, 4}, " 3 / 4 ": {3, 4}} {
		if got, err := ParseShard(s); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "1", "4/4", "-1/4", "0/0", "a/b", "1/2/3"} {
		if _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q): no error", s)
		}
	}
}

// A slow first request holds back the output, not memory: no request
// starts more than 2*Jobs ahead of it.
func TestBatchWindow(t *testing.T) {
	const jobs = 2
	hold := make(chan struct{})
	var started, headDone atomic.Int64
	var mu sync.Mutex
	var over []int64
	m := &windowModel{hold: hold, started: &started, headDone: &headDone, limit: 1 + 2*jobs, over: func(n int64) {
		mu.Lock()
		over = append(over, n)
		mu.Unlock()
	}}
	var in strings.Builder
	for i := range 40 {
		fmt.Fprintf(&in, `{"id":"w%d","prompt":"p%d"}`+"\n", i, i)
	}
	out, res := runBatch(t, context.Background(), m, in.String(), BatchOptions{Jobs: jobs})
	if res.Answered != 40 {
		t.Fatalf("result %+v\n%s", res, out)
	}
	if len(over) > 0 {
		t.Errorf("requests started while the first was held: %v, want at most %d", over, 1+2*jobs)
	}
}

// windowModel holds the first request until limit requests have started,
// and reports a request that starts beyond the limit before the first
// one returned.
type windowModel struct {
	hold              chan struct{}
	started, headDone *atomic.Int64
	limit             int64
	over              func(int64)
	once              sync.Once
}

func (m *windowModel) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	n := m.started.Add(1)
	if n > m.limit && m.headDone.Load() == 0 {
		m.over(n)
	}
	if n == m.limit {
		m.once.Do(func() { close(m.hold) })
	}
	if req.Messages[1].Content == "p0" {
		<-m.hold
		defer m.headDone.Store(1)
	}
	_, err := sink.Text([]byte(`{"type":"final_answer","content":"ok"}`))
	return Response{}, err
}

// A Retry-After the server sends one request of a batch holds back the
// requests that come after it, not only that request's retry.
func TestBatchRetryAfterHoldsLaterRequests(t *testing.T) {
	f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "30")
			http.Error(w, "busy", http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"{\"type\":\"final_answer\",\"content\":\"ok\"}"},"finish_reason":"stop"}]}`)
	})
	var mu sync.Mutex
	var slept []time.Duration
	o := HTTPOptions{BaseURL: f.srv.URL + "/v1", Sleep: func(d time.Duration) {
		mu.Lock()
		slept = append(slept, d)
		mu.Unlock()
	}}
	in := `{"id":"a","prompt":"one"}` + "\n" + `{"id":"b","prompt":"two"}` + "\n" + `{"id":"c","prompt":"three"}` + "\n"
	_, res := runBatch(t, context.Background(), NewChat(o), in, BatchOptions{Jobs: 1})
	if res.Answered != 3 {
		t.Fatalf("result %+v", res)
	}
	// The sleeps took no time, so the 30 seconds were never over: a's
	// retry waited them, and b and c each waited what was left.
	if len(slept) != 3 || slept[0] != 30*time.Second || slept[1] <= 0 || slept[1] > 30*time.Second || slept[2] <= 0 || slept[2] > slept[1] {
		t.Errorf("waits %v, want 30s for a's retry, then most of it before b and before c", slept)
	}
}
