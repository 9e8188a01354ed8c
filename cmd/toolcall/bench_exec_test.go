//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// benchExecTools writes sh tools for the exec figures into a new directory.
func benchExecTools(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	for name, script := range map[string]string{
		"ok":    "echo ok",
		"flood": "head -c 1000000000 /dev/zero | tr '\\0' 'x'",
	} {
		sidecar := `{"description":"Bench.","input_schema":{"type":"object"}}`
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(sidecar), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkProcessExec1000 runs 1,000 calls of a trivial tool through
// toolcall exec --parallel 8; calls/s is the figure.
func BenchmarkProcessExec1000(b *testing.B) {
	dir := benchExecTools(b)
	var in strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&in, `{"type":"tool_call","id":"call_%d","name":"ok","arguments":{}}`+"\n", i+1)
	}
	bin := buildToolcall(b, b.TempDir())
	for b.Loop() {
		cmd := exec.Command(bin, "exec", "--tools", dir, "--parallel", "8")
		cmd.Stdin = strings.NewReader(in.String())
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		if n := strings.Count(string(out), `"status":"ok"`); n != 1000 {
			b.Fatalf("%d ok observations, want 1000", n)
		}
	}
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkProcessExecFlood runs a tool that writes 1 GB; maxrss-MB is
// toolcall's peak resident memory meanwhile.
func BenchmarkProcessExecFlood(b *testing.B) {
	dir := benchExecTools(b)
	bin := buildToolcall(b, b.TempDir())
	var peak int64
	for b.Loop() {
		cmd := exec.Command(bin, "exec", "--tools", dir, "--timeout", "5m")
		cmd.Stdin = strings.NewReader(`{"type":"tool_call","id":"call_1","name":"flood","arguments":{}}` + "\n")
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), `"truncated":true`) {
			b.Fatalf("%v: %.300s", err, out)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, int64(ru.Maxrss)) // KiB on Linux
		}
	}
	b.ReportMetric(float64(peak)/1024, "maxrss-MB")
}
