package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/parse"
)

// clearEnv unsets, for the test, every TOOLCALL_ variable of the
// environment the tests were started in.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, envPrefix) {
			t.Setenv(k, "") // empty is the same as unset
		}
	}
}

// TestExecute runs the CLI in-process and checks the exact exit code,
// stdout and stderr. It covers what does not reach parse.Stream.
func TestExecute(t *testing.T) {
	formatsRE := `^toolcall: invalid argument "nosuch" for "--format" flag: unknown format; want one of apertus, command_r7b, .*hermes, .*qwen3_coder.* \(see 'toolcall parse --help'\)\n$`
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		stdout   string // exact
		stdoutRE string // instead of stdout, when set
		stderr   string // exact
		stderrRE string // instead of stderr, when set
		listing  bool   // stderr lists the commands before the error line
	}{
		{
			name:     "no-command",
			code:     exitUsage,
			stderrRE: `(?s)^Usage:\n.*Available Commands:\n.*  run  .*\ntoolcall: missing command: name one of the commands above\n$`,
			listing:  true,
		},
		{
			name:   "version-flag",
			args:   []string{"--version"},
			stdout: "toolcall " + versionString() + "\n",
		},
		{
			name:   "version-command",
			args:   []string{"version"},
			stdout: "toolcall " + versionString() + "\n",
		},
		{
			// -v is --verbose, on every command, not --version.
			name:     "version-no-v-shorthand",
			args:     []string{"-v"},
			code:     exitUsage,
			listing:  true,
			stderrRE: `(?s)^Usage:\n.*toolcall: missing command: name one of the commands above\n$`,
		},
		{
			name:   "version-with-argument",
			args:   []string{"version", "now"},
			code:   exitUsage,
			stderr: "toolcall: unknown command \"now\" for \"toolcall version\" (see 'toolcall version --help')\n",
		},
		{
			name:   "unknown-command",
			args:   []string{"nosuch"},
			code:   exitUsage,
			stderr: "toolcall: unknown command \"nosuch\" (see 'toolcall --help')\n",
		},
		{
			name:   "unknown-command-suggestion",
			args:   []string{"pars"},
			code:   exitUsage,
			stderr: "toolcall: unknown command \"pars\", did you mean \"parse\"?\n",
		},
		{
			name:   "unknown-root-flag",
			args:   []string{"--nope"},
			code:   exitUsage,
			stderr: "toolcall: unknown flag: --nope (see 'toolcall --help')\n",
		},
		{
			name:   "unknown-parse-flag",
			args:   []string{"parse", "--nope"},
			code:   exitUsage,
			stderr: "toolcall: unknown flag: --nope (see 'toolcall parse --help')\n",
		},
		{
			name:   "flag-value-missing",
			args:   []string{"parse", "--format"},
			code:   exitUsage,
			stderr: "toolcall: flag needs an argument: --format (see 'toolcall parse --help')\n",
		},
		{
			name:     "unknown-format",
			args:     []string{"parse", "--format", "nosuch"},
			code:     exitUsage,
			stderrRE: formatsRE,
		},
		{
			name:     "unknown-format-from-env",
			args:     []string{"parse"},
			env:      map[string]string{"TOOLCALL_PARSE_FORMAT": "nosuch"},
			code:     exitUsage,
			stderrRE: `^toolcall: invalid value "nosuch" for TOOLCALL_PARSE_FORMAT: unknown format; want one of apertus, command_r7b, .*hermes, .*\n$`,
		},
		{
			name:   "bad-bool-from-env",
			args:   []string{"parse"},
			env:    map[string]string{"TOOLCALL_NO_REPAIR": "maybe"},
			code:   exitUsage,
			stderr: "toolcall: invalid value \"maybe\" for TOOLCALL_NO_REPAIR: want true, 1, yes or on, or false, 0, no or off (see 'toolcall parse --help')\n",
		},
		{
			name:     "flag-wins-over-env",
			args:     []string{"parse", "--format", "hermes", "--list-formats"},
			env:      map[string]string{"TOOLCALL_PARSE_FORMAT": "nosuch"},
			stdoutRE: `(?m)^hermes +Hermes`,
		},
		{
			name:     "catalog-format-is-not-parse-format",
			args:     []string{"parse", "--list-formats"},
			env:      map[string]string{"TOOLCALL_CATALOG_FORMAT": "nosuch"},
			stdoutRE: `(?m)^hermes +Hermes`,
		},
		{
			name:     "retired-variable-is-said",
			args:     []string{"parse", "--list-formats"},
			env:      map[string]string{"TOOLCALL_FORMAT": "hermes", "TOOLCALL_TIMEOUT": "1m"},
			stdoutRE: `(?m)^hermes +Hermes`,
			stderr: "toolcall: warning: TOOLCALL_FORMAT is not read: one variable has one meaning, so set TOOLCALL_PARSE_FORMAT (parse --format) or TOOLCALL_CATALOG_FORMAT (catalog --format) instead\n" +
				"toolcall: warning: TOOLCALL_TIMEOUT is not read: one variable has one meaning, so set TOOLCALL_TOOL_TIMEOUT (exec --timeout, run --tool-timeout) or TOOLCALL_RUN_TIMEOUT (run --timeout) instead\n",
		},
		{
			name:   "missing-file",
			args:   []string{"parse", "nosuch.txt"},
			code:   exitUsage,
			stderr: "toolcall: open nosuch.txt: no such file or directory\n",
		},
		{
			name:   "missing-file-after-good-one",
			args:   []string{"parse", "main.go", "nosuch.txt"},
			code:   exitUsage,
			stderr: "toolcall: open nosuch.txt: no such file or directory\n",
		},
		{
			name:   "directory",
			args:   []string{"parse", "."},
			code:   exitUsage,
			stderr: "toolcall: .: is a directory\n",
		},
		{
			name:     "list-formats",
			args:     []string{"parse", "--list-formats"},
			stdoutRE: `^apertus +Swiss AI Apertus\n(?:[a-z0-9_]+ +\S.*\n)+$`,
		},
		{
			name:   "list-formats-with-file",
			args:   []string{"parse", "--list-formats", "reply.txt"},
			code:   exitUsage,
			stderr: "toolcall: --list-formats takes no files (see 'toolcall parse --help')\n",
		},
		{
			name:     "list-formats-has-no-env",
			args:     []string{"parse", "--nope"},
			env:      map[string]string{"TOOLCALL_LIST_FORMATS": "1"},
			code:     exitUsage,
			stderrRE: `^toolcall: unknown flag: --nope`,
		},
		{
			name:     "help",
			args:     []string{"--help"},
			stdoutRE: `(?s)Exit status:.*\n    141 .*TOOLCALL_NO_REPAIR=1`,
		},
		{
			name:     "parse-help",
			args:     []string{"help", "parse"},
			stdoutRE: `(?s)parse_error +error.*curl -sN http://127\.0\.0\.1:8080/v1/chat/completions -d @req\.json \| toolcall parse`,
		},
		{
			name:     "completion-script",
			args:     []string{"completion", "fish"},
			stdoutRE: `complete -c toolcall `,
		},
		{
			name:     "complete-commands",
			args:     []string{"__complete", ""},
			stdoutRE: `^catalog\t.*\ncompletion\t.*\neval\t.*\nexec\t.*\nhelp\t.*\nmcp\t.*\nnew\t.*\nparse\t.*\nprobe\t.*\nrun\t.*\nshow\t.*\nvalidate\t.*\nversion\t.*\n:4\n`,
			stderr:   "Completion ended with directive: ShellCompDirectiveNoFileComp\n",
		},
		{
			name:     "complete-format",
			args:     []string{"__complete", "parse", "--format", "qwen"},
			stdoutRE: `^qwen3_coder\tQwen3-Coder.*\n:4\n`,
			stderr:   "Completion ended with directive: ShellCompDirectiveNoFileComp\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("toolcall %q exited %d, want %d (stderr %q)", tt.args, code, tt.code, stderr.String())
			}
			checkOutput(t, "stdout", stdout.String(), tt.stdout, tt.stdoutRE)
			checkOutput(t, "stderr", stderr.String(), tt.stderr, tt.stderrRE)
			if code != exitOK && !tt.listing && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr = %q, want exactly one line", stderr.String())
			}
		})
	}
}

