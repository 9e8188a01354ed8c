package parse

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzDecodeReply checks that DecodeReply never panics and that how a
// reply is cut into reads changes nothing it reports.
func FuzzDecodeReply(f *testing.F) {
	for _, pattern := range []string{filepath.Join("..", "testdata", "replies", "*"), filepath.Join("testdata", "input", "*")} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data, "")
			}
		}
	}
	f.Add([]byte(sseChunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{"}},{"index":1,"id":"b","function":{"name":"g","arguments":"{}"}}]}`)+
		sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`)+sseFinish("tool_calls")+sseDone), "call:a")
	f.Add([]byte("<html><title>x</title></html>"), "")
	f.Fuzz(func(t *testing.T, in []byte, stopAt string) {
		whole := &replyLog{stopAt: stopAt}
		reply, err := DecodeReply(bytes.NewReader(in), whole)
		bytewise := &replyLog{stopAt: stopAt}
		reply1, err1 := DecodeReply(iotest.OneByteReader(bytes.NewReader(in)), bytewise)
		if errString(err) != errString(err1) {
			t.Errorf("error reading whole: %v; reading a byte at a time: %v", err, err1)
		}
		if a, b := strings.Join(whole.got, "|"), strings.Join(bytewise.got, "|"); a != b {
			t.Errorf("reading whole got %q\nreading a byte at a time got %q", a, b)
		}
		if a, b := fmt.Sprint(reply), fmt.Sprint(reply1); a != b {
			t.Errorf("reading whole: %s; a byte at a time: %s", a, b)
		}
	})
}
