//go:build unix

package run

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// A web page where the API should be is said to be one, by its title, and
// a 200 page is not asked for again.
func TestHTTPHTMLReply(t *testing.T) {
	page := "<!DOCTYPE html>\n<html><head><TITLE>\n  Sign in &amp; continue\n</TITLE></head><body><form>…</form></body></html>"
	for _, c := range []struct {
		name     string
		status   int
		ctype    string
		requests int
		msg      string
	}{
		{"200 page", 200, "text/html; charset=utf-8", 1, "HTTP 200: the server sent an HTML page (Sign in & continue), not an API reply; check the base URL (after 1 attempt)"},
		{"502 page", 502, "text/html", 3, "HTTP 502: the server sent an HTML page (Sign in & continue), not an API reply (after 3 attempts)"},
		{"500 page without its type", 500, "", 3, "HTTP 500: the server sent an HTML page (Sign in & continue), not an API reply (after 3 attempts)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if c.ctype != "" {
					w.Header().Set("Content-Type", c.ctype)
				}
				w.WriteHeader(c.status)
				io.WriteString(w, page)
			})
			var slept []time.Duration
			var sink httpSink
			_, err := NewChat(f.opts(true, &slept)).Complete(context.Background(), &Request{}, &sink)
			var pe *ProviderError
			if !errors.As(err, &pe) || pe.Error() != "model server: "+c.msg {
				t.Errorf("error %v\nwant  model server: %s", err, c.msg)
			}
			if n := len(f.requests()); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
		})
	}
}

// nativeTurns serves the first request with body, a recorded SSE stream,
// and every later one with a plain answer.
func nativeTurns(body string) func(w http.ResponseWriter, r *http.Request, n int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		sseHeader(w)
		if n == 1 {
			io.WriteString(w, body)
			return
		}
		sse(w, delta("Done."))
		sse(w, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		sse(w, "[DONE]")
	}
}

func toolDelta(call string) string {
	return "data: " + `{"choices":[{"index":0,"delta":{"tool_calls":[` + call + `]},"finish_reason":null}]}` + "\n\n"
}

const finishCalls = "data: " + `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"

// Streamed native calls are told apart by index and id, and the history
// sent back answers each with exactly one tool message.
func TestNativeCallsAssembled(t *testing.T) {
	for _, c := range []struct {
		name, body string
		ids        []string
	}{
		{"interleaved 0,1,0,1",
			toolDelta(`{"index":0,"id":"a","function":{"name":"get_weather","arguments":""}}`) +
				toolDelta(`{"index":1,"id":"b","function":{"name":"get_weather","arguments":"{\"city\":"}}`) +
				toolDelta(`{"index":0,"function":{"arguments":"{\"city\":"}}`) +
				toolDelta(`{"index":1,"function":{"arguments":"\"Oslo\"}"}}`) +
				toolDelta(`{"index":0,"function":{"arguments":"\"Paris\"}"}}`) + finishCalls,
			[]string{"a", "b"}},
		{"two whole calls sharing index 0",
			toolDelta(`{"index":0,"id":"a","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}`) +
				toolDelta(`{"index":0,"id":"b","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}`) + finishCalls,
			[]string{"a", "b"}},
		{"no ids from the server",
			toolDelta(`{"index":0,"function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}`) +
				toolDelta(`{"index":1,"function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}`) + finishCalls,
			[]string{"call_1", "call_2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newHTTPFake(t, nativeTurns(c.body))
			out, res := runLoop(t, NewNative(HTTPOptions{BaseURL: f.srv.URL + "/v1", Stream: true}),
				Options{Native: true, ObservationRole: RoleTool}, "Weather in Paris and Oslo?")
			if res.Reason != StopFinalAnswer || strings.Count(out, `"type":"tool_observation"`) != 2 {
				t.Fatalf("result %+v\n%s", res, out)
			}
			second := gjson.Parse(f.requests()[1].body).Get("messages").Array()
			var calls, replies []string
			for _, m := range second {
				for _, tc := range m.Get("tool_calls").Array() {
					calls = append(calls, tc.Get("id").Str+" "+tc.Get("function.arguments").Str)
				}
				if m.Get("role").Str == "tool" {
					replies = append(replies, m.Get("tool_call_id").Str+" "+m.Get("content").Str)
				}
			}
			want := []string{c.ids[0] + ` {"city":"Paris"}`, c.ids[1] + ` {"city":"Oslo"}`}
			wantReplies := []string{c.ids[0] + " 18 C and rain in Paris", c.ids[1] + " 18 C and rain in Oslo"}
			if strings.Join(calls, "|") != strings.Join(want, "|") || strings.Join(replies, "|") != strings.Join(wantReplies, "|") {
				t.Errorf("calls %q, want %q\nreplies %q, want %q", calls, want, replies, wantReplies)
			}
		})
	}
}

