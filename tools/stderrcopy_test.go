package tools

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/toolcall/toolcall/tools/redact"
)

// A tool's stderr copied in writes of every size, with a secret at every
// kind of place (a line of its own, across writes, in a line longer than
// what is held back), reads as the whole redacted at once; lines are
// written only when complete.
func TestStderrCopy(t *testing.T) {
	secret := "s3cret-" + strings.Repeat("x", 20)
	r := redact.New([]string{"APP_TOKEN=" + secret}, nil)
	long := strings.Repeat("a", 150<<10) + secret + strings.Repeat("b", 100<<10)
	text := "start " + secret + "\n" + long + "\nmiddle\n" + secret + " last, no newline"
	want := string(r.Bytes([]byte(text)))
	for _, size := range []int{1, 7, 4096, 70 << 10, len(text)} {
		var out bytes.Buffer
		c := newStderrCopy(&out, &sync.Mutex{}, r)
		first := strings.IndexByte(text, '\n') + 1
		for i := 0; i < len(text); i += size {
			end := min(i+size, len(text))
			c.Write([]byte(text[i:end]))
			if end < first && out.Len() > 0 {
				t.Fatalf("writes of %d: a part of the first line was written: %q", size, out.String())
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != want {
			t.Errorf("writes of %d: the copy differs from the text redacted at once (%d bytes, want %d); secret left: %v",
				size, len(got), len(want), strings.Contains(got, secret))
		}
	}
}
