package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
)

// httpFake is a model server for tests: handle decides each reply, and
// every request is kept for the test to look at.
type httpFake struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []httpSeen
	handle func(w http.ResponseWriter, r *http.Request, n int)
}

type httpSeen struct {
	path   string
	header http.Header
	body   string
}

func newHTTPFake(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *httpFake {
	f := &httpFake{handle: handle}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, httpSeen{r.URL.Path, r.Header.Clone(), string(body)})
		n := len(f.reqs)
		f.mu.Unlock()
		f.handle(w, r, n)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *httpFake) requests() []httpSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]httpSeen(nil), f.reqs...)
}

// opts are options for the fake, with waits recorded instead of slept.
func (f *httpFake) opts(stream bool, slept *[]time.Duration) HTTPOptions {
	return HTTPOptions{
		BaseURL: f.srv.URL + "/v1",
		Stream:  stream,
		Sleep:   func(d time.Duration) { *slept = append(*slept, d) },
	}
}

// httpSink records what a backend gives it.
type httpSink struct {
	text, reasoning strings.Builder
	calls           []string
	stopAfter       string // Text asks to stop once the text holds this
	stopOnCall      bool
}

func (s *httpSink) Text(b []byte) (bool, error) {
	s.text.Write(b)
	return s.stopAfter != "" && strings.Contains(s.text.String(), s.stopAfter), nil
}

func (s *httpSink) Reasoning(b []byte) error {
	s.reasoning.Write(b)
	return nil
}

func (s *httpSink) NativeCall(id, name string, args []byte) (bool, error) {
	s.calls = append(s.calls, id+" "+name+" "+string(args))
	return s.stopOnCall, nil
}

// sse writes one event and sends it now.
func sse(w http.ResponseWriter, data string) {
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

func sseHeader(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
}

// delta is a chat stream chunk with content.
func delta(content string) string {
	return `{"model":"m1","choices":[{"index":0,"delta":{"content":` + string(jsonw.AppendString(nil, content)) + `},"finish_reason":null}]}`
}

func providerError(t *testing.T, err error) *ProviderError {
	t.Helper()
	var pe *ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("want a ProviderError, got %T %v", err, err)
	}
	return pe
}

func temp(f float64) *float64 { return &f }

