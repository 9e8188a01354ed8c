package parse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recordedOutput is a modelOutput that logs what it is given. Consecutive
// text writes are joined, and so are consecutive reasoning writes: how a
// server or reader chunks them carries no meaning.
type recordedOutput struct {
	entries []recordedEntry
	// first, when set, is closed on the first call of any kind.
	first    chan struct{}
	writes   int
	maxWrite int
	failOn   string // "text", "reasoning" or "call": return errFake from it
}

type recordedEntry struct {
	kind     string
	data     []byte
	id, name string
}

var errFake = errors.New("fake output failure")

func (r *recordedOutput) called() {
	if r.first != nil {
		close(r.first)
		r.first = nil
	}
}

func (r *recordedOutput) add(kind string, p []byte) {
	r.called()
	if n := len(r.entries); n > 0 && r.entries[n-1].kind == kind {
		r.entries[n-1].data = append(r.entries[n-1].data, p...)
		return
	}
	r.entries = append(r.entries, recordedEntry{kind: kind, data: append([]byte(nil), p...)})
}

func (r *recordedOutput) Write(p []byte) (int, error) {
	r.writes++
	r.maxWrite = max(r.maxWrite, len(p))
	if r.failOn == "text" {
		return 0, errFake
	}
	r.add("text", p)
	return len(p), nil
}

func (r *recordedOutput) WriteReasoning(p []byte) error {
	if r.failOn == "reasoning" {
		return errFake
	}
	r.add("reasoning", p)
	return nil
}

func (r *recordedOutput) NativeCall(id, name string, args []byte) error {
	if r.failOn == "call" {
		return errFake
	}
	r.called()
	r.entries = append(r.entries, recordedEntry{kind: "call", id: id, name: name, data: args})
	return nil
}

// log renders the entries as text:"...", reasoning:"..." and
// call:id/name/args.
func (r *recordedOutput) log() []string {
	var out []string
	for _, e := range r.entries {
		if e.kind == "call" {
			out = append(out, "call:"+e.id+"/"+e.name+"/"+string(e.data))
		} else {
			out = append(out, fmt.Sprintf("%s:%q", e.kind, e.data))
		}
	}
	return out
}

func equalLogs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func showLog(l []string) string {
	if len(l) == 0 {
		return "(nothing)"
	}
	return "\n\t" + strings.Join(l, "\n\t")
}

// chunk builds one chat.completion.chunk data line for choice 0.
func sseChunk(delta string) string {
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
}

