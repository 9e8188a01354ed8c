package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeDemoWithoutRegistry runs make demo, in a copy of the
// repository, with a node and an npm whose registry cannot be reached:
// only the MCP step needs them, so it is skipped with a warning and the
// demo passes, each stage with its caption and the replay check saying
// it passed.
func TestMakeDemoWithoutRegistry(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole demo")
	}
	for _, prog := range []string{"make", "git"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed", prog)
		}
	}
	clearEnv(t)
	// A copy: make demo builds into bin/ and testdata/tools/, which other
	// tests may be reading from the checkout.
	repo := t.TempDir()
	list, err := exec.Command("git", "-C", moduleRoot, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(moduleRoot, name)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	// node is there; npm fails as it does when its registry is unreachable.
	bin := t.TempDir()
	for name, script := range map[string]string{
		"node": "#!/bin/sh\necho v22.0.0\n",
		"npm":  "#!/bin/sh\necho 'npm error code EAI_AGAIN' >&2\necho 'npm error request to https://registry.npmjs.org/ failed' >&2\nexit 1\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("make", "-s", "--no-print-directory", "demo")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make demo: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		"== 1. catalog: ",
		"== 2. parse | exec: a validation error and an unknown tool",
		"== 3. run: ",
		"→ calculator(expression: \"18 * 9 / 5 + 32\")",
		"== 4. run --check: ",
		"passed: the run matches testdata/transcripts/demo.jsonl",
		"== 5. run --mcp: ",
		"make: WARNING: node or npm is not installed, or npm ci failed (is the npm registry reachable?): SKIPPING the MCP part of the demo",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("make demo does not say %q:\n%s", want, text)
		}
	}
	// Every stage's file is one the file tools may read.
	if strings.Contains(text, "file tools may not read or change tools") {
		t.Errorf("a demo stage reads a file the file tools refuse:\n%s", text)
	}
}

// TestMakeSaysWhatSkips: go test shows nothing of a package that passes,
// so a test that skips for want of GNU parallel is said by make test
// itself, in a line of its own (issue 28).
func TestMakeSaysWhatSkips(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	const warning = "make: WARNING: GNU parallel is not installed: SKIPPING the test of the batch recipe in docs/batch.md (apt-get install parallel)\n"
	for _, tt := range []struct {
		name, parallel, want string
	}{
		{"moreutils", "#!/bin/sh\necho 'parallel [OPTIONS] command -- arguments' >&2\nexit 1\n", warning},
		{"gnu", "#!/bin/sh\necho 'GNU parallel 20221122'\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := t.TempDir()
			if err := os.WriteFile(filepath.Join(bin, "parallel"), []byte(tt.parallel), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("make", "-s", "--no-print-directory", "skipped")
			cmd.Dir = moduleRoot
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != tt.want {
				t.Errorf("make skipped: %v\n%q\nwant %q", err, out, tt.want)
			}
		})
	}
}
