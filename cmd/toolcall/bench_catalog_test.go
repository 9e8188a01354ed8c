package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The figures of issues 3 and 4, for the whole process as a user runs it:
// BenchmarkProcessCatalog* time one toolcall catalog over 10,000 tools
// (sec/op is the figure), BenchmarkProcessValidate reports calls/s through
// toolcall validate, BenchmarkProcessExec* the calls/s and peak memory of
// toolcall exec.

var benchWords = strings.Fields(`weather forecast city temperature stock price market
file read write directory search web page email send message calendar event
create delete update list user account invoice payment order shipping track
translate text language image resize convert video audio transcribe database
query table row column graph plot chart math factorial prime matrix vector
distance route map location hotel flight booking restaurant recipe movie music`)

// benchTools writes n tools, BFCL-shaped, into a new directory.
func benchTools(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		w := func(k int) string { return benchWords[(i*7+k*13)%len(benchWords)] }
		name := fmt.Sprintf("%s_%s_%d", w(0), w(1), i)
		sidecar := fmt.Sprintf(`{"name":%q,"description":"Get the %s %s for a %s, with %s and %s.","input_schema":{"type":"object","properties":{"%s":{"type":"string","description":"The %s to look up."},"%s":{"type":"integer","description":"How many %s results."},"unit":{"type":"string","enum":["metric","imperial"]}},"required":["%s"]},"tags":[%q]}`,
			name, w(1), w(2), w(3), w(4), w(5), w(6), w(6), w(7), w(7), w(6), w(8))
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(sidecar), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// buildToolcall builds the command into dir.
func buildToolcall(b testing.TB, dir string) string {
	b.Helper()
	bin := filepath.Join(dir, "toolcall")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func benchProcessCatalog(b *testing.B, n int, args ...string) {
	tools := benchTools(b, n)
	bin := buildToolcall(b, b.TempDir())
	for b.Loop() {
		cmd := exec.Command(bin, append([]string{"catalog", "--tools", tools}, args...)...)
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatalf("%v (%d bytes out)", err, len(out))
		}
	}
}

func BenchmarkProcessCatalog1kJSONL(b *testing.B)  { benchProcessCatalog(b, 1000) }
func BenchmarkProcessCatalog10kJSONL(b *testing.B) { benchProcessCatalog(b, 10000) }
func BenchmarkProcessCatalog10kQuery(b *testing.B) {
	benchProcessCatalog(b, 10000, "--query", "what is the weather forecast in Paris today")
}

func BenchmarkProcessValidate(b *testing.B) {
	dir := b.TempDir()
	sidecar := `{"description":"Get the weather.","input_schema":{"type":"object","properties":{"city":{"type":"string","description":"City"},"days":{"type":"integer","minimum":1,"maximum":14},"unit":{"type":"string","enum":["celsius","fahrenheit"]},"hourly":{"type":"boolean"}},"required":["city"]}}`
	if err := os.WriteFile(filepath.Join(dir, "get_weather.json"), []byte(sidecar), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "get_weather"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	const calls = 200000
	var in strings.Builder
	for i := range calls {
		fmt.Fprintf(&in, `{"type":"tool_call","id":"call_%d","name":"get_weather","arguments":{"city":"Paris","days":%d,"unit":"celsius"},"format":"hermes"}`+"\n", i+1, i%14+1)
	}
	file := filepath.Join(dir, "calls.jsonl")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := buildToolcall(b, b.TempDir())
	b.SetBytes(int64(in.Len()))
	for b.Loop() {
		cmd := exec.Command(bin, "validate", "--tools", dir, file)
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1") // the figure is for one core
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%.500s", err, out)
		}
	}
	b.ReportMetric(float64(calls)*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