func TestHTTPRequestBodies(t *testing.T) {
	msgs := []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi \"you\""}}
	render := func(m []Message) (string, error) { return "<" + m[1].Content + ">", nil }
	cases := []struct {
		name   string
		new    func(HTTPOptions) Backend
		stream bool
		req    Request
		path   string
		want   string
	}{{
		name: "chat", new: NewChat, path: "/v1/chat/completions",
		req: Request{Model: "qwen", Messages: msgs, Stop: []string{"\nObservation:"}, MaxTokens: 256, Temperature: temp(0.2),
			Tools: []byte(`[{"ignored":true}]`), ToolChoice: "required"},
		want: `{"model":"qwen","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi \"you\""}],"max_tokens":256,"temperature":0.2,"stop":["\nObservation:"]}`,
	}, {
		name: "chat streamed, schema, extra", new: NewChat, stream: true, path: "/v1/chat/completions",
		req: Request{Messages: msgs[1:], Temperature: temp(0), Schema: []byte(`{"type":"object"}`),
			Extra: []byte(`{"top_k":40,"temperature":0.7,"stream_options":null,"model":"x"}`)},
		want: `{"messages":[{"role":"user","content":"hi \"you\""}],"temperature":0.7,"response_format":{"type":"json_schema","json_schema":{"name":"toolcall","schema":{"type":"object"},"strict":true}},"stream":true,"top_k":40,"model":"x"}`,
	}, {
		name: "completions", new: func(o HTTPOptions) Backend { return NewCompletions(o, render) }, stream: true, path: "/v1/completions",
		req:  Request{Model: "m", Messages: msgs, Schema: []byte(`{"type":"object"}`)},
		want: `{"model":"m","prompt":"<hi \"you\">","json_schema":{"type":"object"},"stream":true,"stream_options":{"include_usage":true}}`,
	}, {
		name: "native", new: NewNative, path: "/v1/chat/completions",
		req: Request{Messages: []Message{
			{Role: "user", Content: "time?"},
			{Role: "assistant", ToolCalls: []tools.Call{{ID: "call_1", Name: "get_time", Arguments: []byte(`{"tz":"UTC"}`)}}},
			{Role: "tool", ToolCallID: "call_1", Name: "get_time", Content: "12:00"},
		}, Tools: []byte(`[{"type":"function","function":{"name":"get_time"}}]`), ToolChoice: "get_time"},
		want: `{"messages":[{"role":"user","content":"time?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_time","arguments":"{\"tz\":\"UTC\"}"}}]},{"role":"tool","content":"12:00","tool_call_id":"call_1","name":"get_time"}],"tools":[{"type":"function","function":{"name":"get_time"}}],"tool_choice":{"type":"function","function":{"name":"get_time"}}}`,
	}, {
		name: "native mode", new: NewNative, path: "/v1/chat/completions",
		req:  Request{Messages: msgs[1:], ToolChoice: "none"},
		want: `{"messages":[{"role":"user","content":"hi \"you\""}],"tool_choice":"none"}`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				choice := `"message":{"content":"ok"}`
				if c.stream {
					choice = `"delta":{"content":"ok"}`
				}
				if strings.HasSuffix(c.path, "/v1/completions") {
					choice = `"text":"ok"`
				}
				if c.stream {
					sseHeader(w)
					sse(w, `{"choices":[{"index":0,`+choice+`,"finish_reason":"stop"}]}`)
					sse(w, "[DONE]")
					return
				}
				io.WriteString(w, `{"choices":[{"index":0,`+choice+`,"finish_reason":"stop"}]}`)
			})
			var slept []time.Duration
			o := f.opts(c.stream, &slept)
			o.APIKey = "sk-test"
			var sink httpSink
			if _, err := c.new(o).Complete(context.Background(), &c.req, &sink); err != nil {
				t.Fatal(err)
			}
			seen := f.requests()[0]
			if seen.body != c.want {
				t.Errorf("body\n got %s\nwant %s", seen.body, c.want)
			}
			if seen.path != c.path {
				t.Errorf("path %s, want %s", seen.path, c.path)
			}
			if got := seen.header.Get("Authorization"); got != "Bearer sk-test" {
				t.Errorf("Authorization %q", got)
			}
			if got := seen.header.Get("User-Agent"); got != "toolcall" {
				t.Errorf("User-Agent %q", got)
			}
			if sink.text.String() != "ok" {
				t.Errorf("text %q", sink.text.String())
			}
		})
	}
}

func TestHTTPBadRequests(t *testing.T) {
	f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) { t.Error("no request should be sent") })
	var slept []time.Duration
	msgs := []Message{{Role: "user", Content: "x"}}
	_, err := NewChat(f.opts(false, &slept)).Complete(context.Background(), &Request{Messages: msgs, Extra: []byte(`[1]`)}, &httpSink{})
	if err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
		t.Errorf("extra not an object: %v", err)
	}
	bad := errors.New("no template")
	_, err = NewCompletions(f.opts(false, &slept), func([]Message) (string, error) { return "", bad }).Complete(context.Background(), &Request{Messages: msgs}, &httpSink{})
	if !errors.Is(err, bad) {
		t.Errorf("render error: %v", err)
	}
}

