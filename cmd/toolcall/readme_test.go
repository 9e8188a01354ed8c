package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/run"
)

// TestReadmeFormats keeps the README's format table in step with the
// formats parse knows.
func TestReadmeFormats(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range parse.Formats() {
		if !strings.Contains(string(readme), "| `"+f.ID+"` |") {
			t.Errorf("README.md does not list format %s", f.ID)
		}
	}
}

// TestReadmeRepairKinds keeps the README's table of repairs in step with
// the kinds a tool_call's "repairs" may name, in their order.
func TestReadmeRepairKinds(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, k := range parse.RepairKinds() {
		i := strings.Index(string(readme[at:]), "\n| `"+k+"` |")
		if i < 0 {
			t.Errorf("README.md does not list the repair %s (or not in its order)", k)
			continue
		}
		at += i
	}
}

// TestReadmeModelCmd keeps the model command shown in README.md the one
// that testdata/script/run_model_cmd.txtar runs.
func TestReadmeModelCmd(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../testdata/models/calc-model")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```sh\n"+string(script)+"```") {
		t.Error("README.md does not show testdata/models/calc-model as it is")
	}
}

// TestRetryWording keeps README.md and run --help saying how many times a
// request is tried as the code does it; the errors count the attempts
// made (run's TestHTTPRetries).
func TestRetryWording(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	words := map[int]string{2: "two", 3: "three", 4: "four", 5: "five"}
	n := run.DefaultAttempts
	want := "tried " + words[n] + " times in all (" + words[n-1] + " retries)"
	for name, text := range map[string]string{"README.md": string(readme), "run --help": runLong} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("%s does not say %q", name, want)
		}
	}
	if msg := (&run.ProviderError{Status: 503, Message: "busy", Attempts: n}).Error(); !strings.HasSuffix(msg, "(after "+strconv.Itoa(n)+" attempts)") {
		t.Errorf("the error says %q", msg)
	}
}

// TestReadmeShow keeps README.md's toolcall show example what show
// writes for the bundled transcript.
func TestReadmeShow(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "$ toolcall show testdata/transcripts/demo.jsonl\n"
	_, rest, ok := strings.Cut(string(readme), "```console\n"+cmd)
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
