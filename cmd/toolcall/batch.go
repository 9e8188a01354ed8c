package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/run"
)

// batchOptions are run's flags for many requests (--batch) and for many
// recordings (--replay DIR --check).
type batchOptions struct {
	file  string
	jobs  int
	out   string
	force bool
	shard string

	// Which of these flags the command line gave: a variable set for
	// batches does not make a single run an error.
	outGiven, forceGiven, jobsGiven, shardGiven bool
}

// noteGiven notes which of the batch flags the command line gave.
func (b *batchOptions) noteGiven(fs *pflag.FlagSet) {
	given := func(name string) bool { return source(fs, name) == "--"+name }
	b.outGiven, b.forceGiven, b.jobsGiven, b.shardGiven = given("out"), given("force"), given("jobs"), given("shard")
}

func (b *batchOptions) addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&b.file, "batch", "", "run each request of this JSONL `file` (- for stdin), one a line: {\"id\": …, \"prompt\": …}")
	fs.IntVar(&b.jobs, "jobs", 0, "with --batch or a bulk --check: run at most `n` at once (default: the number of CPUs, 1 with --model-cmd)")
	fs.StringVar(&b.out, "out", "", "with --batch: write each transcript to `dir`/ID.jsonl, and skip requests already done there")
	fs.BoolVar(&b.force, "force", false, "with --out: run again the requests already done there")
	fs.StringVar(&b.shard, "shard", "", "with --batch or a bulk --check: take only every N-th request, from the I-th (`I/N`, 0-based)")
	must(cmd.MarkFlagDirname("out"))
	for _, name := range []string{"jobs", "shard"} {
		must(cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions))
	}
}

// check refuses flags that do not go together, and reads a --replay that
// names many recordings (a directory, a pattern), which it returns.
func (b *batchOptions) check(o *runOptions, args []string) ([]string, error) {
	var many []string
	if o.replay != "" {
		files, isMany, err := run.ReplayFiles(o.replay)
		if err != nil {
			return nil, usage(fmt.Errorf("--replay %s: %w", o.replay, err))
		}
		if isMany {
			if !o.check {
				return nil, usage(fmt.Errorf("--replay %s names many recordings: add --check to check them all, or name one file", o.replay))
			}
			if len(args) > 0 {
				return nil, usage(errors.New("a bulk --check replays the recorded prompts; give no prompt"))
			}
			many = files
		}
	}
	switch {
	case b.file != "" && len(args) > 0:
		return nil, usage(errors.New("--batch reads the requests from its file; give no prompt as arguments"))
	case b.file != "" && o.replay != "":
		return nil, usage(errors.New("--batch and --replay do not go together; to check many recordings, use --replay DIR --check"))
	case b.file != "" && o.record != "":
		return nil, usage(errors.New("--batch does not take --record; use --out DIR for a transcript per request"))
	case b.file != "" && o.answer:
		// Refused rather than ignored: stdout would silently stay the
		// transcripts the user asked not to see.
		return nil, usage(errors.New(`--batch does not take --answer: stdout holds every request's transcript; for the answers, pipe it to jq -r 'select(.type == "final_answer") | "\(.request)\t\(.content)"'`))
	case many != nil && o.record != "":
		return nil, usage(errors.New("a bulk --check does not take --record"))
	case b.file == "" && (b.outGiven || b.forceGiven):
		return nil, usage(errors.New(both(b.outGiven, "--out", b.forceGiven, "--force") + " --batch"))
	case b.file != "" && b.force && b.out == "":
		return nil, usage(errors.New("--force needs --out: it runs again the requests already done there"))
	case b.file == "" && many == nil && (b.jobsGiven || b.shardGiven):
		return nil, usage(errors.New(both(b.jobsGiven, "--jobs", b.shardGiven, "--shard") + " --batch, or --replay DIR --check"))
	case b.jobs < 0:
		return nil, usage(errors.New("--jobs must be 1 or more (0: the default)"))
	}
	if b.file != "" && b.out != "" {
		if err := os.MkdirAll(b.out, 0o755); err != nil {
			return nil, &usageError{err: fmt.Errorf("--out: %w", err)}
		}
	}
	if _, err := b.parseShard(); err != nil {
		return nil, err
	}
	if b.jobs == 0 {
		// A model command is a program on this machine, often a model
		// loaded in full for each turn: one at a time unless asked.
		b.jobs = runtime.NumCPU()
		if o.backend.modelCmd != "" {
			b.jobs = 1
		}
	}
	return many, nil
}

// both names the flags of two that were given, as the subject of
// "need(s)": a message names only what the command line holds.
func both(aGiven bool, a string, bGiven bool, b string) string {
	switch {
	case aGiven && bGiven:
		return a + " and " + b + " need"
	case aGiven:
		return a + " needs"
	}
	return b + " needs"
}