func TestHTTPNotStreamed(t *testing.T) {
	replies := map[string]string{
		"string": `{"model":"qwen-7b","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"think","content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
		"parts":  `{"model":"qwen-7b","choices":[{"index":0,"message":{"role":"assistant","reasoning":"think","content":[{"type":"text","text":"Hel"},{"type":"image_url"},{"type":"text","text":"lo"}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
	}
	for name, reply := range replies {
		t.Run(name, func(t *testing.T) {
			f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, reply)
			})
			var slept []time.Duration
			var sink httpSink
			resp, err := NewChat(f.opts(false, &slept)).Complete(context.Background(), &Request{}, &sink)
			if err != nil {
				t.Fatal(err)
			}
			if sink.text.String() != "Hello" || sink.reasoning.String() != "think" {
				t.Errorf("text %q reasoning %q", sink.text.String(), sink.reasoning.String())
			}
			if resp.Model != "qwen-7b" || resp.FinishReason != "stop" || string(resp.Usage) != `{"prompt_tokens":5,"completion_tokens":1}` || resp.Stopped {
				t.Errorf("response %+v usage %s", resp, resp.Usage)
			}
		})
	}
}

// A stream as servers really send it: comments, CRLF, a data field split
// over two lines, reasoning in both spellings, usage after the finish.
func TestHTTPChatStreamed(t *testing.T) {
	f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sseHeader(w)
		io.WriteString(w, ": keep-alive\r\n\r\n")
		sse(w, `{"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"let me "}}]}`)
		sse(w, `{"model":"m1","choices":[{"index":0,"delta":{"reasoning":"see"}}]}`)
		io.WriteString(w, "data: {\"model\":\"m1\",\r\ndata: \"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\r\n\r\n")
		sse(w, delta("lo\n"))
		sse(w, `{"model":"m1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		sse(w, `{"model":"m1","choices":[],"usage":{"completion_tokens":3}}`)
		sse(w, "[DONE]")
	})
	var slept []time.Duration
	var sink httpSink
	resp, err := NewChat(f.opts(true, &slept)).Complete(context.Background(), &Request{}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if sink.text.String() != "Hello\n" || sink.reasoning.String() != "let me see" {
		t.Errorf("text %q reasoning %q", sink.text.String(), sink.reasoning.String())
	}
	if resp.Model != "m1" || resp.FinishReason != "stop" || string(resp.Usage) != `{"completion_tokens":3}` || resp.Stopped {
		t.Errorf("response %+v usage %s", resp, resp.Usage)
	}
	if got := f.requests()[0].header.Get("Accept"); got != "text/event-stream" {
		t.Errorf("Accept %q", got)
	}
}

func TestHTTPCompletions(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if !stream {
					io.WriteString(w, `{"model":"m2","choices":[{"text":"a b","index":0,"finish_reason":"length"}],"usage":{"total_tokens":9}}`)
					return
				}
				sseHeader(w)
				sse(w, `{"model":"m2","choices":[{"text":"a","index":0,"finish_reason":null}]}`)
				sse(w, `{"model":"m2","choices":[{"text":" b","index":0,"finish_reason":"length"}]}`)
				sse(w, `{"model":"m2","choices":[],"usage":{"total_tokens":9}}`)
				sse(w, "[DONE]")
			})
			var slept []time.Duration
			var sink httpSink
			b := NewCompletions(f.opts(stream, &slept), func([]Message) (string, error) { return "p", nil })
			resp, err := b.Complete(context.Background(), &Request{}, &sink)
			if err != nil {
				t.Fatal(err)
			}
			if sink.text.String() != "a b" || resp.Model != "m2" || resp.FinishReason != "length" || string(resp.Usage) != `{"total_tokens":9}` {
				t.Errorf("text %q response %+v usage %s", sink.text.String(), resp, resp.Usage)
			}
		})
	}
}

func TestHTTPNative(t *testing.T) {
	// The arguments come as the server sent them: a streamed call's
	// pieces joined into one JSON string, a whole call's value as it is.
	want := []string{
		`call_a get_time "{\"tz\":\"UTC\"}"`,
		`call_b add "{\"a\":1,\"b\":2}"`,
		`call_c bad "{\"a\":"`,
	}
	wantWhole := []string{want[0], `call_b add {"a":1,"b":2}`, want[2]}
	t.Run("streamed", func(t *testing.T) {
		f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			sseHeader(w)
			sse(w, delta("Checking."))
			sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_time","arguments":""}}]}}]}`)
			sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"tz\":"}}]}}]}`)
			sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"UTC\"}"}}]}}]}`)
			sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"add","arguments":"{\"a\":1,"}}]}}]}`)
			sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"b\":2}"}}]}}]}`)
			sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"call_c","function":{"name":"bad","arguments":"{\"a\":"}}]}}]}`)
			sse(w, `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
			sse(w, "[DONE]")
		})
		var slept []time.Duration
		var sink httpSink
		resp, err := NewNative(f.opts(true, &slept)).Complete(context.Background(), &Request{}, &sink)
		if err != nil {
			t.Fatal(err)
		}
		if sink.text.String() != "Checking." || strings.Join(sink.calls, "\n") != strings.Join(want, "\n") || resp.FinishReason != "tool_calls" {
			t.Errorf("text %q finish %q calls\n%s", sink.text.String(), resp.FinishReason, strings.Join(sink.calls, "\n"))
		}
	})
	t.Run("whole", func(t *testing.T) {
		f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[`+
				`{"id":"call_a","type":"function","function":{"name":"get_time","arguments":"{\"tz\":\"UTC\"}"}},`+
				`{"id":"call_b","type":"function","function":{"name":"add","arguments":{"a":1,"b":2}}},`+
				`{"id":"call_c","type":"function","function":{"name":"bad","arguments":"{\"a\":"}}]},"finish_reason":"tool_calls"}]}`)
		})
		var slept []time.Duration
		var sink httpSink
		if _, err := NewNative(f.opts(false, &slept)).Complete(context.Background(), &Request{}, &sink); err != nil {
			t.Fatal(err)
		}
		if strings.Join(sink.calls, "\n") != strings.Join(wantWhole, "\n") || sink.text.Len() != 0 {
			t.Errorf("text %q calls\n%s", sink.text.String(), strings.Join(sink.calls, "\n"))
		}
	})
	t.Run("stop on first call", func(t *testing.T) {
		f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			sseHeader(w)
			sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"get_time","arguments":"{}"}}]}}]}`)
			sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"add","arguments":"{}"}}]}}]}`)
			<-r.Context().Done() // and never finishes
		})
		var slept []time.Duration
		sink := httpSink{stopOnCall: true}
		resp, err := NewNative(f.opts(true, &slept)).Complete(context.Background(), &Request{}, &sink)
		if err != nil || !resp.Stopped || len(sink.calls) != 1 {
			t.Errorf("err %v stopped %v calls %q", err, resp.Stopped, sink.calls)
		}
	})
}

// A server that ignores "stream" and answers with JSON is read as JSON.
func TestHTTPStreamAnsweredWhole(t *testing.T) {
	f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, `{"choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}`)
	})
	var slept []time.Duration
	var sink httpSink
	if _, err := NewChat(f.opts(true, &slept)).Complete(context.Background(), &Request{}, &sink); err != nil || sink.text.String() != "whole" {
		t.Errorf("err %v text %q", err, sink.text.String())
	}
}