func sseFinish(reason string) string {
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}` + "\n\n"
}

const sseDone = "data: [DONE]\n\n"

func TestUnpack(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		err  string // a substring of the error; empty for none
	}{
		// Raw text: everything reaches Write unchanged.
		{name: "empty", in: "", want: nil},
		{name: "whitespace only", in: " \n\t\r\n ", want: []string{`text:" \n\t\r\n "`}},
		{name: "plain text", in: "Hello, world.\n", want: []string{`text:"Hello, world.\n"`}},
		{name: "text with a byte-order mark", in: "\xEF\xBB\xBFHi", want: []string{`text:"\ufeffHi"`}},
		{name: "lone 0xEF", in: "\xEF", want: []string{`text:"\xef"`}},
		{name: "bare JSON tool call is text",
			in:   `{"name":"get_weather","arguments":{"city":"Paris"}}`,
			want: []string{`text:"{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}"`}},
		{name: "bare JSON with whitespace and text around it",
			in:   "\n  {\"name\": \"f\", \"arguments\": {}}\nand then more\n",
			want: []string{`text:"\n  {\"name\": \"f\", \"arguments\": {}}\nand then more\n"`}},
		{name: "model's own tool_calls envelope is text",
			in:   `{"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
			want: []string{`text:"{\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}"`}},
		{name: "lenient JSON is text", in: `{name: 'f', "arguments": {a: 1,}}`, want: []string{`text:"{name: 'f', \"arguments\": {a: 1,}}"`}},
		{name: "truncated JSON is text", in: `{"choices":[{"message":{"content":"hi`, want: []string{`text:"{\"choices\":[{\"message\":{\"content\":\"hi"`}},
		{name: "model JSON with an error field is text", in: `{"error":"not found","code":404}`, want: []string{`text:"{\"error\":\"not found\",\"code\":404}"`}},
		{name: "text that starts like data:", in: "data: the numbers below\n1 2 3\n", want: []string{`text:"data: the numbers below\n1 2 3\n"`}},
		{name: "text that starts with a colon", in: ":) that worked\n", want: []string{`text:":) that worked\n"`}},
		{name: "text that starts with id:", in: "id: 42\nname: x\n", want: []string{`text:"id: 42\nname: x\n"`}},
		{name: "text that starts like an error: line", in: "error: file not found\n", want: []string{`text:"error: file not found\n"`}},
		{name: "text that is an array", in: `[{"name":"f","arguments":{}}]`, want: []string{`text:"[{\"name\":\"f\",\"arguments\":{}}]"`}},

		// Event streams.
		{name: "sse content", in: sseChunk(`{"role":"assistant","content":""}`) + sseChunk(`{"content":"Hel"}`) + sseChunk(`{"content":"lo"}`) + sseFinish("stop") + sseDone,
			want: []string{`text:"Hello"`}},
		{name: "sse only DONE", in: sseDone, want: nil},
		{name: "sse data without a space", in: `data:{"choices":[{"delta":{"content":"Hi"}}]}` + "\n\n", want: []string{`text:"Hi"`}},
		{name: "sse CRLF", in: strings.ReplaceAll(sseChunk(`{"content":"a"}`)+sseChunk(`{"content":"b"}`)+sseDone, "\n", "\r\n"), want: []string{`text:"ab"`}},
		{name: "sse comments, event, id and retry lines",
			in:   ": ping\nretry: 3000\n\nevent: message\nid: 7\n" + sseChunk(`{"content":"x"}`) + ": OPENROUTER PROCESSING\n\n" + sseChunk(`{"content":"y"}`) + sseDone,
			want: []string{`text:"xy"`}},
		{name: "sse leading blank lines and BOM", in: "\xEF\xBB\xBF\n\n" + sseChunk(`{"content":"x"}`), want: []string{`text:"x"`}},
		{name: "sse multi-line data",
			in:   "data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"Hi\"}}]}\n\n" + sseDone,
			want: []string{`text:"Hi"`}},
		{name: "sse multi-line data whose lines alone are not JSON",
			in:   "data: {\"choices\":\ndata: [{\"delta\":\ndata: {\"content\":\"a\\nb\"}}]}\n\n",
			want: []string{`text:"a\nb"`}},
		{name: "sse without blank lines", in: strings.ReplaceAll(sseChunk(`{"content":"a"}`)+sseChunk(`{"content":"b"}`), "\n\n", "\n"), want: []string{`text:"ab"`}},
		{name: "sse without final newline", in: strings.TrimSuffix(sseChunk(`{"content":"a"}`), "\n\n"), want: []string{`text:"a"`}},
		{name: "sse reasoning then content",
			in:   sseChunk(`{"reasoning_content":"Think"}`) + sseChunk(`{"reasoning_content":"ing."}`) + sseChunk(`{"content":"Done."}`) + sseDone,
			want: []string{`reasoning:"Thinking."`, `text:"Done."`}},
		{name: "sse reasoning field (newer vLLM, OpenRouter)",
			in:   sseChunk(`{"reasoning":"Hmm."}`) + sseChunk(`{"content":"Ok"}`),
			want: []string{`reasoning:"Hmm."`, `text:"Ok"`}},
		{name: "sse both reasoning fields count once",
			in:   sseChunk(`{"reasoning_content":"Hmm.","reasoning":"Hmm."}`),
			want: []string{`reasoning:"Hmm."`}},
		{name: "sse text_completion chunks",
			in:   `data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"Once","logprobs":null,"finish_reason":null}]}` + "\n\n" + `data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" upon","logprobs":null,"finish_reason":"length"}]}` + "\n\n" + sseDone,
			want: []string{`text:"Once upon"`}},
		{name: "sse choice 0 only",
			in: `data: {"choices":[{"index":1,"delta":{"content":"B"}}]}` + "\n\n" + `data: {"choices":[{"index":0,"delta":{"content":"A"}}]}` + "\n\n" +
				`data: {"choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"a"}}]}` + "\n\n",
			want: []string{`text:"Aa"`}},
		{name: "sse llama.cpp /completion",
			in:   `data: {"index":0,"content":"Hi","tokens":[1],"stop":false,"id_slot":0}` + "\n\n" + `data: {"index":0,"content":"!","stop":true,"id_slot":0,"tokens_predicted":2}` + "\n\n",
			want: []string{`text:"Hi!"`}},
		{name: "sse of no known shape", in: "data: {\"hello\":1}\n\ndata: {\"hello\":2}\n\n", err: `line 1: no data in the event stream has a known shape`},

		// Streamed tool calls.
		{name: "call pieces joined",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":""}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`) + sseFinish("tool_calls") + sseDone,
			want: []string{`call:c1/f/"{\"a\":1}"`}},
		{name: "call ends when content resumes",
			in: sseChunk(`{"content":"Let me look."}`) +
				sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}`) +
				sseChunk(`{"content":"And now"}`) + sseChunk(`{"content":" this."}`),
			want: []string{`text:"Let me look."`, `call:c1/f/"{}"`, `text:"And now this."`}},
		{name: "call ends when reasoning resumes",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}`) +
				sseChunk(`{"reasoning_content":"next"}`),
			want: []string{`call:c1/f/"{}"`, `reasoning:"next"`}},
		{name: "call ends at input end without DONE",
			in:   sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\""}}]}`),
			want: []string{`call:c1/f/"{\"a\""`}},
		{name: "call without arguments",
			in:   sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"now"}}]}`) + sseDone,
			want: []string{`call:c1/now/`}},
		{name: "a later call starting completes the earlier",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"x\":"}},{"index":1,"id":"c2","function":{"name":"g","arguments":"{\"y\":"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":1,"function":{"arguments":"2}"}}]}`) + sseFinish("tool_calls"),
			want: []string{`call:c1/f/"{\"x\":"`, `call:c2/g/"{\"y\":2}"`}},
		{name: "interleaved pieces of two calls",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":1,"id":"c2","function":{"name":"g","arguments":"{\"b\":"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"a\":1"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":1,"function":{"arguments":"2}"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`) + sseFinish("tool_calls"),
			want: []string{`call:c1/f/"{\"a\":1}"`, `call:c2/g/"{\"b\":2}"`}},
		{name: "two whole calls sharing index 0",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"g","arguments":"{\"b\":2}"}}]}`) + sseFinish("tool_calls"),
			want: []string{`call:c1/f/"{}"`, `call:c2/g/"{\"b\":2}"`}},
		{name: "pieces of a call passed on whole",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":1,"id":"c2","function":{"name":"g","arguments":"{}"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":" "}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`),
			want: []string{`call:c1/f/"{}"`, `call:c2/g/"{}"`},
			err:  "line 7: arguments for tool call 0 arrived after the call was complete"},
		{name: "parallel calls, second starts after first",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"x\":1}"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":1,"id":"c2","function":{"name":"g","arguments":"{\"y\":"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":1,"function":{"arguments":"2}"}}]}`) + sseFinish("tool_calls"),
			want: []string{`call:c1/f/"{\"x\":1}"`, `call:c2/g/"{\"y\":2}"`}},
		{name: "two calls in one delta",
			in:   sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}},{"index":1,"id":"c2","function":{"name":"g","arguments":"{}"}}]}`) + sseDone,
			want: []string{`call:c1/f/"{}"`, `call:c2/g/"{}"`}},
		{name: "each call whole at index 0",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\":1}"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"g","arguments":"{\"b\":2}"}}]}`) + sseDone,
			want: []string{`call:c1/f/"{\"a\":1}"`, `call:c2/g/"{\"b\":2}"`}},
		{name: "calls without index",
			in: sseChunk(`{"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{\"a\""}}]}`) +
				sseChunk(`{"tool_calls":[{"function":{"arguments":":1}"}}]}`) +
				sseChunk(`{"tool_calls":[{"id":"c2","function":{"name":"g","arguments":"{}"}}]}`) + sseDone,
			want: []string{`call:c1/f/"{\"a\":1}"`, `call:c2/g/"{}"`}},
		{name: "indexes restart after content",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}`) +
				sseChunk(`{"content":"then"}`) +
				sseChunk(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"g","arguments":"{}"}}]}`),
			want: []string{`call:c1/f/"{}"`, `text:"then"`, `call:c2/g/"{}"`}},
		{name: "name kept from first piece",
			in: sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{"}}]}`) +
				sseChunk(`{"tool_calls":[{"index":0,"id":"","function":{"name":"","arguments":"}"}}]}`),
			want: []string{`call:c1/f/"{}"`}},
		{name: "legacy function_call delta",
			in:   sseChunk(`{"function_call":{"name":"f","arguments":""}}`) + sseChunk(`{"function_call":{"arguments":"{\"a\":1}"}}`) + sseFinish("function_call"),
			want: []string{`call:/f/"{\"a\":1}"`}},
		{name: "arguments with escapes and unicode",
			in:   sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"q\":\"a\\\"b\\n\u00e9"}}]}`) + sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}`),
			want: []string{`call:c1/f/"{\"q\":\"a\\\"b\\né\"}"`}},

		// Failures in a stream: what came before is kept.
		{name: "sse malformed line",
			in:   sseChunk(`{"content":"kept"}`) + "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}\n\n" + sseChunk(`{"content":"never"}`),
			want: []string{`text:"kept"`}, err: `line 3: data is not valid JSON: "{\"choices\":[{\"delta\":{\"content\":\"x\"}"`},
		{name: "sse malformed line keeps open call",
			in:   sseChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}`) + "data: {oops}\n\n",
			want: []string{`call:c1/f/"{}"`}, err: "line 3: data is not valid JSON"},
		{name: "sse error payload after content",
			in:   sseChunk(`{"content":"partial"}`) + `data: {"error":{"message":"the request exceeds the available context size","type":"exceed_context_size_error","code":400}}` + "\n\n",
			want: []string{`text:"partial"`}, err: `server error: "the request exceeds the available context size" (code 400)`},
		{name: "llama.cpp error: field",
			in:  `error: {"code":500,"message":"Failed to parse tool call arguments as JSON","type":"server_error"}` + "\n\n",
			err: `server error: "Failed to parse tool call arguments as JSON" (code 500)`},
		{name: "anthropic error event",
			in:  "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			err: `server error: "Overloaded" (type overloaded_error)`},
		{name: "responses error event",
			in:  `data: {"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null,"sequence_number":1}` + "\n\n",
			err: `server error: "Something went wrong" (code ERR_SOMETHING)`},
		{name: "output failure stops at once",
			in:  sseChunk(`{"content":"a"}`) + sseChunk(`{"content":"b"}`),
			err: errFake.Error()},

		// curl -i: the response head comes first.
		{name: "http head then sse",
			in:   "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.ReplaceAll(sseChunk(`{"content":"Hi"}`)+sseDone, "\n", "\r\n"),
			want: []string{`text:"Hi"`}},
		{name: "http head then error json",
			in:  "HTTP/2 404 \ncontent-type: application/json\n\n" + `{"error":"model 'x' not found"}`,
			err: `server error: "model 'x' not found"`},
		{name: "http head then text", in: "HTTP/1.1 200 OK\nServer: llama.cpp\n\nplain words", want: []string{`text:"plain words"`}},
		{name: "line numbers count the http head",
			in:   "HTTP/1.1 200 OK\nContent-Type: text/event-stream\n\n" + sseChunk(`{"content":"a"}`) + "data: {x}\n\n",
			want: []string{`text:"a"`}, err: "line 6: data is not valid JSON"},
		{name: "text starting HTTP/", in: "HTTP/1.1 added keep-alive.\nIt: matters\n", want: []string{`text:"HTTP/1.1 added keep-alive.\nIt: matters\n"`}},
		{name: "text that looks like a head without its end", in: "HTTP/1.1 200 OK\nServer: x\n", want: []string{`text:"HTTP/1.1 200 OK\nServer: x\n"`}},

		// Whole JSON responses.
		{name: "openai chat message order",
			in:   `{"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}],"content":"Hi","reasoning_content":"Why"},"finish_reason":"tool_calls"}]}`,
			want: []string{`reasoning:"Why"`, `text:"Hi"`, `call:c1/f/"{\"a\":1}"`}},
		{name: "openai null content", in: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
			want: []string{`call:c1/f/"{}"`}},
		{name: "openai choice 0 only",
			in:   `{"choices":[{"index":1,"message":{"content":"B"}},{"index":0,"message":{"content":"A"}}]}`,
			want: []string{`text:"A"`}},
		{name: "openai content parts", in: `{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]}}]}`,
			want: []string{`text:"ab"`}},
		{name: "openai legacy function_call", in: `{"choices":[{"message":{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}}}]}`,
			want: []string{`call:/f/"{}"`}},
		{name: "openai error",
			in:  `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			err: `server error: "The model 'gpt-9' does not exist" (code model_not_found)`},
		{name: "ollama error", in: `{"error":"model \"qwen9\" not found, try pulling it first"}` + "\n",
			err: `server error: "model \"qwen9\" not found, try pulling it first"`},
		{name: "ollama error mid-stream",
			in:   `{"model":"m","created_at":"t","message":{"role":"assistant","content":"Hi"},"done":false}` + "\n" + `{"error":"an error was encountered while running the model"}` + "\n",
			want: []string{`text:"Hi"`}, err: `server error: "an error was encountered while running the model"`},
		{name: "ndjson bad line",
			in:   `{"model":"m","created_at":"t","response":"a","done":false}` + "\n" + `{"model":"m","response":"b",}` + "\n",
			want: []string{`text:"a"`}, err: `line 2: invalid JSON`},
		{name: "ndjson truncated",
			in:   `{"model":"m","created_at":"t","response":"a","done":false}` + "\n" + `{"model":"m","resp`,
			want: []string{`text:"a"`}, err: `line 2: input ended inside a JSON value`},
		{name: "text after a response",
			in:   `{"choices":[{"message":{"content":"a"}}]}` + "\n\nthanks\n",
			want: []string{`text:"a"`}, err: `line 3: expected another JSON object after the response, found "thanks"`},
		{name: "ndjson unknown object skipped",
			in:   `{"model":"m","response":"a","done":false}` + "\n" + `{"usage":1}` + "\n" + `{"model":"m","response":"b","done":true}`,
			want: []string{`text:"ab"`}},
		{name: "llama.cpp /completion", in: `{"content":"Hello","id_slot":0,"stop":true,"model":"m","tokens_predicted":2}`, want: []string{`text:"Hello"`}},
		{name: "ollama tool call with id", in: `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_x","function":{"index":0,"name":"f","arguments":{"a":1}}}]},"done":true}`,
			want: []string{`call:call_x/f/{"a":1}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recordedOutput{}
			if strings.HasPrefix(tc.name, "output failure") {
				rec.failOn = "text"
			}
			err := unpack(strings.NewReader(tc.in), rec)
			checkUnpack(t, rec, err, tc.want, tc.err)
		})
	}
}

func checkUnpack(t *testing.T, rec *recordedOutput, err error, want []string, wantErr string) {
	t.Helper()
	switch {
	case wantErr == "" && err != nil:
		t.Errorf("error: got %v, want none", err)
	case wantErr != "" && err == nil:
		t.Errorf("error: got none, want one containing %q", wantErr)
	case wantErr != "" && !strings.Contains(err.Error(), wantErr):
		t.Errorf("error: got %q, want one containing %q", err, wantErr)
	}
	if got := rec.log(); !equalLogs(got, want) {
		t.Errorf("got %s\nwant %s", showLog(got), showLog(want))
	}
}

// The fixtures are transcripts as the servers send them: key order,
// framing and chunking copied from their output.
func TestUnpackFixtures(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"llama-server-tool.sse", []string{
			`reasoning:"The user wants the weather in São Paulo. I'll call get_weather."`,
			`text:"Let me check that for you."`,
			`call:pK3vQ8mZrT1xW6yB0cN5dL2fH9jA4sEu/get_weather/"{\"city\":\"São Paulo\",\"unit\":\"°C\"}"`,
		}},
		{"vllm-parallel.sse", []string{
			`reasoning:"Two cities, so two calls."`,
			`text:"\n\n"`,
			`call:chatcmpl-tool-1a2b3c4d5e6f47a8/get_weather/"{\"city\": \"Paris\", \"unit\": \"celsius\"}"`,
			`call:chatcmpl-tool-9f8e7d6c5b4a4392/get_time/"{\"tz\": \"Europe/Paris\"}"`,
		}},
		{"openai-chat.json", []string{
			`reasoning:"Need weather and time."`,
			`text:"Checking both."`,
			`call:call_0_a1/get_weather/"{\"city\":\"Paris\"}"`,
			`call:call_1_b2/get_time/"{}"`,
		}},
		{"openai-completions.json", []string{
			`text:"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"`,
		}},
		{"ollama-chat.ndjson", []string{
			`reasoning:"The user asks about Toronto."`,
			`call:/get_current_weather/{"format":"celsius","location":"Toronto"}`,
		}},
		{"ollama-chat.json", []string{
			`call:/get_current_weather/{"location":"Paris"}`,
			`call:/get_time/{}`,
		}},
		{"ollama-generate.ndjson", []string{`text:"Hello there!"`}},
		{"anthropic.sse", []string{
			`reasoning:"Weather for SF."`,
			`text:"Okay, let's check."`,
			`call:toolu_01T1x1fJ34qAmk2tNTrN7Up6/get_weather/"{\"location\": \"San Francisco, CA\"}"`,
			`call:toolu_01NoArgs/get_time/{}`,
		}},
		{"anthropic.json", []string{
			`reasoning:"Need the weather."`,
			`text:"I'll check."`,
			// The raw value, as indented as the file is.
			"call:toolu_01A09q90qw90lq917835lq9/get_weather/{\n        \"location\": \"San Francisco, CA\",\n        \"unit\": \"celsius\"\n      }",
		}},
		{"responses.sse", []string{
			`reasoning:"Look up Paris."`,
			`text:"One moment."`,
			`call:call_Xy12/get_weather/"{\"city\":\"Paris\"}"`,
		}},
		{"responses.json", []string{
			`reasoning:"User wants Paris weather."`,
			`text:"Checking."`,
			`call:call_Ab3/get_weather/"{\"city\":\"Paris\"}"`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "input", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			rec := &recordedOutput{}
			err = unpack(bytes.NewReader(data), rec)
			checkUnpack(t, rec, err, tc.want, "")
		})
	}
}

// slowReader hands out its input a few bytes at a time, as a network does.
type slowReader struct {
	data []byte
	n    int
}

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.n, len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// How the input is cut into reads changes nothing.
func TestUnpackChunking(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "input", "*"))
	if err != nil || len(files) == 0 {
		t.Fatal("no fixtures", err)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			continue // golden/ holds the events parse makes of each fixture
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		whole := &recordedOutput{}
		if err := unpack(bytes.NewReader(data), whole); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, n := range []int{1, 2, 3, 7, 64} {
			rec := &recordedOutput{}
			if err := unpack(&slowReader{data: data, n: n}, rec); err != nil {
				t.Errorf("%s, %d-byte reads: %v", f, n, err)
			}
			if got, want := rec.log(), whole.log(); !equalLogs(got, want) {
				t.Errorf("%s, %d-byte reads: got %s\nwant %s", f, n, showLog(got), showLog(want))
			}
		}
	}
}

// Each piece reaches out as soon as its line is read, not when the input
// ends: the writer waits for out to see the first piece before it sends
// the rest.
func TestUnpackStreamsAsItReads(t *testing.T) {
	tests := []struct {
		name        string
		first, rest string
		want        []string
	}{
		{"sse", sseChunk(`{"content":"Hel"}`), sseChunk(`{"content":"lo"}`) + sseDone, []string{`text:"Hello"`}},
		{"sse without blank line", strings.TrimSuffix(sseChunk(`{"content":"Hel"}`), "\n"), "\n" + sseChunk(`{"content":"lo"}`), []string{`text:"Hello"`}},
		{"sse reasoning", sseChunk(`{"reasoning_content":"Hm"}`), sseChunk(`{"content":"lo"}`), []string{`reasoning:"Hm"`, `text:"lo"`}},
		{"ndjson", `{"model":"m","created_at":"t","message":{"role":"assistant","content":"Hel"},"done":false}` + "\n",
			`{"model":"m","created_at":"t","message":{"role":"assistant","content":"lo"},"done":true}` + "\n", []string{`text:"Hello"`}},
		{"anthropic", "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n", []string{`text:"Hello"`}},
		{"raw", "Hel", "lo", []string{`text:"Hello"`}},
		{"raw starting with d", "dHel", "lo", []string{`text:"dHello"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			first := make(chan struct{})
			rec := &recordedOutput{first: first}
			errc := make(chan error, 1)
			go func() { errc <- unpack(pr, rec) }()
			go func() {
				io.WriteString(pw, tc.first)
				select {
				case <-first:
				case <-time.After(10 * time.Second):
				}
				io.WriteString(pw, tc.rest)
				pw.Close()
			}()
			select {
			case <-first:
			case <-time.After(5 * time.Second):
				t.Fatal("out got nothing while the writer waited")
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			if got := rec.log(); !equalLogs(got, tc.want) {
				t.Errorf("got %s\nwant %s", showLog(got), showLog(tc.want))
			}
		})
	}
}