func checkOutput(t *testing.T, what, got, want, wantRE string) {
	t.Helper()
	if wantRE != "" {
		if !regexp.MustCompile(wantRE).MatchString(got) {
			t.Errorf("%s = %q, want a match for %q", what, got, wantRE)
		}
		return
	}
	if got != want {
		t.Errorf("%s mismatch (-want +got):\n%s", what, cmp.Diff(want, got))
	}
}

// fakeStream stands in for parse.Stream: it records the options of each
// call and returns the next of stats, or fails with err.
type fakeStream struct {
	opts  []parse.Options
	read  []string
	stats []parse.Stats
	err   error
}

func (f *fakeStream) stream(_ context.Context, r io.Reader, w io.Writer, opts parse.Options) (parse.Stats, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return parse.Stats{}, err
	}
	f.read = append(f.read, string(b))
	f.opts = append(f.opts, opts)
	if f.err != nil {
		return parse.Stats{}, f.err
	}
	st := f.stats[len(f.opts)-1]
	fmt.Fprintf(w, "{\"input\":%d}\n", len(f.opts))
	return st, nil
}

// TestParseRun checks what parse does around parse.Stream: the options it
// passes, ids that go on across files, --fail, errors and the stdin hint.
func TestParseRun(t *testing.T) {
	pathErr := &fs.PathError{Op: "read", Path: "b.txt", Err: errors.New("input/output error")}
	tests := []struct {
		name     string
		opts     parseOptions
		ins      []input
		terminal bool
		stats    []parse.Stats
		err      error // from the stream

		wantOpts   []parse.Options
		wantErr    error
		wantErrMsg string
		wantStderr string
	}{
		{
			name:     "ids-go-on-across-files",
			opts:     parseOptions{format: "hermes", noRepair: true},
			ins:      []input{{name: "a.txt", r: strings.NewReader("a")}, {name: "b.txt", r: strings.NewReader("b")}, {r: strings.NewReader("c")}},
			stats:    []parse.Stats{{Events: 3, Calls: 2}, {Events: 1}, {Events: 1, Calls: 1}},
			wantOpts: []parse.Options{{Format: "hermes", NoRepair: true, File: "a.txt"}, {Format: "hermes", NoRepair: true, FirstID: 2, File: "b.txt"}, {Format: "hermes", NoRepair: true, FirstID: 2, File: "stdin"}},
		},
		{
			name:     "parse-errors-without-fail",
			ins:      []input{{r: strings.NewReader("x")}},
			stats:    []parse.Stats{{Events: 1, Errors: 1}},
			wantOpts: []parse.Options{{}},
		},
		{
			name:       "fail-one-error",
			opts:       parseOptions{fail: true},
			ins:        []input{{r: strings.NewReader("x")}},
			stats:      []parse.Stats{{Events: 1, Errors: 1}},
			wantOpts:   []parse.Options{{}},
			wantErr:    errReported,
			wantStderr: "toolcall: 1 parse error\n",
		},
		{
			name:       "fail-counts-every-file",
			opts:       parseOptions{fail: true},
			ins:        []input{{name: "a.txt", r: strings.NewReader("a")}, {name: "b.txt", r: strings.NewReader("b")}},
			stats:      []parse.Stats{{Events: 2, Errors: 1}, {Events: 3, Calls: 1, Errors: 2}},
			wantOpts:   []parse.Options{{File: "a.txt"}, {File: "b.txt"}},
			wantErr:    errReported,
			wantStderr: "toolcall: a.txt: 1 parse error\ntoolcall: b.txt: 2 parse errors\ntoolcall: 3 parse errors\n",
		},
		{
			name:       "fail-names-only-files-with-errors",
			opts:       parseOptions{fail: true},
			ins:        []input{{name: "a.txt", r: strings.NewReader("a")}, {r: strings.NewReader("b")}},
			stats:      []parse.Stats{{Events: 2, Calls: 2}, {Events: 1, Errors: 1}},
			wantOpts:   []parse.Options{{File: "a.txt"}, {FirstID: 2, File: "stdin"}},
			wantErr:    errReported,
			wantStderr: "toolcall: stdin: 1 parse error\ntoolcall: 1 parse error\n",
		},
		{
			name:     "fail-without-errors",
			opts:     parseOptions{fail: true},
			ins:      []input{{r: strings.NewReader("x")}},
			stats:    []parse.Stats{{Events: 1, Calls: 1}},
			wantOpts: []parse.Options{{}},
		},
		{
			name:       "stream-error-names-the-file",
			ins:        []input{{name: "a.txt", r: strings.NewReader("a")}},
			err:        errors.New("boom"),
			wantOpts:   []parse.Options{{}},
			wantErrMsg: "a.txt: boom",
		},
		{
			name:       "path-error-not-named-twice",
			ins:        []input{{name: "b.txt", r: strings.NewReader("b")}},
			err:        pathErr,
			wantOpts:   []parse.Options{{}},
			wantErr:    pathErr,
			wantErrMsg: "read b.txt: input/output error",
		},
		{
			name:       "hint-when-stdin-is-a-terminal",
			ins:        []input{{name: "a.txt", r: strings.NewReader("a")}, {r: strings.NewReader("b")}},
			terminal:   true,
			stats:      []parse.Stats{{}, {}},
			wantOpts:   []parse.Options{{File: "a.txt"}, {File: "stdin"}},
			wantStderr: stdinHint + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeStream{stats: tt.stats, err: tt.err}
			o := tt.opts
			o.stream = fake.stream
			o.isTerminal = func(io.Reader) bool { return tt.terminal }
			var stdout, stderr bytes.Buffer
			err := o.parseAll(context.Background(), tt.ins, &stdout, &stderr, parse.Options{Format: string(o.format), NoRepair: o.noRepair})
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("run: err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErrMsg != "" && (err == nil || err.Error() != tt.wantErrMsg) {
				t.Errorf("run: err = %v, want %q", err, tt.wantErrMsg)
			}
			if tt.wantErr == nil && tt.wantErrMsg == "" && err != nil {
				t.Errorf("run: err = %v, want nil", err)
			}
			if diff := cmp.Diff(tt.wantOpts, fake.opts); diff != "" {
				t.Errorf("options passed to Stream (-want +got):\n%s", diff)
			}
			if got := stderr.String(); got != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", got, tt.wantStderr)
			}
			for i, in := range tt.ins[:len(fake.read)] {
				if in.name == "" && fake.read[i] == "" {
					t.Errorf("input %d: stdin was not read", i)
				}
			}
		})
	}
}