func TestHTTPRetries(t *testing.T) {
	okStream := func(w http.ResponseWriter) {
		sseHeader(w)
		sse(w, delta("fine"))
		sse(w, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		sse(w, "[DONE]")
	}
	date := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
	cases := []struct {
		name     string
		handle   func(w http.ResponseWriter, r *http.Request, n int)
		requests int
		text     string
		status   int    // of the ProviderError; 0 with msg "" means success
		msg      string // in the ProviderError
		slept    func([]time.Duration) bool
	}{{
		name: "503 then 200",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				http.Error(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, http.StatusServiceUnavailable)
				return
			}
			okStream(w)
		},
		requests: 2, text: "fine",
		slept: func(d []time.Duration) bool { return len(d) == 1 && d[0] <= 500*time.Millisecond },
	}, {
		name: "429 with Retry-After seconds",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				w.Header().Set("Retry-After", "2")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			okStream(w)
		},
		requests: 2, text: "fine",
		slept: func(d []time.Duration) bool { return len(d) == 1 && d[0] == 2*time.Second },
	}, {
		name: "429 with Retry-After date, then too long",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Retry-After", map[int]string{1: date, 2: "3600", 3: "1"}[n])
			http.Error(w, `{"error":"rate limited"}`, http.StatusTooManyRequests)
		},
		requests: 3, status: 429, msg: "rate limited",
		slept: func(d []time.Duration) bool {
			return len(d) == 2 && d[0] > 3*time.Second && d[0] <= 5*time.Second && d[1] == 30*time.Second
		},
	}, {
		name: "5xx every time",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			http.Error(w, "upstream exploded", http.StatusBadGateway)
		},
		requests: 3, status: 502, msg: "upstream exploded",
		slept: func(d []time.Duration) bool {
			return len(d) == 2 && d[0] <= 500*time.Millisecond && d[1] <= time.Second
		},
	}, {
		name: "400 is not retried",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			http.Error(w, `{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}`, 400)
		},
		requests: 1, status: 400, msg: "the request exceeds the available context size (after 1 attempt)",
		slept: func(d []time.Duration) bool { return len(d) == 0 },
	}, {
		name: "401 says to check the key",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			http.Error(w, `{"error":{"message":"Invalid API Key","type":"authentication_error"}}`, http.StatusUnauthorized)
		},
		requests: 1, status: 401, msg: "Invalid API Key; no API key was sent",
		slept: func(d []time.Duration) bool { return len(d) == 0 },
	}, {
		name: "closed before answering, then fine",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				hijackClose(w)
				return
			}
			okStream(w)
		},
		requests: 2, text: "fine",
		slept: func(d []time.Duration) bool { return len(d) == 1 },
	}, {
		name: "stream broken before any text, then fine",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				sseHeader(w)
				io.WriteString(w, ": loading\n\n")
				w.(http.Flusher).Flush()
				hijackClose(w)
				return
			}
			okStream(w)
		},
		requests: 2, text: "fine",
		slept: func(d []time.Duration) bool { return len(d) == 1 },
	}, {
		name: "never a retry once text was given",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			sseHeader(w)
			sse(w, delta("half"))
			hijackClose(w)
		},
		requests: 1, text: "half", msg: "broke in the middle of the reply",
		slept: func(d []time.Duration) bool { return len(d) == 0 },
	}, {
		name: "closed mid-stream without a finish",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			sseHeader(w)
			sse(w, delta("half"))
		},
		requests: 1, text: "half", msg: "closed the stream before the reply was complete",
		slept: func(d []time.Duration) bool { return len(d) == 0 },
	}, {
		name: "malformed SSE",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			sseHeader(w)
			sse(w, delta("ok"))
			sse(w, `{"choices":[{"delta":{"content":"x"}]`)
		},
		requests: 1, text: "ok", msg: `the reply could not be read: line 3: data is not valid JSON: "{\"choices\":[{\"delta\":{\"content\":\"x\"}]"`,
		slept: func(d []time.Duration) bool { return len(d) == 0 },
	}, {
		name: "error in the stream",
		handle: func(w http.ResponseWriter, r *http.Request, n int) {
			sseHeader(w)
			sse(w, `{"error":{"code":500,"message":"out of memory"}}`)
		},
		requests: 1, msg: "error in the stream: out of memory (code 500)",
		slept: func(d []time.Duration) bool { return len(d) == 0 },
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newHTTPFake(t, c.handle)
			var slept []time.Duration
			var sink httpSink
			_, err := NewChat(f.opts(true, &slept)).Complete(context.Background(), &Request{}, &sink)
			if c.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				pe := providerError(t, err)
				if pe.Status != c.status || !strings.Contains(err.Error(), c.msg) || pe.Attempts != c.requests {
					t.Errorf("got status %d attempts %d: %v\nwant status %d, %q", pe.Status, pe.Attempts, err, c.status, c.msg)
				}
			}
			if got := len(f.requests()); got != c.requests {
				t.Errorf("%d requests, want %d", got, c.requests)
			}
			if sink.text.String() != c.text {
				t.Errorf("text %q, want %q", sink.text.String(), c.text)
			}
			if !c.slept(slept) {
				t.Errorf("waits %v", slept)
			}
		})
	}
}

