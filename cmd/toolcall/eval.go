package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/run/eval"
)

const evalLong = `Eval measures how well a model calls tools through toolcall: it runs a
set of cases against the model the flags name (the same model flags as run:
--base-url, --model, --api, --model-cmd, --template, --style, --constrain,
...), one model turn each, and scores the calls of each reply by the
Berkeley Function Calling Leaderboard's AST rules (docs/eval.md): the right
function, the required arguments, no unknown ones, each value among the
accepted ones, parallel calls in any order; for irrelevance cases, no call.
Nothing is executed: the case's functions are offered as tools, and each
call is answered as a dry run.

Cases (--cases, repeatable) are BFCL's data files as published (a file,
with its answers in possible_answer/ beside it, or a directory of them), or
a JSONL file of cases in the same form with "ground_truth" on each line and
"messages" or "prompt" for the request. Without --cases, the BFCL v4
subset built into toolcall runs: 25 cases of each of simple_python,
simple_java, simple_javascript, multiple, parallel, parallel_multiple and
irrelevance (Apache-2.0; --license prints their licence and source).
--category, --limit (taken from each category in turn) and --sample with
--seed choose a few, for a quick look.

Standard output has an eval event per case as it ends (id, category, score
1 or 0, why it missed and the reason in words, the calls read, the formats
they were written in, repairs, tokens, duration_ms, the recording), then an
eval_summary event (cases, right, failed, score, a score per category, the
misses by why, the formats seen). At a terminal it shows a progress line on
standard error, each miss as it happens, and a table per category at the
end instead (--json keeps the events).

--out DIR writes each case's transcript to DIR/ID.jsonl, which run --replay
replays and show shows; run again with the same --out, a case whose
recording is complete is scored from it and not asked again, so an
interrupted eval goes on where it stopped (--force asks again).

--compare SETTING (repeatable) runs the same cases under each setting, a
set of model flags over the ones given (such as '--style xml', or
'--api completions --template auto'), writes each setting's events with
"setting", shows the scores side by side, and recommends the best: the
highest score, then fewer cases that could not run, then less time. With
--out, each setting's recordings go in a directory of their own.

Exit status: 0 when every case ran, whatever the score; 1 when a case could
not be run (the model server failed; see its event's reason) or the score
is below --min-score; 2 for a bad flag or case file; 130 on Ctrl-C, after
the summary of the cases done.`

const evalExample = `  # the bundled cases against llama-server on this machine
  toolcall eval

  # a quick look: 2 cases of each category, through a model command
  toolcall eval --model-cmd ./my-model --limit 14

  # which prompt style suits this model best
  toolcall eval --compare '--style jsonl' --compare '--style xml' --compare '--style markdown'

  # in CI: BFCL's own files, recordings kept, fail below 80%
  toolcall eval --cases bfcl/data --category simple --out eval-out --min-score 0.8 > eval.jsonl`

type evalOptions struct {
	backend     backendFlags // the model, and how it is asked (backend.go)
	formatFiles formatFiles  // --format-file

	cases      []string
	categories []string
	limit      int
	sample     int
	seed       uint64
	jobs       int
	out        string
	force      bool
	compare    []string
	timeout    time.Duration
	minScore   float64
	json       bool
	quiet      bool
	license    bool

	isTerminalOut func(io.Writer) bool
}

