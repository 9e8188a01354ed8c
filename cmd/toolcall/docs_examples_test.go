package main

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
)

// The manual: README.md and docs/*.md, relative to the module root.
func manualFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(moduleRoot, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(filepath.Join("docs", filepath.Base(d))))
	}
	return files
}

// readManual reads a file of the manual, by its path from the module root.
func readManual(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docBlock is a fenced code block of the manual.
type docBlock struct {
	file string // from the module root
	line int    // of the opening fence
	lang string // after the fence: console, sh, json, …
	text string // between the fences, with its final newline
	mark string // the HTML comment on the line before the fence, if any
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docBlocks returns the fenced blocks of one file of the manual.
func docBlocks(t *testing.T, name string) []docBlock {
	t.Helper()
	var (
		blocks []docBlock
		cur    *docBlock
		prev   string
	)
	for i, l := range strings.Split(readManual(t, name), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &docBlock{file: name, line: i + 1, lang: strings.TrimPrefix(l, "```")}
			if strings.HasPrefix(prev, "<!--") {
				cur.mark = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(prev, "<!--"), "-->"))
			}
		case cur != nil && l == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += l + "\n"
		}
		prev = l
	}
	if cur != nil {
		t.Errorf("%s: the block opened on line %d is not closed", name, cur.line)
	}
	return blocks
}

// A block that is not run says why on the line before it:
// <!-- not run: REASON -->, or <!-- run by FILE --> for a recipe that a
// test runs in a form of its own (FILE, from the module root, names it).
var (
	notRunMark = regexp.MustCompile(`^not run: \S`)
	runByMark  = regexp.MustCompile(`^run by (\S+)$`)
)

// TestDocsExamples runs every console example of README.md and docs/: each
// "$ command" in the block's own temporary directory, where testdata holds
// the module's testdata (its tools built), and compares what it writes,
// stdout and stderr together, with the lines the block shows after it.
// duration_ms, first_token_ms, a step's phases and a batch's percentiles
// are not compared, and a line "…" or
// "..." stands for any lines. A "$ cat FILE" of a file that is not in
// testdata makes FILE what the block shows. Every other block that runs
// toolcall says where it is run, or why it is not.
func TestDocsExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example of the manual")
	}
	dir := t.TempDir()
	var scripts []string
	for _, name := range manualFiles(t) {
		for _, b := range docBlocks(t, name) {
			switch m := b.mark; {
			case notRunMark.MatchString(m):
				continue
			case runByMark.MatchString(m):
				file := runByMark.FindStringSubmatch(m)[1]
				if _, err := os.Stat(filepath.Join(moduleRoot, file)); err != nil {
					t.Errorf("%s: run by %s, which is not there", b, file)
				}
				continue
			case m != "" && m != "run":
				t.Errorf("%s: the comment before the block is %q, not \"not run: REASON\" or \"run by FILE\"", b, m)
				continue
			}
			if b.lang != "console" {
				if strings.Contains(b.text, "toolcall ") {
					t.Errorf("%s: a %q block that runs toolcall says neither where it is run (<!-- run by FILE -->) nor why it is not (<!-- not run: REASON -->); an example with its output is a console block, which this test runs", b, b.lang)
				}
				continue
			}
			script, err := consoleScript(b)
			if err != nil {
				t.Errorf("%s: %v", b, err)
				continue
			}
			path := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(b.file)+fmt.Sprintf("_%d.txtar", b.line))
			if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			scripts = append(scripts, path)
		}
	}
	if len(scripts) == 0 {
		t.Fatal("no console examples found")
	}
	examples := buildExamples(t)
	module, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	testdata := filepath.Join(module, "testdata")
	testscript.Run(t, testscript.Params{
		Files:               scripts,
		RequireExplicitExec: true,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"cmpdoc": cmpDoc},
		Setup: func(env *testscript.Env) error {
			// The module's files, read-only by convention (but tools/,
			// where toolcall new writes), and testdata as in the module
			// with the tools built.
			root, err := os.ReadDir(moduleRoot)
			if err != nil {
				return err
			}
			for _, e := range root {
				if n := e.Name(); n != "testdata" && n != "tools" && n != "bin" && !strings.HasPrefix(n, ".") {
					if err := os.Symlink(filepath.Join(module, n), filepath.Join(env.WorkDir, n)); err != nil {
						return err
					}
				}
			}
			entries, err := os.ReadDir(testdata)
			if err != nil {
				return err
			}
			if err := os.Mkdir(filepath.Join(env.WorkDir, "testdata"), 0o755); err != nil {
				return err
			}
			for _, e := range entries {
				target := filepath.Join(testdata, e.Name())
				if e.Name() == "tools" {
					target = examples
				}
				if err := os.Symlink(target, filepath.Join(env.WorkDir, "testdata", e.Name())); err != nil {
					return err
				}
			}
			env.Setenv("NO_COLOR", "1")
			env.Setenv("GOCACHE", goCache())
			return nil
		},
	})
}

// heredoc matches the start of a here-document, naming its terminator.
var heredoc = regexp.MustCompile(`<<-?'?([A-Za-z_]+)'?`)

// catFile matches an example that shows a file of its own (one outside
// testdata).
var catFile = regexp.MustCompile(`^cat ([A-Za-z0-9_.-][A-Za-z0-9_./-]*)$`)

