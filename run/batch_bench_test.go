//go:build unix

package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// timedBackend adds up the time its backend takes.
type timedBackend struct {
	Backend
	total atomic.Int64 // nanoseconds
}

func (t *timedBackend) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	start := time.Now()
	defer func() { t.total.Add(int64(time.Since(start))) }()
	return t.Backend.Complete(ctx, req, sink)
}

// BenchmarkBatchModelCmd runs 1,000 requests through a model command, two
// at a time, each request a call of a tool and an answer: three programs
// started per request. It reports the batch's wall time against the
// requests' own time (the model command's turns and the tool's runs,
// divided by the 2 jobs): overhead-% is what toolcall adds to that. Tool
// times come from duration_ms, rounded down to the millisecond, so the
// overhead is if anything overstated.
//
//	go test -run '^$' -bench BatchModelCmd -benchtime 1x ./run
func BenchmarkBatchModelCmd(b *testing.B) {
	const requests, jobs = 1000, 2
	dir := b.TempDir()
	model := filepath.Join(dir, "model")
	script := `#!/bin/sh
if grep -q '"type":"tool_observation"'; then
	echo '{"type":"final_answer","content":"2 + 3 = 5"}'
else
	echo '{"type":"tool_call","name":"add","arguments":{"a":2,"b":3}}'
fi
`
	if err := os.WriteFile(model, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	cat := shCatalog(b, addTool)
	var in strings.Builder
	for i := range requests {
		fmt.Fprintf(&in, `{"id":"r%d","prompt":"What is 2 + 3?"}`+"\n", i)
	}
	for b.Loop() {
		backend := &timedBackend{Backend: NewModelCmd([]string{model}, time.Minute)}
		opts := BatchOptions{Jobs: jobs}
		opts.Loop.Backend = backend
		opts.Loop.Catalog = cat
		opts.Loop.ObservationRole = RoleTool
		var out bytes.Buffer
		start := time.Now()
		res, err := Batch(context.Background(), strings.NewReader(in.String()), &out, opts)
		wall := time.Since(start)
		if err != nil || res.Answered != requests || res.Calls != requests {
			b.Fatalf("%v, %+v", err, res)
		}
		var toolMS int64
		for _, line := range bytes.Split(out.Bytes(), []byte("\n")) {
			if bytes.Contains(line, []byte(`"type":"tool_observation"`)) {
				toolMS += gjson.GetBytes(line, "duration_ms").Int()
			}
		}
		own := time.Duration(backend.total.Load()) + time.Duration(toolMS)*time.Millisecond
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(own.Seconds(), "model+tool-s")
		b.ReportMetric((float64(wall)*jobs/float64(own)-1)*100, "overhead-%")
	}
}
