package parse

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// replyLog is a Receiver that logs what it is given, and asks to stop at
// the call or text named by stopAt.
type replyLog struct {
	got    []string
	stopAt string
	// gotten, when set, hears each entry as it is logged.
	gotten chan string
}

func (r *replyLog) log(s string) bool {
	r.got = append(r.got, s)
	if r.gotten != nil {
		r.gotten <- s
	}
	return r.stopAt != "" && strings.Contains(s, r.stopAt)
}

func (r *replyLog) Text(p []byte) (bool, error) { return r.log("text:" + string(p)), nil }
func (r *replyLog) Reasoning(p []byte) error    { r.log("reasoning:" + string(p)); return nil }
func (r *replyLog) NativeCall(id, name string, args []byte) (bool, error) {
	return r.log(fmt.Sprintf("call:%s/%s/%s", id, name, args)), nil
}

func TestDecodeReply(t *testing.T) {
	stream := sseChunk(`{"content":"Hi"}`) +
		sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}`) +
		`data: {"model":"m1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" +
		`data: {"model":"m1","choices":[],"usage":{"total_tokens":9}}` + "\n\n" + sseDone
	tests := []struct {
		name, in, stopAt string
		want             string
		reply            Reply
		err              string
	}{
		{name: "stream", in: stream, want: `text:Hi|call:c1/f/"{}"`,
			reply: Reply{Model: "m1", Usage: []byte(`{"total_tokens":9}`), FinishReason: "tool_calls", Done: true}},
		{name: "stop at a call at the finish reads on for the usage", in: stream, stopAt: "call:", want: `text:Hi|call:c1/f/"{}"`,
			reply: Reply{Model: "m1", Usage: []byte(`{"total_tokens":9}`), FinishReason: "tool_calls", Done: true, Stopped: true}},
		{name: "stop at text", in: stream, stopAt: "Hi", want: `text:Hi`, reply: Reply{Model: "m", Stopped: true}},
		{name: "stop at a call before the finish",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}},{"index":1,"id":"c2","function":{"name":"g","arguments":"{"}}]}`) +
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" +
				`data: {"choices":[],"usage":{"total_tokens":3}}` + "\n\n" + sseDone,
			stopAt: "call:c1", want: `call:c1/f/"{}"`, reply: Reply{Model: "m", Stopped: true}},
		{name: "whole response",
			in:    `{"model":"m2","choices":[{"index":0,"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"total_tokens":2}}`,
			want:  `text:ok`,
			reply: Reply{Model: "m2", Usage: []byte(`{"total_tokens":2}`), FinishReason: "stop"}},
		{name: "cut stream", in: sseChunk(`{"content":"Hi"}`), want: `text:Hi`, reply: Reply{Model: "m"}},
		{name: "plain text is no reply", in: "Hello there", err: `it is neither a JSON response nor an event stream: "Hello there"`},
		{name: "an html page is no reply", in: "<!DOCTYPE html><html>", err: `neither a JSON response nor an event stream: "<!DOCTYPE html><html>"`},
		{name: "json of no known shape is no reply", in: `{"name":"f","arguments":{}}`, err: `neither a JSON response nor an event stream: "{\"name\":\"f\",\"arguments\":{}}"`},
		{name: "empty", in: "  \n", err: "it is empty"},
		{name: "a stream of no known shape", in: "data: {\"a\":1}\n\n", err: "no data in the event stream has a known shape"},
		{name: "server error", in: sseChunk(`{"content":"a"}`) + `data: {"error":{"message":"overloaded","code":503}}` + "\n\n",
			want: "text:a", reply: Reply{Model: "m"}, err: `server error: "overloaded" (code 503)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &replyLog{stopAt: tc.stopAt}
			reply, err := DecodeReply(strings.NewReader(tc.in), rec)
			if got := strings.Join(rec.got, "|"); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if fmt.Sprint(reply) != fmt.Sprint(tc.reply) {
				t.Errorf("reply %+v, want %+v", reply, tc.reply)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
	var se *ServerError
	if _, err := DecodeReply(strings.NewReader(`{"error":{"message":"no such model","type":"invalid_request_error"}}`), &replyLog{}); !errors.As(err, &se) || se.Message != "no such model" {
		t.Errorf("a server's error: %v", err)
	}
}

// DecodeReply returns at [DONE], and when the receiver stops, without
// waiting for the server to close the connection.
func TestDecodeReplyReturnsWithoutEOF(t *testing.T) {
	for name, tc := range map[string]struct{ in, stopAt string }{
		"done":       {in: sseChunk(`{"content":"a"}`) + sseFinish("stop") + sseDone},
		"text stop":  {in: sseChunk(`{"content":"a"}`) + sseChunk(`{"content":"b"}`), stopAt: "b"},
		"call stop":  {in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}`) + sseChunk(`{"tool_calls":[{"index":1,"id":"c2","function":{"name":"g","arguments":"{"}}]}`), stopAt: "call:c1"},
		"whole call": {in: `{"choices":[{"message":{"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{}"}},{"id":"c2","function":{"name":"g","arguments":"{}"}}]}}]}`, stopAt: "call:c1"},
	} {
		t.Run(name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			go io.WriteString(pw, tc.in) // and the connection stays open
			_, err := DecodeReply(pr, &replyLog{stopAt: tc.stopAt})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Streamed native-call arguments are held to the bound a caller gives
// (run's --max-reply-bytes), in all the open calls: a server that streams
// arguments without end fails the reply instead of taking memory without
// end, and under the bound the call arrives whole.
func TestDecodeReplyMaxArguments(t *testing.T) {
	piece := strings.Repeat("x", 100)
	var b strings.Builder
	b.WriteString(sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\":\""}}]}`))
	for range 50 {
		b.WriteString(sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"` + piece + `"}}]}`))
	}
	b.WriteString(sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}`) + sseDone)
	stream := b.String()

	var small replyLog
	_, err := DecodeReplyMax(strings.NewReader(stream), &small, 1000)
	if !errors.Is(err, ErrArgumentsTooLarge) {
		t.Fatalf("DecodeReplyMax(…, 1000) = %v, want ErrArgumentsTooLarge", err)
	}
	for _, g := range small.got {
		if strings.HasPrefix(g, "call:") {
			t.Errorf("a call was passed on past the bound: %.60s…", g)
		}
	}

	var big replyLog
	if _, err := DecodeReplyMax(strings.NewReader(stream), &big, 1<<20); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`call:c1/f/"{\"a\":\"%s\"}"`, strings.Repeat(piece, 50))
	if len(big.got) != 1 || big.got[0] != want {
		t.Errorf("under the bound: %.80q, want the whole call", big.got)
	}
}
