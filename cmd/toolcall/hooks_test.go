//go:build unix

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookFlags: a hook that cannot run, a retry count out of range and
// a hook time limit of nothing are the invocation's fault, in exec, run
// and mcp serve alike, said in one line before any tool is loaded.
func TestHookFlags(t *testing.T) {
	for _, tc := range []struct {
		cmd, flags, problem string
	}{
		{"exec", "--before-call ./no-such-hook", "--before-call: ./no-such-hook: no such file"},
		{"run", "--after-call no-such-hook-anywhere hi", "--after-call: no-such-hook-anywhere: not found on PATH"},
		{"mcp serve", "--before-call=", "--before-call is empty: give the program to run as the hook"},
		{"exec", "--retries 11", "--retries 11: want 0 to 10"},
		{"mcp serve", "--retries -1", "--retries -1: want 0 to 10"},
		{"run", "--hook-timeout 0 hi", "--hook-timeout 0: want more than 0, such as 10s"},
	} {
		t.Run(tc.cmd+" "+tc.flags, func(t *testing.T) {
			clearEnv(t)
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), append(strings.Fields(tc.cmd), strings.Fields(tc.flags)...), strings.NewReader(""), &stdout, &stderr)
			want := "toolcall: " + tc.problem + " (see 'toolcall " + tc.cmd + " --help')\n"
			if code != exitUsage || stderr.String() != want || stdout.Len() > 0 {
				t.Errorf("exit %d, stderr %q, want %d and %q", code, stderr.String(), exitUsage, want)
			}
		})
	}
}

// TestHookEnv: TOOLCALL_BEFORE_CALL and TOOLCALL_AFTER_CALL each give a
// hook when the flag is not used; the flag wins.
func TestHookEnv(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "echo"), "#!/bin/sh\ncat\n", 0o755)
	writeFile(t, filepath.Join(dir, "echo.json"), `{"description": "Echo.", "input_schema": {"type": "object"}}`, 0o644)
	block := filepath.Join(dir, "block")
	writeFile(t, block, "#!/bin/sh\necho 'by env' >&2\nexit 2\n", 0o755)
	allow := filepath.Join(dir, "allow")
	writeFile(t, allow, "#!/bin/sh\nexit 0\n", 0o755)
	shout := filepath.Join(dir, "shout")
	writeFile(t, shout, "#!/bin/sh\necho SHOUTED\n", 0o755)
	call := `{"type":"tool_call","id":"c1","name":"echo","arguments":{}}` + "\n"
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"before", map[string]string{"TOOLCALL_BEFORE_CALL": block}, nil, `blocked the call: by env`},
		{"flag wins", map[string]string{"TOOLCALL_BEFORE_CALL": block}, []string{"--before-call", allow}, `"content":"{}"`},
		{"after", map[string]string{"TOOLCALL_AFTER_CALL": shout}, nil, `"content":"SHOUTED"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), append([]string{"exec", "--tools", dir}, tc.args...), strings.NewReader(call), &stdout, &stderr)
			if code != exitOK || !strings.Contains(stdout.String(), tc.want) {
				t.Errorf("exit %d (%s), want %s in:\n%s", code, stderr.String(), tc.want, stdout.String())
			}
		})
	}
}