// hijackClose drops the connection without a proper end.
func hijackClose(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func TestHTTPConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var slept []time.Duration
	o := HTTPOptions{BaseURL: "http://" + addr + "/v1", Sleep: func(d time.Duration) { slept = append(slept, d) }}
	_, err = NewChat(o).Complete(context.Background(), &Request{}, &httpSink{})
	pe := providerError(t, err)
	if pe.Status != 0 || pe.Attempts != 3 || len(slept) != 2 || !strings.Contains(pe.Message, "is the model server running") {
		t.Errorf("attempts %d waits %v: %v", pe.Attempts, slept, err)
	}
}

func TestHTTPStall(t *testing.T) {
	f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sseHeader(w)
		sse(w, delta("before "))
		<-r.Context().Done()
	})
	var slept []time.Duration
	o := f.opts(true, &slept)
	o.Stall = 100 * time.Millisecond
	var sink httpSink
	start := time.Now()
	_, err := NewChat(o).Complete(context.Background(), &Request{}, &sink)
	pe := providerError(t, err)
	if !strings.Contains(pe.Message, "sent nothing for 100ms") || sink.text.String() != "before " || len(f.requests()) != 1 {
		t.Errorf("text %q requests %d: %v", sink.text.String(), len(f.requests()), err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a 100ms stall took %v to notice", d)
	}
}

