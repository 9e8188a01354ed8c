package main

import (
	"os"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/parse"
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