func TestApplyEnv(t *testing.T) {
	newFlags := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("parse", pflag.ContinueOnError)
		fs.String("format", "", "")
		fs.Bool("no-repair", false, "")
		fs.Int("max-tokens", 0, "")
		fs.Bool("list-formats", false, "")
		fs.Bool("help", false, "")
		noEnv(fs, "list-formats")
		return fs
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    map[string]string // flag values after applyEnv
		wantErr string
	}{
		{
			name: "env-sets-flags",
			env:  map[string]string{"TOOLCALL_FORMAT": "hermes", "TOOLCALL_NO_REPAIR": "1", "TOOLCALL_MAX_TOKENS": "64"},
			want: map[string]string{"format": "hermes", "no-repair": "true", "max-tokens": "64"},
		},
		{
			name: "flag-wins",
			args: []string{"--format", "mistral"},
			env:  map[string]string{"TOOLCALL_FORMAT": "hermes"},
			want: map[string]string{"format": "mistral"},
		},
		{
			name: "empty-is-unset",
			env:  map[string]string{"TOOLCALL_FORMAT": "", "TOOLCALL_NO_REPAIR": ""},
			want: map[string]string{"format": "", "no-repair": "false"},
		},
		{
			name: "actions-have-no-variable",
			env:  map[string]string{"TOOLCALL_LIST_FORMATS": "true", "TOOLCALL_HELP": "true"},
			want: map[string]string{"list-formats": "false", "help": "false"},
		},
		{
			name:    "bad-number",
			env:     map[string]string{"TOOLCALL_MAX_TOKENS": "lots"},
			wantErr: `TOOLCALL_MAX_TOKENS: "lots" is not a whole number`,
		},
		{
			name:    "bad-bool",
			env:     map[string]string{"TOOLCALL_NO_REPAIR": "maybe"},
			wantErr: `invalid value "maybe" for TOOLCALL_NO_REPAIR: want true, 1, yes or on, or false, 0, no or off`,
		},
		{
			// Yes and no, as people write them in an environment (issue 28).
			name: "bool-yes",
			env:  map[string]string{"TOOLCALL_NO_REPAIR": "Yes"},
			want: map[string]string{"no-repair": "true"},
		},
		{
			name: "bool-off",
			env:  map[string]string{"TOOLCALL_NO_REPAIR": "off"},
			want: map[string]string{"no-repair": "false"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFlags()
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			err := applyEnv(fs, lookup)
			if tt.wantErr != "" {
				var uerr *usageError
				if !errors.As(err, &uerr) || err.Error() != tt.wantErr {
					t.Fatalf("applyEnv: err = %v, want usage error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("applyEnv: %v", err)
			}
			for name, want := range tt.want {
				if got := fs.Lookup(name).Value.String(); got != want {
					t.Errorf("--%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	for flag, want := range map[string]string{
		"format":         "TOOLCALL_FORMAT",
		"no-repair":      "TOOLCALL_NO_REPAIR",
		"max-iterations": "TOOLCALL_MAX_ITERATIONS",
	} {
		if got := envName(flag); got != want {
			t.Errorf("envName(%q) = %q, want %q", flag, got, want)
		}
	}
}

// TestOneVariableOneMeaning: a variable read by flags of several commands
// means one thing in all of them. Flags whose help differs in words but
// not in meaning are listed; a new flag that shares a variable with a flag
// of another meaning must get its own (envAs).
func TestOneVariableOneMeaning(t *testing.T) {
	sameMeaning := map[string]bool{
		"TOOLCALL_CONFIRM": true, "TOOLCALL_DRY_RUN": true, "TOOLCALL_ENV": true,
		"TOOLCALL_FAIL": true, "TOOLCALL_MAX_OUTPUT": true, "TOOLCALL_PARALLEL": true,
		"TOOLCALL_REDACT": true, "TOOLCALL_STYLE": true, "TOOLCALL_WORKDIR": true,
		"TOOLCALL_SCRATCH":   true, // the directory of saved outputs, written by exec and read by validate
		"TOOLCALL_MODEL":     true, // probe picks a default where run leaves it to the server
		"TOOLCALL_PAGE_SIZE": true, // tools per page of an MCP tools/list, rendered by catalog or served by mcp serve
		"TOOLCALL_BINARY_OK": true, // input that is not text taken rather than refused, by parse as model output, by run as the request
		"TOOLCALL_JSON":      true, // the events as JSONL on a terminal too, probe's or eval's, in place of the table
	}
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	type use struct{ cmd, flag, usage string }
	byVar := map[string][]use{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if hasEnv(f) {
				byVar[flagEnv(f)] = append(byVar[flagEnv(f)], use{c.Name(), f.Name, f.Usage})
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for v, uses := range byVar {
		for _, u := range uses[1:] {
			if u.usage != uses[0].usage && !sameMeaning[v] {
				t.Errorf("%s is read by %s --%s (%q) and %s --%s (%q): give one of them its own variable with envAs",
					v, uses[0].cmd, uses[0].flag, uses[0].usage, u.cmd, u.flag, u.usage)
			}
		}
	}
	for _, want := range []struct{ cmd, flag, v string }{
		{"parse", "format", "TOOLCALL_PARSE_FORMAT"},
		{"catalog", "format", "TOOLCALL_CATALOG_FORMAT"},
		{"exec", "timeout", "TOOLCALL_TOOL_TIMEOUT"},
		{"run", "tool-timeout", "TOOLCALL_TOOL_TIMEOUT"},
		{"run", "timeout", "TOOLCALL_RUN_TIMEOUT"},
	} {
		if !slices.ContainsFunc(byVar[want.v], func(u use) bool { return u.cmd == want.cmd && u.flag == want.flag }) {
			t.Errorf("%s --%s is not set by %s", want.cmd, want.flag, want.v)
		}
	}
	for _, v := range []string{"TOOLCALL_FORMAT", "TOOLCALL_TIMEOUT"} {
		if len(byVar[v]) > 0 {
			t.Errorf("%s, which meant different things, is still read by %v", v, byVar[v])
		}
	}
}
