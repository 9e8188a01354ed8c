package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The attack: a hostile model server answers with an error whose text
// sets the terminal's title, writes the clipboard (OSC 52), clears the
// screen, and forges a line of toolcall's own. What reaches stderr shows
// those bytes escaped, and every line on it is toolcall's.
func TestHostileServerErrorIsEscapedOnStderr(t *testing.T) {
	evil := "\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\nboom\ntoolcall: the run matches golden.jsonl"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"`+strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`, "\n", `\n`).Replace(evil)+`"}}`)
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	execute(context.Background(), []string{"run", "--tools", t.TempDir(), "--base-url", srv.URL + "/v1", "Hello?"},
		strings.NewReader(""), &stdout, &stderr)
	got := stderr.String()
	if !strings.Contains(got, "owned") {
		t.Fatalf("the server's error is not on stderr at all: %q", got)
	}
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("control bytes reached stderr: %q", got)
	}
	if !strings.Contains(got, `\x1b]0;owned\x07`) {
		t.Errorf("stderr does not show the escape sequence escaped: %q", got)
	}
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if strings.HasPrefix(line, "toolcall: the run matches") {
			t.Errorf("the server forged a line of toolcall's: %q", got)
		}
	}
}

// A tool's stderr copied with --stderr passes line by line, its control
// bytes escaped.
func TestHostileToolStderrIsEscaped(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "noisy.json"), []byte(`{"description":"Writes to stderr.","input_schema":{"type":"object"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "noisy"), []byte("#!/bin/sh\nprintf 'one\\n\\033]52;c;ZXZpbA==\\007two\\n' >&2\necho done\n"), 0o755)
	var stdout, stderr bytes.Buffer
	execute(context.Background(), []string{"exec", "--stderr", "--tools", dir},
		strings.NewReader(`{"type":"tool_call","id":"c1","name":"noisy","arguments":{}}`+"\n"), &stdout, &stderr)
	got := stderr.String()
	if !strings.Contains(got, "one\n") || !strings.Contains(got, `\x1b]52;c;ZXZpbA==\x07two`) || strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("stderr = %q", got)
	}
}

// The attack: usage errors echo what was given, and what was given may be
// the key or a password: a base URL written without "//", an --extra
// that is not an object, --api-key in a message. None reaches stderr.
func TestHostileUsageErrorsDoNotEchoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	for name, args := range map[string][]string{
		"base url without //":   {"run", "--tools", t.TempDir(), "--base-url", "user:hunter2-secret@127.0.0.1:1/v1", "hi"},
		"base url = without //": {"run", "--tools", t.TempDir(), "--base-url=user:hunter2-secret@127.0.0.1:1/v1", "hi"},
		"extra not an object":   {"run", "--tools", t.TempDir(), "--base-url", "http://127.0.0.1:1/v1", "--extra", `[{"api_key":"hunter2-secret"}]`, "hi"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit %d, want 2 (usage); stderr %q", code, stderr.String())
			}
			if strings.Contains(stderr.String(), "hunter2-secret") {
				t.Errorf("stderr echoes the secret: %q", stderr.String())
			}
		})
	}
}

// The secrets of an invocation are read from its flags as parsed: the
// key, a URL's password in any flag or argument, --extra's secret keys.
func TestFlagSecrets(t *testing.T) {
	cmd := &cobra.Command{Use: "x", Run: func(*cobra.Command, []string) {}}
	cmd.Flags().String("api-key", "", "")
	cmd.Flags().String("extra", "", "")
	cmd.Flags().StringArray("mcp", nil, "")
	if err := cmd.ParseFlags([]string{"--api-key=k-123456", "--extra", `{"a":{"token":"t-abcdef"}}`, "--mcp", "http://u:pw-mcp1@127.0.0.1/mcp", "u:pw-bare1@host/v1"}); err != nil {
		t.Fatal(err)
	}
	got := flagSecrets(cmd)
	for _, want := range []string{"k-123456", "t-abcdef", "pw-mcp1", "pw-bare1"} {
		if !slices.Contains(got, want) {
			t.Errorf("flagSecrets = %q, want %q among them", got, want)
		}
	}
}