func newEvalCmd(stdout, stderr io.Writer) *cobra.Command {
	o := evalOptions{isTerminalOut: isTerminalWriter}
	cmd := &cobra.Command{
		Use:     "eval",
		Short:   "Measure how well a model calls tools, on cases with known answers",
		Long:    evalLong,
		Example: evalExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.backend.given(cmd.Flags())
			o.quiet = isQuiet(cmd)
			return o.run(cmd.Context(), cmd.Flags(), stdout, stderr)
		},
	}
	fs := cmd.Flags()
	o.backend.register(cmd)
	o.formatFiles.add(fs)
	fs.StringArrayVar(&o.cases, "cases", nil, "the cases: a BFCL data `file` or directory, or a JSONL file of cases (repeatable; default: the bundled BFCL v4 subset)")
	fs.StringSliceVar(&o.categories, "category", nil, "run only the cases of these `categories` (comma-separated; simple is every simple_*)")
	fs.IntVar(&o.limit, "limit", 0, "run at most `n` cases, taken from each category in turn")
	fs.IntVar(&o.sample, "sample", 0, "run `n` cases drawn at random (the same for the same --seed)")
	fs.Uint64Var(&o.seed, "seed", 1, "the seed of --sample")
	fs.IntVar(&o.jobs, "jobs", 1, "run `n` cases at once")
	fs.StringVar(&o.out, "out", "", "write each case's transcript to `dir`/ID.jsonl, and score the complete ones there instead of running them again")
	fs.BoolVar(&o.force, "force", false, "with --out, run every case again")
	fs.StringArrayVar(&o.compare, "compare", nil, "run the cases under this `setting`, model flags over the ones given, such as '--style xml' (repeatable: the settings side by side)")
	durationVar(fs, &o.timeout, "timeout", 5*time.Minute, "give each case at most this long")
	fs.Float64Var(&o.minScore, "min-score", 0, "exit 1 when the score (the share of cases right, 0 to 1) is below this")
	fs.BoolVar(&o.json, "json", false, "write the events on stdout even when it is a terminal")
	fs.BoolVar(&o.license, "license", false, "print the bundled cases' licence and where they come from, and exit")
	// Names that mean other things to run and catalog get variables of
	// eval's own.
	for _, name := range []string{"force", "out", "min-score", "jobs", "timeout"} {
		envAs(fs, name, "TOOLCALL_EVAL_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
	}
	must(cmd.RegisterFlagCompletionFunc("category", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return bundledCategories(), cobra.ShellCompDirectiveNoFileComp
	}))
	must(cmd.MarkFlagDirname("out"))
	return cmd
}

// bundledCategories are the categories of the bundled cases, and the
// prefixes that name several.
func bundledCategories() []cobra.Completion {
	cases, err := eval.Bundled()
	if err != nil {
		return nil
	}
	seen := map[string]bool{"simple": true}
	out := []cobra.Completion{"simple"}
	for _, c := range cases {
		if !seen[c.Category] {
			seen[c.Category] = true
			out = append(out, c.Category)
		}
	}
	return out
}

// setting is one set of model flags the cases run under.
type setting struct {
	label   string // as --compare gave it; "" for the flags as given
	words   []string
	backend backendFlags
	out     string // its --out directory
}

func (o *evalOptions) run(ctx context.Context, given *pflag.FlagSet, stdout, stderr io.Writer) error {
	if o.license {
		_, err := io.WriteString(stdout, eval.BundledLicense())
		return err
	}
	cases, err := o.loadCases()
	if err != nil {
		return err
	}
	if err := o.backend.check(); err != nil {
		return err
	}
	if o.jobs < 1 {
		return usage(fmt.Errorf("--jobs %d: want 1 or more", o.jobs))
	}
	if o.timeout <= 0 {
		return usage(errors.New("--timeout must be more than 0"))
	}
	if o.minScore < 0 || o.minScore > 1 {
		return usage(fmt.Errorf("--min-score %v: want a share of the cases, from 0 to 1 (0.8 for 80%%)", o.minScore))
	}
	if o.force && o.out == "" {
		return usage(errors.New("--force runs again the cases of --out DIR: add --out"))
	}
	formats, err := o.formatFiles.load()
	if err != nil {
		return err
	}
	settings, err := o.settings(given)
	if err != nil {
		return err
	}
	if o.out != "" {
		for _, s := range settings {
			if err := prepareOut(s.out); err != nil {
				return err
			}
		}
	}

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	caught, release := catchSignals(stop)
	defer release()

	forPerson := !o.json && o.isTerminalOut(stdout)
	events := stdout
	if forPerson {
		events = io.Discard
	}
	var progress *evalProgress
	if !o.quiet && isTerminalWriter(stderr) {
		progress = newEvalProgress(stderr, len(cases)*len(settings))
		if !forPerson && o.isTerminalOut(stdout) {
			events = progress.around(events) // --json on the same terminal
		}
	}
	var sums []*eval.Summary
	var failure error
	for _, s := range settings {
		m, err := s.backend.build(ctx, o.timeout)
		if err != nil {
			return err
		}
		lopts := run.Options{Timeout: o.timeout, Formats: formats, Warn: warnTo(stderr)}
		if err := s.backend.apply(&lopts, m); err != nil {
			return err
		}
		// The key, the URL's password and every secret the flags hold.
		lopts.Exec.Secrets = append(append(lopts.Exec.Secrets, m.secrets...), flagSecretsOf(stderr)...)
		sum := &eval.Summary{Setting: s.label}
		var writeErr error
		eval.Evaluate(ctx, cases, eval.Options{Run: lopts, Jobs: o.jobs, Out: s.out, Force: o.force, Setting: s.label}, func(r eval.Result) {
			if ctx.Err() != nil && r.Err != nil {
				return // stopped by the signal: not a result
			}
			sum.Add(r)
			if writeErr == nil {
				if _, err := events.Write(append(r.AppendJSON(nil), '\n')); err != nil {
					writeErr = err
					stop()
				}
			}
			if r.Err != nil && failure == nil {
				failure = fmt.Errorf("the first, %s: %w", r.Case.ID, r.Err)
			}
			if progress != nil {
				progress.add(r)
			}
		})
		if writeErr != nil {
			return writeErr
		}
		if _, err := events.Write(append(sum.AppendJSON(nil), '\n')); err != nil {
			return err
		}
		sums = append(sums, sum)
		if ctx.Err() != nil {
			break
		}
	}
	if progress != nil {
		progress.end()
	}
	if forPerson {
		if err := eval.WriteTable(stdout, sums); err != nil {
			return err
		}
		if len(settings) > 1 {
			o.recommend(stdout, given, settings, sums)
		}
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		fmt.Fprintf(stderr, "toolcall: %v: the eval stopped; the summary counts the cases done", sig)
		if o.out != "" {
			fmt.Fprint(stderr, "; run the same command again to go on where it stopped")
		}
		fmt.Fprintln(stderr)
		return &signalExit{code: signalCode(sig)}
	}
	failed := 0
	for _, s := range sums {
		failed += s.Failed
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "toolcall: %d case%s could not run (%s)\n", failed, plural(failed), termsafe.Line(failure.Error()))
		return errReported
	}
	if o.minScore > 0 {
		if best := eval.Best(sums); best.Score() < o.minScore {
			fmt.Fprintf(stderr, "toolcall: score %.1f%% is below --min-score %.1f%%\n", 100*best.Score(), 100*o.minScore)
			return errReported
		}
	}
	return nil
}