func (b *batchOptions) parseShard() (run.Shard, error) {
	if b.shard == "" {
		return run.Shard{}, nil
	}
	s, err := run.ParseShard(b.shard)
	if err != nil {
		return s, usage(fmt.Errorf("--shard: %w", err))
	}
	return s, nil
}

// run runs the requests of --batch.
// progress, when set, is the progress line on stderr.
func (b *batchOptions) run(ctx context.Context, stdin io.Reader, lopts run.Options, o *runOptions, caught *atomic.Value, stdout, stderr io.Writer, progress *batchProgress) error {
	in := stdin
	name := "standard input"
	if b.file != "-" {
		f, err := os.Open(b.file)
		if err != nil {
			return fileFlagError("--batch", err)
		}
		defer f.Close()
		in, name = f, b.file
	} else if o.isTerminal(stdin) {
		fmt.Fprintln(stderr, `toolcall: reading requests from stdin, one a line ({"id": …, "prompt": …}), then Ctrl-D`)
	}
	shard, _ := b.parseShard()
	warnTo := stderr
	var done func(run.BatchResult)
	if progress != nil {
		warnTo, done = progress.around(stderr), progress.done
	}
	res, err := run.Batch(ctx, in, stdout, run.BatchOptions{
		Loop:  lopts,
		Jobs:  b.jobs,
		Out:   b.out,
		Force: b.force,
		Shard: shard,
		Warn: func(_ int, err error) {
			fmt.Fprintf(warnTo, "toolcall: --batch %s: %s\n", name, termsafe.Line(err.Error()))
		},
		Done: done,
	})
	if progress != nil {
		progress.end()
	}
	if err != nil {
		return err
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		msg := fmt.Sprintf("toolcall: %v: %d running request%s stopped (stop interrupted), %d did not start", sig, res.Interrupted, plural(res.Interrupted), res.NotStarted)
		if res.Uncounted {
			msg += " (and the rest of " + name + " was not read)"
		}
		if b.out != "" {
			msg += "; run the same command again to go on where it stopped"
		}
		fmt.Fprintln(stderr, msg)
		return &signalExit{code: signalCode(sig)}
	}
	if res.Failed > 0 {
		fmt.Fprintf(stderr, "toolcall: %d of %d request%s reached no final answer (see the summary events)\n", res.Failed, res.Requests, plural(res.Requests))
		return errReported
	}
	return nil
}

// reportCheck writes the line (or lines) on stderr that say how the
// check of one recording went; a check of one recording and of many say
// it alike, so a script reads either the same way.
func reportCheck(stderr io.Writer, file, status, detail string) {
	width := len(run.CheckDiffers)
	file = termsafe.Line(file)
	switch status {
	case run.CheckOK:
		fmt.Fprintf(stderr, "%-*s %s\n", width, status, file)
	case run.CheckDiffers:
		fmt.Fprintf(stderr, "%-*s %s\n", width, status, file)
		for _, line := range strings.Split(detail, "\n") {
			fmt.Fprintf(stderr, "%*s %s\n", width, "", termsafe.Line(line))
		}
	default:
		fmt.Fprintf(stderr, "%-*s %s: %s\n", width, status, file, termsafe.Line(detail))
	}
}

// checkMany replays and checks many recordings.
func (b *batchOptions) checkMany(ctx context.Context, files []string, lopts run.Options, o *runOptions, caught *atomic.Value, stdout, stderr io.Writer) error {
	shard, _ := b.parseShard()
	res, err := run.CheckFiles(ctx, files, stdout, run.CheckOptions{
		Loop:   lopts,
		Native: o.backend.api.value == "native",
		Jobs:   b.jobs,
		Shard:  shard,
		Ignore: o.ignored,
		Report: func(file, status, detail string) {
			if status != run.CheckOK || !o.quiet {
				reportCheck(stderr, file, status, detail)
			}
		},
	})
	if err != nil {
		return err
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		fmt.Fprintf(stderr, "toolcall: %v: %d recording%s not checked\n", sig, res.NotStarted, plural(res.NotStarted))
		return &signalExit{code: signalCode(sig)}
	}
	failed := res.Differ > 0 || res.Errors > 0 || res.NotStarted > 0
	if failed || !o.quiet {
		fmt.Fprintf(stderr, "toolcall: %d recording%s: %d ok, %d differing, %d error%s\n", res.Files, plural(res.Files),
			res.OK, res.Differ, res.Errors, plural(res.Errors))
	}
	if res.Differ > 0 {
		fmt.Fprintln(stderr, "toolcall: if a new run is right, make it the recording: toolcall run --replay FILE --record FILE, with the same tools and flags but --check (and --ignore)")
	}
	if failed {
		return errReported
	}
	return nil
}
