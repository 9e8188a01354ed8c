package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/run"
)

// TestDocsFormats keeps the table of docs/formats.md in step with the
// formats parse knows, and README.md's count of them.
func TestDocsFormats(t *testing.T) {
	table := readManual(t, "docs/formats.md")
	for _, f := range parse.Formats() {
		if !strings.Contains(table, "| `"+f.ID+"` |") {
			t.Errorf("docs/formats.md does not list format %s", f.ID)
		}
	}
	readme := strings.Join(strings.Fields(readManual(t, "README.md")), " ")
	if n := strconv.Itoa(len(parse.Formats())); !strings.Contains(readme, "It knows "+n+" call syntaxes") {
		t.Errorf("README.md does not say parse knows %s call syntaxes", n)
	}
}

// TestDocsRepairKinds keeps the table of repairs of docs/json-repair.md
// in step with the kinds a tool_call's "repairs" may name, in their order.
func TestDocsRepairKinds(t *testing.T) {
	doc := readManual(t, "docs/json-repair.md")
	at := 0
	for _, k := range parse.RepairKinds() {
		i := strings.Index(doc[at:], "\n| `"+k+"` |")
		if i < 0 {
			t.Errorf("docs/json-repair.md does not list the repair %s (or not in its order)", k)
			continue
		}
		at += i
	}
}

// TestDocsModelCmd keeps the model command shown in docs/models.md the
// one that testdata/script/run_model_cmd.txtar runs.
func TestDocsModelCmd(t *testing.T) {
	doc := readManual(t, "docs/models.md")
	script, err := os.ReadFile("../../testdata/models/calc-model")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc, "```sh\n"+string(script)+"```") {
		t.Error("docs/models.md does not show testdata/models/calc-model as it is")
	}
}

// TestDocsRetryWording keeps docs/models.md and run --help saying how
// many times a request is tried as the code does it; the errors count the
// attempts made (run's TestHTTPRetries).
func TestDocsRetryWording(t *testing.T) {
	words := map[int]string{2: "two", 3: "three", 4: "four", 5: "five"}
	n := run.DefaultAttempts
	want := "tried " + words[n] + " times in all (" + words[n-1] + " retries)"
	for name, text := range map[string]string{"docs/models.md": readManual(t, "docs/models.md"), "run --help": runLong} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("%s does not say %q", name, want)
		}
	}
	if msg := (&run.ProviderError{Status: 503, Message: "busy", Attempts: n}).Error(); !strings.HasSuffix(msg, "(after "+strconv.Itoa(n)+" attempts)") {
		t.Errorf("the error says %q", msg)
	}
}

// TestReadmeShow keeps README.md's toolcall show example what show
// writes for the bundled transcript, also in -short mode, where
// TestDocsExamples does not run.
func TestReadmeShow(t *testing.T) {
	readme := readManual(t, "README.md")
	const cmd = "$ toolcall show testdata/transcripts/demo.jsonl\n"
	_, rest, ok := strings.Cut(readme, "```console\n"+cmd)
	if !ok {
		t.Fatal("README.md has no toolcall show example")
	}
	shown, _, _ := strings.Cut(rest, "```")
	var stdout, stderr strings.Builder
	if code := execute(context.Background(), []string{"show", "../../testdata/transcripts/demo.jsonl"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.String() != shown {
		t.Errorf("README.md shows\n%s\nshow writes\n%s", shown, stdout.String())
	}
}

// TestRootHelpWraps keeps the description at the top of toolcall --help
// within 80 columns, and its paragraphs filled: no line of one broken
// short (under 60 columns) with more of the paragraph after it.
func TestRootHelpWraps(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := execute(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	description, _, _ := strings.Cut(stdout.String(), "\nUsage:")
	lines := strings.Split(description, "\n")
	prose := func(l string) bool { return l != "" && !strings.HasPrefix(l, " ") }
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, n, l)
		}
		if i+1 < len(lines) && prose(l) && prose(lines[i+1]) && !strings.HasSuffix(l, ":") && utf8.RuneCountInString(l) < 60 {
			t.Errorf("line %d is broken short: %q, then %q", i+1, l, lines[i+1])
		}
	}
}

// README.md is the first page a new user reads, and a page: the rest is
// in docs/. It stays within 400 lines (issue 41).
func TestReadmeLength(t *testing.T) {
	readme := readManual(t, "README.md")
	if n := strings.Count(readme, "\n"); n > 400 {
		t.Errorf("README.md has %d lines: move detail to docs/ until it has 400 or fewer", n)
	}
}