// loadCases reads --cases (or the bundled cases) and keeps the ones
// --category, --sample and --limit choose.
func (o *evalOptions) loadCases() ([]*eval.Case, error) {
	var cases []*eval.Case
	if len(o.cases) == 0 {
		bundled, err := eval.Bundled()
		if err != nil {
			return nil, fmt.Errorf("the bundled cases: %w", err)
		}
		cases = bundled
	}
	for _, path := range o.cases {
		cs, err := eval.Load(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fileFlagError("--cases", err)
			}
			return nil, usage(fmt.Errorf("--cases %s: %w", path, err))
		}
		cases = append(cases, cs...)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.ID] {
			return nil, usage(fmt.Errorf("--cases: two cases have the id %q: each case needs its own id (its recording is ID.jsonl)", c.ID))
		}
		seen[c.ID] = true
	}
	cases, err := eval.Select(cases, eval.Selection{Categories: o.categories, Sample: o.sample, Seed: o.seed, Limit: o.limit})
	if err != nil {
		return nil, usage(err)
	}
	if len(cases) == 0 {
		return nil, usage(errors.New("no case to run: --cases holds none"))
	}
	return cases, nil
}

// settings are the model flags to run the cases under: the ones given,
// or each --compare setting over them.
func (o *evalOptions) settings(given *pflag.FlagSet) ([]setting, error) {
	if len(o.compare) == 0 {
		return []setting{{backend: o.backend, out: o.out}}, nil
	}
	base := backendArgs(given)
	var out []setting
	labels := map[string]bool{}
	for _, value := range o.compare {
		label := strings.Join(strings.Fields(value), " ")
		if labels[label] {
			return nil, usage(fmt.Errorf("--compare %q is given twice", value))
		}
		labels[label] = true
		s := setting{label: label, words: strings.Fields(value)}
		scratch := &cobra.Command{Use: "eval"}
		s.backend.register(scratch)
		fs := scratch.Flags()
		fs.SetOutput(io.Discard)
		if err := fs.Parse(append(append([]string{}, base...), s.words...)); err != nil {
			return nil, usage(fmt.Errorf("--compare %q: %w; a setting is model flags, such as --style xml or --api completions --template auto", value, err))
		}
		if fs.NArg() > 0 {
			return nil, usage(fmt.Errorf("--compare %q: %q is not a flag; a setting is model flags, such as --style xml", value, fs.Arg(0)))
		}
		s.backend.given(fs)
		if err := s.backend.check(); err != nil {
			return nil, usage(fmt.Errorf("--compare %q: %w", value, err))
		}
		if o.out != "" {
			s.out = filepath.Join(o.out, settingDir(label))
		}
		out = append(out, s)
	}
	return out, nil
}

