package parse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

// FuzzUnpack checks that unpack never panics, that how the input is cut
// into reads changes nothing, and that text which cannot be a response or
// an event stream reaches out byte for byte.
func FuzzUnpack(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "input", "*"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"", " ", "\xEF\xBB\xBF", "Hello", "{", "{}", `{"name":"f","arguments":{}}`,
		"data: [DONE]\n\n", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n",
		"data: {\ndata: }\n\n", "event: error\ndata: {}\n\n", "error: {}\n", ": x\n",
		`{"model":"m","done":false,"response":"a"}` + "\n{", `{"error":"x"}`,
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":2,\"id\":\"a\"},{\"index\":0}]}}]}\n\n",
		// Found by the fuzzer: the error quoted as much of the trailing
		// text as happened to be buffered.
		"{\"type\":\"content_block_stop\"}00",
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: [DONE]\r\n\r\n",
		"HTTP/1.1 is a protocol\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole := &recordedOutput{}
		err := unpack(bytes.NewReader(in), whole)
		bytewise := &recordedOutput{}
		err1 := unpack(iotest.OneByteReader(bytes.NewReader(in)), bytewise)
		if errString(err) != errString(err1) {
			t.Errorf("error reading whole: %v; reading a byte at a time: %v", err, err1)
		}
		if got, want := bytewise.log(), whole.log(); !equalLogs(got, want) {
			t.Errorf("reading a byte at a time got %s\nreading whole got %s", showLog(got), showLog(want))
		}
		if !plainText(in) {
			return
		}
		if err != nil {
			t.Errorf("plain text: error %v", err)
		}
		var want []string
		if len(in) > 0 {
			want = []string{(&recordedOutput{entries: []recordedEntry{{kind: "text", data: in}}}).log()[0]}
		}
		if got := whole.log(); !equalLogs(got, want) {
			t.Errorf("plain text: got %s\nwant %s", showLog(got), showLog(want))
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// plainText reports whether in, after leading whitespace and a byte-order
// mark, starts with neither '{', nor an event stream field, nor an HTTP
// response head: such input is model text by the rules unpack documents.
func plainText(in []byte) bool {
	in = bytes.TrimPrefix(in, []byte("\xEF\xBB\xBF"))
	in = bytes.TrimLeft(in, " \t\r\n")
	if len(in) > 0 && in[0] == '{' {
		return false
	}
	for _, p := range []string{"data:", "event:", "id:", "retry:", "error:", ":", "HTTP/"} {
		if bytes.HasPrefix(in, []byte(p)) {
			return false
		}
	}
	return true
}
