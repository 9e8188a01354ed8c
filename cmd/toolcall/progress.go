package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// progressLine is the one line on stderr, at a terminal, that says how a
// long job goes (a --batch, an eval): rewritten in place with \r as the
// job moves, taken off the screen before anything else is written to
// the same terminal, and put back after.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	total int // the job's items, 0 when unknown
	last  string
	shown int // the width of the line on screen
	now   func() time.Time
}

func newProgressLine(w io.Writer, total int) *progressLine {
	return &progressLine{w: w, total: total, start: time.Now(), now: time.Now}
}

// set draws the line line gives for the time since the start.
func (p *progressLine) set(line func(elapsed time.Duration) string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = line(p.now().Sub(p.start))
	p.draw()
}

// pace says the rate and, with a total, the time left, after done of the
// total items, ran of them run now (not done before), in d.
func (p *progressLine) pace(done, ran int, d time.Duration) []string {
	if ran <= 0 || d <= 0 {
		return nil
	}
	rate := float64(ran) / d.Seconds()
	parts := []string{fmt.Sprintf("%.1f/s", rate)}
	if left := p.total - done; p.total > 0 && left > 0 {
		eta := time.Duration(float64(left) / rate * float64(time.Second))
		parts = append(parts, "about "+eta.Round(time.Second).String()+" left")
	}
	return parts
}

// draw writes the line over the last, under the lock.
func (p *progressLine) draw() {
	if p.last == "" {
		return
	}
	width := utf8.RuneCountInString(p.last)
	fmt.Fprintf(p.w, "\r%s%s", p.last, strings.Repeat(" ", max(p.shown-width, 0)))
	p.shown = width
}

// clear takes the line off the screen, under the lock.
func (p *progressLine) clear() {
	if p.shown > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.shown))
		p.shown = 0
	}
}

// end leaves the last line on screen, ended, before the job's own
// messages.
func (p *progressLine) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown > 0 {
		fmt.Fprintln(p.w)
		p.shown = 0
	}
}

// around is w, whose writes take the progress line off the screen and
// put it back after: stdout or stderr on the same terminal.
func (p *progressLine) around(w io.Writer) io.Writer { return progressWriter{p: p, w: w} }

type progressWriter struct {
	p *progressLine
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
