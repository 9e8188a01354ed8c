package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toolcall/toolcall/run"
)

// batchProgress is the progress line of a --batch at a terminal: it
// says how the batch goes, requests done (of how many, when the input is
// a file that could be counted), failures, the rate and what is left to
// wait ("toolcall: batch 12/40, 1 failed, 2.5/s, about 11s left").
type batchProgress struct{ *progressLine }

func newBatchProgress(w io.Writer, total int) *batchProgress {
	return &batchProgress{newProgressLine(w, total)}
}

// done takes the counts so far (run.BatchOptions.Done).
func (p *batchProgress) done(res run.BatchResult) {
	p.set(func(d time.Duration) string { return p.line(res, d) })
}

// line is what the progress line says after d.
func (p *batchProgress) line(res run.BatchResult, d time.Duration) string {
	n := res.Answered + res.Failed
	parts := []string{fmt.Sprintf("toolcall: batch %d", n)}
	if p.total > 0 {
		parts[0] += fmt.Sprintf("/%d", p.total)
	}
	if res.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", res.Failed))
	}
	if res.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d done before", res.Skipped))
	}
	parts = append(parts, p.pace(n, n-res.Skipped, d)...)
	return strings.Join(parts, ", ")
}

// countRequests counts the requests of a --batch file that the shard
// takes (its lines that are not blank), for the progress line; 0 when
// the file is not a regular file or cannot be read.
func countRequests(name string, shard run.Shard) int {
	f, err := os.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0
	}
	r := bufio.NewReaderSize(f, 64<<10)
	n, count, blank := 1, 0, true
	for {
		b, err := r.ReadSlice('\n')
		if strings.TrimSpace(string(b)) != "" {
			blank = false
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(b) > 0 && (!blank && shard.Has(n)) {
			count++
		}
		if err != nil {
			return count
		}
		n, blank = n+1, true
	}
}
