package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// captureAll feeds data to a fresh capture in chunks of the given sizes
// (cycled) and returns the result.
func captureAll(maxOutput int, data []byte, chunks ...int) processResult {
	c := newOutputCapture(maxOutput, nil)
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if len(chunks) > 0 {
			n = min(n, chunks[i%len(chunks)])
		}
		c.Write(data[:n])
		data = data[n:]
	}
	var r processResult
	c.result(&r)
	return r
}

func TestCaptureKeepsOutputWithinTheLimitWhole(t *testing.T) {
	for _, size := range []int{0, 1, 99, 100} {
		data := bytes.Repeat([]byte("abcdefghij"), 10)[:size]
		for _, chunk := range []int{1, 7, 100} {
			r := captureAll(100, data, chunk)
			if r.Truncated || !bytes.Equal(r.Stdout, data) || r.TotalBytes != int64(size) {
				t.Errorf("size %d chunk %d: truncated=%v total=%d stdout=%q, want the %d bytes whole",
					size, chunk, r.Truncated, r.TotalBytes, r.Stdout, size)
			}
		}
	}
}

func TestCaptureKeepsHeadAndTailOfLongOutput(t *testing.T) {
	// A reference: the first half and the last half of the stream, for
	// every mix of write sizes, including writes longer than the ring.
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		maxOutput := 2 + rng.IntN(64)
		data := make([]byte, maxOutput+1+rng.IntN(500))
		for i := range data {
			data[i] = 'a' + byte(rng.IntN(26))
		}
		chunks := []int{1 + rng.IntN(100), 1 + rng.IntN(10), 1 + rng.IntN(300)}
		r := captureAll(maxOutput, data, chunks...)
		h, tl := maxOutput/2, maxOutput-maxOutput/2
		wantHead, wantTail := data[:h], data[len(data)-tl:]
		if !r.Truncated || !bytes.Equal(r.Head, wantHead) || !bytes.Equal(r.Tail, wantTail) {
			t.Fatalf("trial %d (max %d, %d bytes, chunks %v): head %q tail %q, want %q and %q",
				trial, maxOutput, len(data), chunks, r.Head, r.Tail, wantHead, wantTail)
		}
		want := string(wantHead) + fmt.Sprintf("\n[... %d bytes cut here: the output was %d bytes; only its first %d and last %d are shown ...]\n",
			len(data)-maxOutput, len(data), h, tl) + string(wantTail)
		if string(r.Stdout) != want {
			t.Fatalf("trial %d: stdout\n%q\nwant\n%q", trial, r.Stdout, want)
		}
	}
}

func TestCaptureCutsAtCharacterBoundaries(t *testing.T) {
	// "é" is two bytes, "€" three: a byte limit falls inside them.
	data := []byte(strings.Repeat("é", 10) + strings.Repeat("x", 50) + strings.Repeat("€", 10))
	r := captureAll(15, data, 4)
	if !r.Truncated {
		t.Fatal("not truncated")
	}
	if !utf8.Valid(r.Stdout) {
		t.Errorf("cut output is not valid UTF-8: %q", r.Stdout)
	}
	if string(r.Head) != "ééé" || string(r.Tail) != "€€" {
		t.Errorf("head %q tail %q, want whole characters \"ééé\" and \"€€\"", r.Head, r.Tail)
	}
	if !bytes.Contains(r.Stdout, []byte(fmt.Sprintf("%d bytes cut here: the output was %d bytes", len(data)-6-6, len(data)))) {
		t.Errorf("marker does not count the bytes dropped to keep characters whole: %q", r.Stdout)
	}
	// Binary output is cut by at most a few bytes more.
	bin := bytes.Repeat([]byte{0x80}, 40)
	r = captureAll(20, bin)
	if len(r.Head) != 10 || len(r.Tail) < 7 {
		t.Errorf("binary: head %d tail %d bytes, want 10 and at least 7", len(r.Head), len(r.Tail))
	}
}

func TestCaptureSavesEverything(t *testing.T) {
	var saved bytes.Buffer
	c := newOutputCapture(10, &saved)
	data := []byte(strings.Repeat("0123456789", 100))
	for i := 0; i < len(data); i += 33 {
		c.Write(data[i:min(i+33, len(data))])
	}
	var r processResult
	c.result(&r)
	if !bytes.Equal(saved.Bytes(), data) {
		t.Errorf("saved %d bytes, want all %d", saved.Len(), len(data))
	}
	if !r.Truncated || r.SaveErr != nil {
		t.Errorf("truncated=%v saveErr=%v, want true and nil", r.Truncated, r.SaveErr)
	}
}

type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	f.n--
	return len(p), nil
}

