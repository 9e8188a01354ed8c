package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file over 1,000 lines holds more than one idea: split it by idea
// (issue 24). Tests and generated files are not held to it.
func TestLibraryFilesShort(t *testing.T) {
	const limit = 1000
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != moduleRoot) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte("\n")); n > limit {
			t.Errorf("%s: %d lines, over %d: move a part that is one idea into a file of its own", path, n, limit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