// patternReader produces n bytes of a repeating pattern without holding
// them.
type patternReader struct {
	pat []byte // the pattern repeated, long enough for any read plus an offset
	per int    // the pattern's length
	off int64
	n   int64
}

func newPatternReader(n int64) *patternReader {
	unit := []byte("The quick brown fox jumps over the lazy dog; {\"name\":\"f\"} data: <tool_call>\n")
	per := len(unit)
	pat := bytes.Repeat(unit, (2*inputBufSize)/per+2)
	return &patternReader{pat: pat, per: per, n: n}
}

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n-r.off, int64(inputBufSize))]
	start := int(r.off % int64(r.per))
	n := copy(p, r.pat[start:])
	r.off += int64(n)
	return n, nil
}

// patternChecker is a modelOutput that checks what it is written against
// the pattern, keeping nothing.
type patternChecker struct {
	want     *patternReader
	off      int64
	maxWrite int
	bad      bool
}

func (c *patternChecker) Write(p []byte) (int, error) {
	c.maxWrite = max(c.maxWrite, len(p))
	start := int(c.off % int64(c.want.per))
	if len(p) > len(c.want.pat)-start || !bytes.Equal(p, c.want.pat[start:start+len(p)]) {
		c.bad = true
	}
	c.off += int64(len(p))
	return len(p), nil
}