// consoleScript turns a console block into a testscript: its commands in
// example.sh, run with stderr into stdout, then compared with the output
// the block shows.
func consoleScript(b docBlock) (string, error) {
	var (
		cmds, want []string
		files      = map[string]string{}
		lines      = strings.Split(strings.TrimSuffix(b.text, "\n"), "\n")
		cat        string // the file a "$ cat FILE" shows, while its lines come
	)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "$ ") {
			if len(cmds) == 0 {
				return "", fmt.Errorf("output before the first command: %q", l)
			}
			want = append(want, l)
			if cat != "" {
				files[cat] += l + "\n"
			}
			continue
		}
		cmd := strings.TrimPrefix(l, "$ ")
		cat = ""
		if m := catFile.FindStringSubmatch(cmd); m != nil && !strings.HasPrefix(m[1], "testdata/") {
			cat = m[1]
			files[cat] = ""
		}
		// The command goes on over a trailing \ or |, and to the end of a
		// here-document.
		end := ""
		if m := heredoc.FindStringSubmatch(cmd); m != nil {
			end = m[1]
		}
		for i+1 < len(lines) && (end != "" || strings.HasSuffix(cmd, "\\") || strings.HasSuffix(cmd, "|")) {
			i++
			cmd += "\n" + lines[i]
			if lines[i] == end {
				end = ""
			}
		}
		if end != "" {
			return "", fmt.Errorf("the here-document %s is not ended", end)
		}
		cmds = append(cmds, cmd)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "# %s\n", b)
	if strings.Contains(strings.Join(cmds, "\n"), "jq ") {
		s.WriteString("[!exec:jq] skip 'jq is not installed: the example is NOT run'\n")
	}
	if strings.Contains(strings.Join(cmds, "\n"), "--lang python") {
		s.WriteString("[!exec:python3] skip 'python3 is not installed: the example is NOT run'\n")
	}
	s.WriteString("exec sh example.sh\ncmpdoc stdout want.txt\n")
	fmt.Fprintf(&s, "-- example.sh --\nexec 2>&1\n%s\n", strings.Join(cmds, "\n"))
	fmt.Fprintf(&s, "-- want.txt --\n")
	for _, l := range want {
		s.WriteString(l + "\n")
	}
	for name, content := range files {
		if name == "example.sh" || name == "want.txt" {
			return "", fmt.Errorf("the example shows a file named %s, which the test uses", name)
		}
		fmt.Fprintf(&s, "-- %s --\n%s", name, content)
	}
	return s.String(), nil
}

// timings matches the fields whose values change from run to run.
var timings = regexp.MustCompile(`"(duration_ms|first_token_ms|model_ms|parse_ms|validate_ms|exec_ms|p50|p95)":[0-9]+`)

// cmpDoc is the script command "cmpdoc got want": got matches the output
// an example shows, timings aside, a line of "…" or "..." standing for any
// lines.
func cmpDoc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpdoc got want")
	}
	norm := func(s string) []string {
		s = timings.ReplaceAllString(s, `"$1":0`)
		return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	got, want := norm(ts.ReadFile(args[0])), norm(ts.ReadFile(args[1]))
	if !matchLines(got, want) {
		ts.Fatalf("the example's output differs (-shown +written):\n%s", cmp.Diff(strings.Join(want, "\n"), strings.Join(got, "\n")))
	}
}

// matchLines reports whether got matches want, where a want line "…" or
// "..." matches any lines, none included.
func matchLines(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || len(got) == 1 && got[0] == ""
	}
	if w := want[0]; w == "…" || w == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(got[i:], want[1:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matchLines(got[1:], want[1:])
}

// TestDocsLinks checks that every relative link of README.md and docs/
// names a file of the module, and every #anchor a heading of the file it
// points into.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(name string) map[string]bool {
		if a, ok := anchors[name]; ok {
			return a
		}
		a := map[string]bool{}
		anchors[name] = a
		b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(name)))
		if err != nil {
			return a
		}
		fence := false
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			l := sc.Text()
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if !fence && strings.HasPrefix(l, "#") {
				a[headingAnchor(strings.TrimLeft(l, "#"))] = true
			}
		}
		return a
	}
	for _, name := range manualFiles(t) {
		text := readManual(t, name)
		// Links in code are not links.
		var prose strings.Builder
		fence := false
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "```") {
				fence = !fence
				continue
			}
			if !fence {
				prose.WriteString(regexp.MustCompile("`[^`]*`").ReplaceAllString(l, "") + "\n")
			}
		}
		for _, m := range link.FindAllStringSubmatch(prose.String(), -1) {
			target := m[1]
			if u, err := url.Parse(target); err != nil || u.Scheme != "" {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			if file == "" {
				file = name
			} else {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(name), file))
				if _, err := os.Stat(filepath.Join(moduleRoot, filepath.FromSlash(file))); err != nil {
					t.Errorf("%s: the link %s names %s, which is not there", name, target, file)
					continue
				}
			}
			if anchor != "" && !anchorsOf(file)[anchor] {
				t.Errorf("%s: the link %s names no heading of %s", name, target, file)
			}
		}
	}
}

// headingAnchor is the anchor GitHub gives a heading: lower case, spaces
// as dashes, punctuation other than - and _ dropped.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocsInstalled checks that make install puts the manual, which the
// man pages point at, in share/doc/toolcall, with README.md's links to
// docs/ still between them.
func TestDocsInstalled(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command("make", "-n", "--no-print-directory", "install", "DESTDIR=/dest", "PREFIX=/usr")
	cmd.Dir = moduleRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n install: %v\n%s", err, out)
	}
	for _, want := range []string{
		"install -m 0644 README.md /dest/usr/share/doc/toolcall/README.md\n",
		"install -m 0644 docs/*.md /dest/usr/share/doc/toolcall/docs/\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make install does not run %q:\n%s", want, out)
		}
	}
	if !strings.Contains(rootDescription, "PREFIX/share/doc/toolcall") {
		t.Error("toolcall --help (and toolcall(1)) does not say where make install puts the manual")
	}
}