// givenBackendFlags are the model flags the command line (or the
// environment) set, in order.
func givenBackendFlags(given *pflag.FlagSet) []*pflag.Flag {
	scratch := &cobra.Command{Use: "eval"}
	var b backendFlags
	b.register(scratch)
	var flags []*pflag.Flag
	given.Visit(func(f *pflag.Flag) {
		if scratch.Flags().Lookup(f.Name) != nil {
			flags = append(flags, f)
		}
	})
	return flags
}

// backendArgs are the model flags given, as arguments, so that a
// --compare setting starts from them.
func backendArgs(given *pflag.FlagSet) []string {
	var args []string
	for _, f := range givenBackendFlags(given) {
		args = append(args, "--"+f.Name+"="+f.Value.String())
	}
	return args
}

// settingDir names a setting's directory under --out: its flags, with
// what a file name should not hold made '_'.
func settingDir(label string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '=':
			return r
		}
		return '_'
	}, strings.TrimLeft(label, "-"))
	if name == "" {
		return "as-given"
	}
	return name
}

// prepareOut makes --out's directory.
func prepareOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fileFlagError("--out", err)
	}
	return nil
}

// recommend says which setting scored best, and the run line with it.
func (o *evalOptions) recommend(w io.Writer, given *pflag.FlagSet, settings []setting, sums []*eval.Summary) {
	best := eval.Best(sums)
	if best == nil {
		return
	}
	var words []string
	for _, s := range settings {
		if s.label == best.Setting {
			words = s.words
		}
	}
	line := []string{"toolcall", "run"}
	for _, f := range givenBackendFlags(given) {
		switch {
		case f.Name == "api-key":
			// A secret, which the environment can hold.
		case f.Value.Type() == "bool" && f.Value.String() == "true":
			line = append(line, "--"+f.Name)
		default:
			line = append(line, "--"+f.Name, f.Value.String())
		}
	}
	line = append(line, words...)
	fmt.Fprintf(w, "\nrecommended: %s (%.1f%%)\nrun with: %s\n", termsafe.Line(best.Setting), 100*best.Score(), termsafe.Line(run.ShellLine(line)))
}

// evalProgress is eval's progress line at a terminal: cases done of all,
// right, could not run, rate and time left. A miss or a failure is
// written above it as it comes.
type evalProgress struct {
	*progressLine
	done, right, failed int
}

func newEvalProgress(w io.Writer, total int) *evalProgress {
	p := &evalProgress{progressLine: newProgressLine(w, total)}
	p.set(p.line)
	return p
}

// add counts one result, and writes a miss or a failure above the line.
func (p *evalProgress) add(r eval.Result) {
	p.done++
	var note string
	switch {
	case r.Err != nil:
		p.failed++
		note = fmt.Sprintf("error  %s%s: %s\n", settingPrefix(r), termsafe.Line(r.Case.ID), termsafe.Line(r.Err.Error()))
	case r.Verdict.Right:
		p.right++
	default:
		note = fmt.Sprintf("miss   %s%s  %s: %s\n", settingPrefix(r), termsafe.Line(r.Case.ID), r.Verdict.Why, termsafe.Line(r.Verdict.Reason))
	}
	if note != "" {
		io.WriteString(p.around(p.w), note)
	}
	p.set(p.line)
}

// line is what the progress line says after d.
func (p *evalProgress) line(d time.Duration) string {
	parts := []string{fmt.Sprintf("eval %d/%d", p.done, p.total), fmt.Sprintf("%d right", p.right)}
	if p.failed > 0 {
		parts = append(parts, fmt.Sprintf("%d could not run", p.failed))
	}
	return strings.Join(append(parts, p.pace(p.done, p.done, d)...), ", ")
}

// settingPrefix names a result's setting under --compare.
func settingPrefix(r eval.Result) string {
	if r.Setting == "" {
		return ""
	}
	return "[" + termsafe.Line(r.Setting) + "] "
}