func (c *patternChecker) WriteReasoning([]byte) error { c.bad = true; return nil }

func (c *patternChecker) NativeCall(string, string, []byte) error { c.bad = true; return nil }

// Raw text of any size streams through in bounded memory.
func TestUnpackHugeRaw(t *testing.T) {
	size := int64(1 << 30)
	if testing.Short() {
		size = 64 << 20
	}
	r := newPatternReader(size)
	c := &patternChecker{want: newPatternReader(size)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	if err := unpack(r, c); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if c.off != size {
		t.Errorf("out got %d bytes, want %d", c.off, size)
	}
	if c.bad {
		t.Error("out got bytes other than the input's")
	}
	if c.maxWrite > inputBufSize {
		t.Errorf("largest write %d bytes, want at most %d", c.maxWrite, inputBufSize)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d bytes for %d of input, want under 1 MiB", alloc, size)
	}
	t.Logf("%d MiB in %v (%.1f GB/s, reading and checking included)", size>>20, elapsed, float64(size)/elapsed.Seconds()/1e9)
}

// A JSON object too large to be a response is model text, replayed whole.
func TestUnpackHugeJSONIsText(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 64 MiB input")
	}
	var b bytes.Buffer
	b.WriteString(`{"choices":[{"message":{"content":"`)
	b.Write(bytes.Repeat([]byte("x"), maxInputValue))
	b.WriteString(`"}}]}`)
	in := b.Bytes()
	var got bytes.Buffer
	rec := &sinkOutput{w: &got}
	if err := unpack(bytes.NewReader(in), rec); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), in) || rec.other {
		t.Errorf("got %d bytes of text (other calls: %v), want the %d input bytes", got.Len(), rec.other, len(in))
	}
}

// sinkOutput writes text to w and notes any other call.
type sinkOutput struct {
	w     io.Writer
	other bool
}

func (s *sinkOutput) Write(p []byte) (int, error)             { return s.w.Write(p) }
func (s *sinkOutput) WriteReasoning([]byte) error             { s.other = true; return nil }
func (s *sinkOutput) NativeCall(string, string, []byte) error { s.other = true; return nil }

func BenchmarkUnpackRaw(b *testing.B) {
	in := bytes.Repeat([]byte("Sure! <tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call> and some prose.\n"), (64<<20)/72)
	out := &sinkOutput{w: io.Discard}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := unpack(bytes.NewReader(in), out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnpackSSE(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "input", "vllm-parallel.sse"))
	if err != nil {
		b.Fatal(err)
	}
	in := bytes.Repeat(one, 200)
	out := &discardOutput{}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := unpack(bytes.NewReader(in), out); err != nil {
			b.Fatal(err)
		}
	}
}

type discardOutput struct{}

func (discardOutput) Write(p []byte) (int, error)             { return len(p), nil }
func (discardOutput) WriteReasoning([]byte) error             { return nil }
func (discardOutput) NativeCall(string, string, []byte) error { return nil }
