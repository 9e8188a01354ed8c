package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolcall/toolcall/run"
)

// batchProgress is the one line on stderr, at a terminal, that says how a
// --batch goes: requests done (of how many, when the input is a file
// that could be counted), failures, the rate and what is left to wait
// ("toolcall: batch 12/40, 1 failed, 2.5/s, about 11s left"). It is
// rewritten in place with \r as each request ends, and taken off the
// screen before anything else is written to the same terminal.
type batchProgress struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	total int // requests to run, 0 when unknown
	last  string
	shown int // the width of the line on screen
	now   func() time.Time
}

func newBatchProgress(w io.Writer, total int) *batchProgress {
	return &batchProgress{w: w, total: total, start: time.Now(), now: time.Now}
}

// done takes the counts so far (run.BatchOptions.Done).
func (p *batchProgress) done(res run.BatchResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = p.line(res, p.now().Sub(p.start))
	p.draw()
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
	if ran := n - res.Skipped; ran > 0 && d > 0 {
		rate := float64(ran) / d.Seconds()
		parts = append(parts, fmt.Sprintf("%.1f/s", rate))
		if left := p.total - n; p.total > 0 && left > 0 {
			eta := time.Duration(float64(left) / rate * float64(time.Second))
			parts = append(parts, "about "+eta.Round(time.Second).String()+" left")
		}
	}
	return strings.Join(parts, ", ")
}

// draw writes the line over the last, under the lock.
func (p *batchProgress) draw() {
	if p.last == "" {
		return
	}
	width := utf8.RuneCountInString(p.last)
	fmt.Fprintf(p.w, "\r%s%s", p.last, strings.Repeat(" ", max(p.shown-width, 0)))
	p.shown = width
}

// clear takes the line off the screen, under the lock.
func (p *batchProgress) clear() {
	if p.shown > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.shown))
		p.shown = 0
	}
}

// end leaves the last line on screen, ended, before the batch's own
// messages.
func (p *batchProgress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown > 0 {
		fmt.Fprintln(p.w)
		p.shown = 0
	}
}

// around is w, whose writes take the progress line off the screen and
// put it back after: stdout on the same terminal (the batch's view).
func (p *batchProgress) around(w io.Writer) io.Writer { return progressWriter{p: p, w: w} }

type progressWriter struct {
	p *batchProgress
	w io.Writer
}

func (pw progressWriter) Write(b []byte) (int, error) {
	pw.p.mu.Lock()
	defer pw.p.mu.Unlock()
	pw.p.clear()
	n, err := pw.w.Write(b)
	pw.p.draw()
	return n, err
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