func TestHTTPCancel(t *testing.T) {
	t.Run("during a backoff", func(t *testing.T) {
		f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Retry-After", "30")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := NewChat(HTTPOptions{BaseURL: f.srv.URL}).Complete(ctx, &Request{}, &httpSink{})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
			t.Errorf("after %v: %v", time.Since(start), err)
		}
	})
	t.Run("during a stream", func(t *testing.T) {
		f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			sseHeader(w)
			sse(w, delta("x"))
			<-r.Context().Done()
		})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := NewChat(HTTPOptions{BaseURL: f.srv.URL, Stream: true}).Complete(ctx, &Request{}, &httpSink{})
		if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
			t.Errorf("after %v: %v", time.Since(start), err)
		}
	})
}

// talker streams a call a token every 20 ms (50 tokens/s), then goes on
// talking until the client hangs up. It stores when it began writing the
// call's last token and when it saw the client leave.
type talker struct {
	lastByte atomic.Int64 // unix ns
	gone     chan time.Time
}

func (tk *talker) handle(w http.ResponseWriter, r *http.Request, n int) {
	sseHeader(w)
	call := []string{`{"type":"tool_call",`, `"name":"get_time",`, `"arguments":{}}`, "\n"}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-r.Context().Done():
			select {
			case tk.gone <- time.Now():
			default:
			}
			return
		case <-tick.C:
		}
		tok := "Observation: it is noon. "
		if i < len(call) {
			tok = call[i]
		}
		if i == len(call)-1 {
			tk.lastByte.Store(time.Now().UnixNano())
		}
		sse(w, delta(tok))
	}
}

