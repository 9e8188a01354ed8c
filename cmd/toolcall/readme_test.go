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
