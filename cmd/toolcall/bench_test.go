package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI figures: toolcall parse as a user runs it, input arriving in the
// 64 KiB pieces a pipe delivers and output written to a pipe.
// BenchmarkCLIParse* run the command in process; BenchmarkPipeParse* run
// the built binary with its stdin and stdout on real pipes, and
// BenchmarkPipeCat* the same pipes with cat in its place, the rate the
// issue's targets are fractions of.

func cliProse(size int) []byte {
	const para = "The committee reviewed the quarterly figures and noted that revenue rose, while costs held steady across most regions.\n"
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if i%(1<<20/len(para)) == 0 {
			fmt.Fprintf(&b, "<tool_call>{\"name\":\"lookup\",\"arguments\":{\"id\":%d}}</tool_call>\n", i)
		}
		b.WriteString(para)
	}
	return []byte(b.String())
}

func cliJSONL(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "{\"type\":\"tool_call\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\",\"day\":%d}}\n", i)
	}
	return []byte(b.String())
}

type pipeReader struct{ b []byte }

func (r *pipeReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 64<<10)], r.b)
	r.b = r.b[n:]
	return n, nil
}

func benchCLI(b *testing.B, in []byte) {
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if code := execute(context.Background(), []string{"parse"}, &pipeReader{in}, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

func BenchmarkCLIParseProse(b *testing.B) { benchCLI(b, cliProse(64<<20)) }
func BenchmarkCLIParseJSONL(b *testing.B) { benchCLI(b, cliJSONL(16<<20)) }

// benchPipe runs cat IN | MIDDLE | cat >/dev/null, MIDDLE being toolcall
// parse, or with cat true a third cat: the pipe rate the issue measures
// parse against, taken by the same harness on the same input.
func benchPipe(b *testing.B, in []byte, cat bool) {
	dir := b.TempDir()
	middle := []string{"cat"}
	if !cat {
		middle = []string{buildToolcall(b, dir), "parse"}
	}
	file := filepath.Join(dir, "in")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		// cat feeds a pipe, as a model server's curl would.
		script := `in=$1; shift; cat "$in" | "$@" | cat >/dev/null`
		cmd := exec.Command("sh", append([]string{"-c", script, "sh", file}, middle...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}

func BenchmarkPipeParseProse(b *testing.B) { benchPipe(b, cliProse(256<<20), false) }
func BenchmarkPipeParseJSONL(b *testing.B) { benchPipe(b, cliJSONL(64<<20), false) }
func BenchmarkPipeCatProse(b *testing.B)   { benchPipe(b, cliProse(256<<20), true) }
func BenchmarkPipeCatJSONL(b *testing.B)   { benchPipe(b, cliJSONL(64<<20), true) }