func stopAfterCall(tb testing.TB, b Backend, tk *talker) time.Duration {
	sink := httpSink{stopAfter: "}}\n"}
	resp, err := b.Complete(context.Background(), &Request{}, &sink)
	took := time.Since(time.Unix(0, tk.lastByte.Load()))
	if err != nil || !resp.Stopped || strings.Contains(sink.text.String(), "Observation") {
		tb.Fatalf("err %v stopped %v text %q", err, resp.Stopped, sink.text.String())
	}
	return took
}

func TestHTTPStopAfterCall(t *testing.T) {
	tk := &talker{gone: make(chan time.Time, 1)}
	f := newHTTPFake(t, tk.handle)
	took := stopAfterCall(t, NewChat(HTTPOptions{BaseURL: f.srv.URL, Stream: true}), tk)
	if took > 500*time.Millisecond {
		t.Errorf("reading stopped %v after the call's last byte", took)
	}
	select {
	case <-tk.gone:
	case <-time.After(2 * time.Second):
		t.Error("the server never saw the client close the stream")
	}
}

// BenchmarkStopAfterCall reports how long after the call's last byte was
// sent Complete returns (the issue asks for under 50 ms).
func BenchmarkStopAfterCall(b *testing.B) {
	tk := &talker{gone: make(chan time.Time, 1)}
	f := newHTTPFake(b, tk.handle)
	backend := NewChat(HTTPOptions{BaseURL: f.srv.URL, Stream: true})
	var total, worst time.Duration
	n := 0
	for b.Loop() {
		d := stopAfterCall(b, backend, tk)
		total += d
		worst = max(worst, d)
		n++
	}
	b.ReportMetric(float64(total.Microseconds())/float64(n), "µs-after-call")
	b.ReportMetric(float64(worst.Microseconds()), "µs-worst")
}

func TestRetryAfterAndBackoff(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              -1,
		"soon":                          -1,
		"-3":                            -1,
		"0":                             0,
		"7":                             7 * time.Second,
		"99999999999999":                30 * time.Second,
		"Fri, 02 Jan 2026 03:04:15 GMT": 10 * time.Second,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0,
	} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", v, got, want)
		}
	}
	for n, ceiling := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 6: 10 * time.Second, 60: 10 * time.Second} {
		var top time.Duration
		for range 200 {
			d := backoff(n)
			if d < 0 || d > ceiling {
				t.Fatalf("backoff(%d) = %v, outside [0, %v]", n, d, ceiling)
			}
			top = max(top, d)
		}
		if top < ceiling/4 { // full jitter spreads over the whole range
			t.Errorf("backoff(%d) never above %v in 200 draws", n, top)
		}
	}
}

// A Retry-After sent to one request holds back the next request through
// the same backend (another request of a batch), not only the retry.
func TestHTTPRetryAfterHoldsOtherRequests(t *testing.T) {
	f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "20")
			http.Error(w, "busy", http.StatusTooManyRequests)
			return
		}
		sseHeader(w)
		sse(w, delta("fine"))
		sse(w, "[DONE]")
	})
	var slept []time.Duration
	b := NewChat(f.opts(true, &slept))
	if _, err := b.Complete(context.Background(), &Request{}, &httpSink{}); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] != 20*time.Second {
		t.Fatalf("the refused request waited %v, want [20s]", slept)
	}
	// The fake sleep took no time: the server's 20s are not over, and a
	// new request waits for what is left of them before it is sent.
	if _, err := b.Complete(context.Background(), &Request{}, &httpSink{}); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 2 || slept[1] <= 0 || slept[1] > 20*time.Second {
		t.Fatalf("the next request waited %v, want what is left of the 20s", slept)
	}
	if got := len(f.requests()); got != 3 {
		t.Errorf("%d requests reached the server, want 3", got)
	}
	// Another backend (another server) is not held back.
	var other []time.Duration
	if _, err := NewChat(f.opts(true, &other)).Complete(context.Background(), &Request{}, &httpSink{}); err != nil {
		t.Fatal(err)
	}
	if len(other) != 0 {
		t.Errorf("a request to another backend waited %v", other)
	}
}
