package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkStartup runs the built binary with --version: what starting
// toolcall costs at all, which every stage of a pipeline pays once (issue
// 40: at most 10 ms, median). Besides sec/op (the mean) it reports the
// median wall time and the child's CPU time (user and system), which the
// load of a shared machine skews less.
func BenchmarkStartup(b *testing.B) {
	bin := buildToolcall(b, b.TempDir())
	var walls []time.Duration
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "--version")
		start := time.Now()
		out, err := cmd.Output()
		walls = append(walls, time.Since(start))
		if err != nil || !strings.HasPrefix(string(out), "toolcall ") {
			b.Fatalf("toolcall --version: %v, %q", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(walls)), "ms-cpu/op")
}
