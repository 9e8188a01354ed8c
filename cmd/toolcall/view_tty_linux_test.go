package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the terminal end a program writes to,
// and the other end the test reads what it wrote from.
func openPTY(t *testing.T) (term, reader *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the terminal: %v", err)
	}
	// Raw output: the terminal would otherwise turn \n into \r\n.
	if tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS); err == nil {
		tio.Oflag &^= unix.OPOST
		unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return s, m
}

// TestRunViewOnTerminal: with stdout on a terminal, run shows the human
// view, coloured unless NO_COLOR is set; --jsonl keeps the transcript.
func TestRunViewOnTerminal(t *testing.T) {
	examples := buildExamples(t)
	for _, tt := range []struct {
		name     string
		noColor  string
		extra    []string
		want     string
		wantNot  string
		colorful bool
	}{
		{name: "view", want: "→ calculator(expression: \"18 * 9 / 5 + 32\")", wantNot: `{"type":`, colorful: true},
		{name: "no-color", noColor: "1", want: "→ get_weather(city: \"Paris\", unit: \"celsius\")\n", wantNot: "\x1b"},
		{name: "jsonl", extra: []string{"--jsonl"}, want: `{"type":"stop","reason":"final_answer","iterations":3}` + "\n", wantNot: "→"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", tt.noColor)
			term, reader := openPTY(t)
			got := make(chan string)
			go func() {
				var b bytes.Buffer
				io.Copy(&b, reader) // ends with EIO once the terminal is closed
				got <- b.String()
			}()
			args := append([]string{"run", "--tools", examples, "--replay", "../../testdata/transcripts/demo.jsonl"}, tt.extra...)
			var stderr bytes.Buffer
			code := execute(context.Background(), args, strings.NewReader(""), term, &stderr)
			term.Close()
			out := <-got
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, stderr.String())
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
			if strings.Contains(out, tt.wantNot) {
				t.Errorf("output holds %q:\n%s", tt.wantNot, out)
			}
			if tt.colorful != strings.Contains(out, "\x1b[") {
				t.Errorf("colour = %v, want %v:\n%q", !tt.colorful, tt.colorful, out)
			}
			if !strings.HasSuffix(out, "You may want an umbrella.\n") && !strings.HasSuffix(out, "You may want an umbrella.\x1b[0m\n") && tt.name != "jsonl" {
				t.Errorf("the answer is not last:\n%s", out)
			}
		})
	}
}

// TestRunViewStreamsOnTerminal: at a terminal the first words of a slow
// model's reply are on screen while the model is still writing, and
// show once. The model writes its first words, then waits on a FIFO
// that the test opens only once it has read them on the terminal.
func TestRunViewStreamsOnTerminal(t *testing.T) {
	examples := buildExamples(t)
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	fifo := filepath.Join(dir, "go-on")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	model := filepath.Join(dir, "slow-model")
	script := "#!/bin/sh\ncat >/dev/null\nprintf 'The first words '\nread go < \"$LIVE_FIFO\"\nprintf 'and the last.\\n'\n"
	if err := os.WriteFile(model, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LIVE_FIFO", fifo)
	term, reader := openPTY(t)
	var (
		mu     sync.Mutex
		screen bytes.Buffer
	)
	first := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 512)
		once := false
		for {
			n, err := reader.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			seen := strings.Contains(screen.String(), "The first words")
			mu.Unlock()
			if seen && !once {
				once = true
				close(first)
			}
			if err != nil {
				return // EIO once the terminal is closed
			}
		}
	}()
	code := make(chan int)
	var stderr bytes.Buffer
	go func() {
		code <- execute(context.Background(), []string{"run", "--tools", examples, "--model-cmd", model, "Say something slowly."}, strings.NewReader(""), term, &stderr)
	}()
	streamed := true
	select {
	case <-first:
	case c := <-code:
		t.Fatalf("run ended (exit %d) while the model waited; stderr %s", c, stderr.String())
	case <-time.After(time.Minute): // not a measure: only so that a failure does not hang
		streamed = false
	}
	// Let the model finish.
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d, stderr %s", c, stderr.String())
	}
	term.Close()
	<-copied
	out := screen.String()
	if !streamed {
		t.Fatalf("the first words were not on the terminal while the model waited:\n%s", out)
	}
	if n := strings.Count(out, "The first words"); n != 1 || !strings.Contains(out, "The first words and the last.\n") {
		t.Errorf("the reply shows %d times, or not whole:\n%q", n, out)
	}
}

// TestRunBatchProgressOnTerminal: with stderr on a terminal, --batch
// says how it goes in one line there, rewritten in place; stdout, a
// pipe, has the events alone, and stderr not a terminal has nothing.
func TestRunBatchProgressOnTerminal(t *testing.T) {
	examples := buildExamples(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	if err := os.WriteFile(model, []byte("#!/bin/sh\ncat >/dev/null\necho 'Fine, thanks.'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	batch := filepath.Join(dir, "batch.jsonl")
	if err := os.WriteFile(batch, []byte("{\"id\":\"a\",\"prompt\":\"Hi?\"}\n{\"id\":\"b\",\"prompt\":\"Ho?\"}\n{\"id\":\"c\",\"prompt\":\"Hu?\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--tools", examples, "--model-cmd", model, "--batch", batch}
	term, reader := openPTY(t)
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, reader)
		got <- b.String()
	}()
	var stdout bytes.Buffer
	if code := execute(context.Background(), args, strings.NewReader(""), &stdout, term); code != 0 {
		t.Fatalf("exit %d", code)
	}
	term.Close()
	screen := <-got
	if !strings.Contains(screen, "\rtoolcall: batch 3/3, ") || !strings.HasSuffix(screen, "\n") {
		t.Errorf("stderr at a terminal: %q", screen)
	}
	if strings.Contains(stdout.String(), "toolcall: batch") || strings.Count(stdout.String(), `"type":"summary"`) != 3 {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	var stderr bytes.Buffer
	if code := execute(context.Background(), args, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 0 || stderr.Len() != 0 {
		t.Errorf("stderr piped: exit %d, %q", code, stderr.String())
	}
}

// TestProbeTableOnTerminal: at a terminal probe shows its table, not
// the events; --json gives the events there, and no table.
func TestProbeTableOnTerminal(t *testing.T) {
	clearEnv(t)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	for _, tt := range []struct {
		name          string
		extra         []string
		want, wantNot string
	}{
		{name: "table", want: "chat          ok", wantNot: `{"type":`},
		{name: "json", extra: []string{"--json"}, want: `{"type":"probe","check":"chat","status":"ok"`, wantNot: "chat          ok"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			term, reader := openPTY(t)
			got := make(chan string)
			go func() {
				var b bytes.Buffer
				io.Copy(&b, reader)
				got <- b.String()
			}()
			args := append([]string{"probe", "--timeout", "5s", "--base-url", srv.URL + "/v1", "--model", "m", "--checks", "chat"}, tt.extra...)
			var stderr bytes.Buffer
			code := execute(context.Background(), args, strings.NewReader(""), term, &stderr)
			term.Close()
			out := <-got
			if code != 0 || stderr.Len() != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr.String())
			}
			if !strings.Contains(out, tt.want) || strings.Contains(out, tt.wantNot) {
				t.Errorf("want %q and not %q on the terminal:\n%s", tt.want, tt.wantNot, out)
			}
		})
	}
}
