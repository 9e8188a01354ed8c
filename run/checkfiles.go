package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolcall/toolcall/tools/event"
)

// Check statuses: the "status" of a check event.
const (
	CheckOK      = "ok"
	CheckDiffers = "differs"
	CheckError   = "error"
)

// TypeCheck is the event of one recording checked in bulk (event.Check).
const TypeCheck = event.TypeCheck

// ReplayFiles reads what --replay names: a directory (its *.jsonl files)
// or a glob pattern gives the recordings of a bulk check, sorted, with
// many = true; any other name is one recording, given back as it is.
func ReplayFiles(name string) (files []string, many bool, err error) {
	if info, err := os.Stat(name); err == nil {
		if !info.IsDir() {
			return []string{name}, false, nil
		}
		files, err := filepath.Glob(filepath.Join(globEscape(name), "*.jsonl"))
		if err != nil {
			return nil, true, err
		}
		if len(files) == 0 {
			return nil, true, fmt.Errorf("%s holds no recordings (*.jsonl)", name)
		}
		return files, true, nil
	}
	if !strings.ContainsAny(name, "*?[") {
		return []string{name}, false, nil // not there: the caller's read says so
	}
	files, err = filepath.Glob(name)
	if err != nil {
		return nil, true, fmt.Errorf("%q is not a valid pattern: %w", name, err)
	}
	if len(files) == 0 {
		return nil, true, fmt.Errorf("%q matches no file", name)
	}
	slices.Sort(files)
	return files, true, nil
}

// globEscape quotes the pattern characters of a directory's name.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CheckOptions configures CheckFiles.
type CheckOptions struct {
	// Loop is every replay's loop: the tools, the policy and the limits.
	// Backend, Native and ObservationRole are set for each recording.
	Loop Options
	// Native replays every recording natively (--api native); a
	// recording of a native run replays natively anyway.
	Native bool
	Jobs   int   // recordings checked at once (1 when 0)
	Shard  Shard // the recordings of one shard, counted in sorted order
	// Ignore is what every comparison leaves out besides VolatileFields;
	// each check event names it.
	Ignore CheckIgnore
	// Report, when set, hears the outcome of each recording, in order:
	// status, and the first difference or the error.
	Report func(file, status, detail string)
}

// CheckResult counts the recordings of a bulk check.
type CheckResult struct {
	Files, OK, Differ, Errors int
	NotStarted                int // left when ctx ended
}

type checked struct {
	file, status, detail string
}

// CheckFiles replays each recording with real tools and compares the new
// transcript with it, as run --replay FILE --check does for one, at most
// Jobs at a time. For each file, in order, it writes a check event to w
// (file, status ok, differs or error, and the first difference or the
// error), then a batch event with the totals. A recording that ended
// without a final answer passes when the replay ends the same way.
func CheckFiles(ctx context.Context, files []string, w io.Writer, opts CheckOptions) (CheckResult, error) {
	start := time.Now()
	var res CheckResult
	p := newPool(opts.Jobs, func(c checked) error {
		switch c.status {
		case CheckOK:
			res.OK++
		case CheckDiffers:
			res.Differ++
		default:
			res.Errors++
		}
		if opts.Report != nil {
			opts.Report(c.file, c.status, c.detail)
		}
		ev := event.Check{File: c.file, Status: c.status, Ignored: opts.Ignore.Items()}
		switch c.status {
		case CheckDiffers:
			ev.Difference = c.detail
		case CheckError:
			ev.Error = c.detail
		}
		_, err := w.Write(append(ev.AppendJSON(nil), '\n'))
		return err
	})
	var shard []string
	for i, f := range files {
		if opts.Shard.Has(i + 1) {
			shard = append(shard, f)
		}
	}
	started := 0
	for _, f := range shard {
		if !p.start(ctx, func() checked { return checkFile(ctx, f, &opts) }) {
			break
		}
		started++
	}
	if err := p.wait(); err != nil {
		return res, fmt.Errorf("writing the results: %w", err)
	}
	res.Files, res.NotStarted = len(shard), len(shard)-started
	ev := event.Batch{Counts: []event.Count{{Key: "files", N: res.Files}, {Key: "ok", N: res.OK}, {Key: "differs", N: res.Differ}, {Key: "errors", N: res.Errors}, {Key: "not_started", N: res.NotStarted}},
		DurationMS: time.Since(start).Milliseconds()}
	if _, err := w.Write(append(ev.AppendJSON(nil), '\n')); err != nil {
		return res, fmt.Errorf("writing the results: %w", err)
	}
	return res, nil
}

// checkFile replays one recording and compares.
func checkFile(ctx context.Context, file string, opts *CheckOptions) checked {
	fail := func(err error) checked { return checked{file: file, status: CheckError, detail: err.Error()} }
	rec, err := OpenRecording(file)
	if err != nil {
		return fail(err)
	}
	lo := opts.Loop
	lo.Exec.Policy.Allow = slices.Clip(lo.Exec.Policy.Allow)
	lo.Exec.Policy.Deny = slices.Clip(lo.Exec.Policy.Deny)
	if err := rec.Setup(&lo, opts.Native); err != nil {
		return fail(err)
	}
	var got keptEvents
	if _, err := rec.run(ctx, &got, lo); err != nil {
		return fail(err)
	}
	if ctx.Err() != nil {
		return fail(errors.New("interrupted before the replay ended"))
	}
	if diff, same := checkDiff(rec.Events, got, opts.Ignore, 1); !same {
		return checked{file: file, status: CheckDiffers, detail: strings.TrimRight(diff, "\n")}
	}
	return checked{file: file, status: CheckOK}
}