func TestCaptureSurvivesAFailingSaveTo(t *testing.T) {
	full := errors.New("no space left on device")
	c := newOutputCapture(8, &failAfter{n: 1, err: full})
	for range 5 {
		if n, err := c.Write([]byte("abcd")); n != 4 || err != nil {
			t.Fatalf("Write = %d, %v; a failing copy must not stop the tool's output", n, err)
		}
	}
	var r processResult
	c.result(&r)
	if !errors.Is(r.SaveErr, full) || r.TotalBytes != 20 || string(r.Tail) != "abcd" {
		t.Errorf("saveErr=%v total=%d tail=%q, want the disk error, 20, \"abcd\"", r.SaveErr, r.TotalBytes, r.Tail)
	}
}

func TestStderrCaptureKeepsTheLastBytes(t *testing.T) {
	var tee bytes.Buffer
	c := newStderrCapture(&tee)
	var all bytes.Buffer
	for i := range 2000 {
		line := fmt.Sprintf("line %d é\n", i)
		all.WriteString(line)
		c.Write([]byte(line))
	}
	got := c.bytes()
	if keep := stderrKeep + stderrSlack; len(got) > keep || len(got) < keep-3 {
		t.Errorf("kept %d bytes, want about %d", len(got), keep)
	}
	if !bytes.HasSuffix(all.Bytes(), got) || !bytes.HasSuffix(got, []byte("line 1999 é\n")) {
		t.Errorf("kept bytes are not the end of stderr: ...%q", got[max(0, len(got)-40):])
	}
	if !utf8.Valid(got) {
		t.Error("kept stderr starts inside a character")
	}
	if !bytes.Equal(tee.Bytes(), all.Bytes()) {
		t.Errorf("tee got %d bytes, want all %d", tee.Len(), all.Len())
	}

	short := newStderrCapture(nil)
	short.Write([]byte("oops\n"))
	if string(short.bytes()) != "oops\n" {
		t.Errorf("short stderr = %q, want it whole", short.bytes())
	}
}

// An MCP result past the limit is cut inside its text, as plain output
// is, and stays a well-formed result: the head and tail of its text, the
// marker between, and its other parts and structured content whole.
func TestCaptureCutsMCPResultsInTheirText(t *testing.T) {
	long := strings.Repeat("a", 3000) + strings.Repeat("é", 1000) + strings.Repeat("z", 3000)
	raw := `{"content":[{"type":"text","text":"first"},{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"text","text":"` + long + `","annotations":{"priority":1}},{"type":"text","text":"` + strings.Repeat("m", 5000) + `"},{"type":"text","text":"last"}],"structuredContent":{"n":7},"isError":false}`
	c := newOutputCapture(1000, nil)
	c.Write([]byte(raw[:100]))
	c.Write([]byte(raw[100:]))
	var r processResult
	c.result(&r)
	if !r.Truncated || !json.Valid(r.Stdout) {
		t.Fatalf("truncated %v, valid JSON %v:\n%s", r.Truncated, json.Valid(r.Stdout), r.Stdout)
	}
	res := interpretOutput(nil, r.Stdout, r.Truncated)
	if !strings.HasPrefix(res.Content, "first\n[image: image/png, 2 B]\naaa") || !strings.HasSuffix(res.Content, "mmm\nlast") {
		t.Errorf("the text is not the head and tail of the parts' text:\n%.300s\n...\n%.300s", res.Content, res.Content[max(0, len(res.Content)-300):])
	}
	if !strings.Contains(res.Content, "bytes cut here: the output was 13009 bytes; only its first 500 and last 500 are shown ...]\nmmm") || !utf8.ValidString(res.Content) {
		t.Errorf("no cut marker, or invalid UTF-8:\n%s", res.Content)
	}
	if string(res.Structured) != `{"n":7}` || !strings.Contains(string(res.Parts), `"annotations":{"priority":1}`) || !strings.Contains(string(res.Parts), `"data":"aGk="`) {
		t.Errorf("parts or structured content lost: %s %s", res.Parts, res.Structured)
	}
	if n := len(res.Content); n > 1000+200 {
		t.Errorf("%d bytes of text kept for a limit of 1000", n)
	}

	// Within the limit in its text (the image made it long): whole.
	c = newOutputCapture(1000, nil)
	img := `{"content":[{"type":"text","text":"short"},{"type":"image","data":"` + strings.Repeat("QUFB", 1000) + `","mimeType":"image/png"}]}`
	c.Write([]byte(img))
	c.result(&r)
	if r.Truncated || string(r.Stdout) != img {
		t.Errorf("a result whose text fits was cut: truncated %v", r.Truncated)
	}

	// Not an MCP result: cut as text, as before.
	c = newOutputCapture(1000, nil)
	c.Write([]byte(`{"rows":"` + strings.Repeat("x", 5000) + `"}`))
	c.result(&r)
	if !r.Truncated || json.Valid(r.Stdout) {
		t.Errorf("a long JSON object that is not an MCP result was not cut as text")
	}
}
