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
// the built binary with its stdin and stdout on real pipes.

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

func benchPipe(b *testing.B, in []byte) {
	dir := b.TempDir()
	bin := buildToolcall(b, dir)
	file := filepath.Join(dir, "in")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		// cat feeds a pipe, as a model server's curl would.
		cmd := exec.Command("sh", "-c", "cat \"$1\" | \"$2\" parse | cat >/dev/null", "sh", file, bin)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}

func BenchmarkPipeParseProse(b *testing.B) { benchPipe(b, cliProse(256<<20)) }
func BenchmarkPipeParseJSONL(b *testing.B) { benchPipe(b, cliJSONL(64<<20)) }