// A native call that cannot be read is answered, by its id, in terms of
// native calls; so is a native turn with neither call nor answer.
func TestNativeDecodeError(t *testing.T) {
	f := newHTTPFake(t, nativeTurns(
		toolDelta(`{"index":0,"id":"a","function":{"name":"get_weather","arguments":"{\"city\":"}}`)+finishCalls))
	out, _ := runLoop(t, NewNative(HTTPOptions{BaseURL: f.srv.URL + "/v1", Stream: true}),
		Options{Native: true, ObservationRole: RoleTool}, "Weather in Paris?")
	msgs := gjson.Parse(f.requests()[1].body).Get("messages").Array()
	last := msgs[len(msgs)-1]
	if last.Get("role").Str != "tool" || last.Get("tool_call_id").Str != "a" ||
		!strings.Contains(last.Get("content").Str, "native tool call could not be read") || strings.Contains(last.Get("content").Str, "JSON:") {
		t.Errorf("the reply to the unreadable call: %s", last.Raw)
	}
	if !strings.Contains(out, `"type":"tool_observation","id":"a"`) || !strings.Contains(out, `"kind":"decode"`) {
		t.Errorf("no decode observation for the call in the transcript:\n%s", out)
	}

	f = newHTTPFake(t, nativeTurns("data: "+delta("   ")+"\n\n"+finishCalls))
	runLoop(t, NewNative(HTTPOptions{BaseURL: f.srv.URL + "/v1", Stream: true}),
		Options{Native: true, ObservationRole: RoleTool, MaxIterations: 2}, "Weather in Paris?")
	msgs = gjson.Parse(f.requests()[1].body).Get("messages").Array()
	last = msgs[len(msgs)-1]
	if c := last.Get("content").Str; !strings.Contains(c, "Make a native tool call") || strings.Contains(c, `"type":"tool_call"`) {
		t.Errorf("the decode error on --api native says: %s", c)
	}
}

// endless streams lines of text, a chunk at a time, until the client
// leaves; gone hears when it does.
func endless(gone chan struct{}) func(w http.ResponseWriter, r *http.Request, n int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		sseHeader(w)
		repeatUntilGone(w, r, gone, delta(strings.Repeat("word ", 200)+"\n"), nil)
	}
}

// repeatUntilGone sends chunk, and calls sent after each, until the
// client leaves; then it tells gone.
func repeatUntilGone(w http.ResponseWriter, r *http.Request, gone chan struct{}, chunk string, sent func()) {
	for {
		select {
		case <-r.Context().Done():
			gone <- struct{}{}
			return
		default:
		}
		sse(w, chunk)
		if sent != nil {
			sent()
		}
	}
}

// A reply past --max-reply-bytes ends the run with reply_too_large, and
// the transcript holds no more of it than the cap.
func TestReplyTooLarge(t *testing.T) {
	gone := make(chan struct{}, 1)
	f := newHTTPFake(t, endless(gone))
	const limit = 64 << 10
	out, res := runLoop(t, NewChat(HTTPOptions{BaseURL: f.srv.URL + "/v1", Stream: true}), Options{MaxReplyBytes: limit}, "Talk.")
	if res.Reason != StopReplyTooLarge || !strings.Contains(res.Error, "65536 bytes") {
		t.Errorf("result %+v", res)
	}
	var held int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		switch gjson.Get(line, "type").Str {
		case "assistant":
			held += len(gjson.Get(line, "content").Str)
		case "stop":
			if gjson.Get(line, "reason").Str != StopReplyTooLarge {
				t.Errorf("stop event %s", line)
			}
		}
	}
	if held == 0 || held > limit {
		t.Errorf("the transcript holds %d bytes of the reply; the cap is %d", held, limit)
	}
	<-gone // the stream was closed
}

// --timeout holds while a stream is flowing: the run ends with a timeout,
// not when the stream does.
func TestTimeoutWhileStreaming(t *testing.T) {
	gone := make(chan struct{}, 1)
	f := newHTTPFake(t, endless(gone))
	_, res := runLoop(t, NewChat(HTTPOptions{BaseURL: f.srv.URL + "/v1", Stream: true}),
		Options{Timeout: 300 * time.Millisecond, MaxReplyBytes: 1 << 40}, "Talk.")
	if res.Reason != StopTimeout {
		t.Errorf("result %+v", res)
	}
	<-gone
}

// BenchmarkTimeoutWhileStreaming reports how long after --timeout a run
// against a stream that never ends returns (the issue asks for under
// 250 ms).
func BenchmarkTimeoutWhileStreaming(b *testing.B) {
	f := newHTTPFake(b, func(w http.ResponseWriter, r *http.Request, n int) {
		sseHeader(w)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				sse(w, delta("a few tokens "))
			}
		}
	})
	c := loopCatalog(b)
	const limit = 200 * time.Millisecond
	var worst, total time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := Loop(context.Background(), Input{Messages: []Message{{Role: "user", Content: "Talk."}}}, io.Discard,
			Options{Backend: NewChat(HTTPOptions{BaseURL: f.srv.URL + "/v1", Stream: true}), Catalog: c, Timeout: limit})
		past := time.Since(start) - limit
		if err != nil || res.Reason != StopTimeout {
			b.Fatalf("%v %+v", err, res)
		}
		worst, total = max(worst, past), total+past
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-past-timeout")
	b.ReportMetric(float64(worst.Microseconds()), "µs-worst")
}

// A native call whose streamed arguments never end is held to
// --max-reply-bytes as text is: the run ends with reply_too_large, not
// after gathering the arguments without bound (issue 31).
func TestNativeArgumentsTooLarge(t *testing.T) {
	gone := make(chan struct{}, 1)
	var sent atomic.Int64
	f := newHTTPFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sseHeader(w)
		sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_time","arguments":"{\"tz\":\""}}]}}]}`)
		piece := `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + strings.Repeat("x", 4096) + `"}}]}}]}`
		repeatUntilGone(w, r, gone, piece, func() { sent.Add(4096) })
	})
	const limit = 64 << 10
	_, res := runLoop(t, NewNative(HTTPOptions{BaseURL: f.srv.URL + "/v1", Stream: true}), Options{MaxReplyBytes: limit}, "Time?")
	if res.Reason != StopReplyTooLarge {
		t.Errorf("result %+v, want the reason %s", res, StopReplyTooLarge)
	}
	<-gone // the stream was closed
	// Reading stopped near the limit; what the server got out beyond it
	// sat in socket buffers (parse's own bound, 64 MiB, is far above).
	if n := sent.Load(); n > 16<<20 {
		t.Errorf("the server sent %d bytes of arguments before reading stopped; the limit is %d", n, limit)
	}
}
