package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/launch"
)

// modelCmd is a program used as the model: a local CLI (llama-cli,
// mlx_lm.generate behind a small wrapper) or a deterministic test model.
type modelCmd struct {
	argv    []string
	timeout time.Duration
}

// NewModelCmd returns a backend that runs argv, without a shell, once per
// turn. The program's stdin is the conversation as JSONL, one event a line
// in the transcript's own words, then closed:
//
//	{"type":"system"|"user"|"assistant","content":…}
//	{"type":"tool_call",…}            the calls of an assistant message, when the server parsed them
//	{"type":"tool_observation","id":…,"name":…,"content":…}   a message of role "tool"
//
// Its stdout is the reply, passed on as it arrives. The request's stop
// sequences are applied to it as a server would: the reply ends before the
// first one and the program is stopped. When the loop has what it needs, the
// program and everything it started are stopped at once: SIGTERM, then
// SIGKILL after the launcher's grace. timeout (0: none) bounds each turn.
//
// A program that exits with a non-zero status fails the turn with a
// *ProviderError holding the end of its stderr, even when it wrote a reply
// first: what it wrote has reached the sink, but a crash may have cut it
// short, and a cut-short answer must not pass for a final one.
func NewModelCmd(argv []string, timeout time.Duration) Backend {
	return &modelCmd{argv: append([]string(nil), argv...), timeout: timeout}
}

// stderrTail is how much of a failing model command's stderr is reported.
const stderrTail = 2 << 10

func (m *modelCmd) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	if len(m.argv) == 0 {
		return Response{}, &ProviderError{Message: "no model command given", Attempts: 1}
	}
	name := filepath.Base(m.argv[0])
	resp := Response{Model: name}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	reply := &replyWriter{scan: stopScanner{stops: req.Stop}, sink: sink, resp: &resp, stop: cancel}
	stderr := &tailBuffer{max: stderrTail}
	// Through the launcher, as a tool runs: the program and everything it
	// started are stopped together (SIGTERM, then SIGKILL after the
	// grace), and a descendant that keeps stdout open cannot hold the turn
	// past that. Its environment is ours: it is the user's program, not a
	// tool the model chose.
	r := launch.Run(runCtx, launch.Spec{
		Path:     m.argv[0],
		Args:     m.argv[1:],
		LookPath: true,
		Env:      os.Environ(),
		Stdin:    appendConversation(nil, req.Messages),
		Stdout:   reply,
		Stderr:   stderr,
		Timeout:  m.timeout,
	})
	// Run has returned: no more writes reach reply or stderr.
	if !reply.ended && reply.sinkErr == nil && r.StartErr == nil {
		if rest := reply.scan.flush(); len(rest) > 0 {
			reply.wrote += int64(len(rest))
			if stop, err := sink.Text(rest); err != nil {
				reply.sinkErr = err
			} else if stop {
				resp.Stopped = true
			}
		}
	}

	switch {
	case reply.sinkErr != nil:
		return resp, reply.sinkErr
	case ctx.Err() != nil:
		// The caller gave up (interrupt, total time): its reason, not ours.
		return resp, fmt.Errorf("model command %s: %w", name, ctx.Err())
	case reply.ended:
		return resp, nil
	case r.StartErr != nil:
		return resp, &ProviderError{Message: fmt.Sprintf("cannot run the model command: %v", r.StartErr), Attempts: 1}
	case r.TimedOut:
		return resp, &ProviderError{Message: fmt.Sprintf("the model command %s did not finish within %s%s", name, m.timeout, stderr.suffix()), Attempts: 1}
	case r.ExitCode != 0:
		after := "before writing anything"
		if reply.wrote > 0 {
			after = fmt.Sprintf("after writing %d bytes", reply.wrote)
		}
		how := fmt.Sprintf("exit status %d", r.ExitCode)
		if r.Signal != "" {
			how = "killed by " + r.Signal
		} else if r.ExitCode < 0 {
			how = "its exit was not seen"
		}
		return resp, &ProviderError{Message: fmt.Sprintf("the model command %s failed (%s) %s%s", name, how, after, stderr.suffix()), Attempts: 1}
	}
	if resp.FinishReason == "" {
		resp.FinishReason = "stop"
	}
	return resp, nil
}

// replyWriter takes the model command's stdout as it arrives: it cuts it
// at the first stop sequence, passes it to the sink, and stops the program
// (through stop) as soon as the sink or a stop sequence says the reply is
// complete; what comes after that is dropped.
type replyWriter struct {
	scan    stopScanner
	sink    Sink
	resp    *Response
	stop    func()
	wrote   int64
	sinkErr error
	ended   bool // by the sink or a stop sequence: the kill is ours
}

func (w *replyWriter) Write(b []byte) (int, error) {
	if w.ended {
		return len(b), nil
	}
	out, hit := w.scan.feed(b)
	if len(out) > 0 {
		w.wrote += int64(len(out))
		stop, err := w.sink.Text(out)
		if err != nil {
			w.sinkErr = err
			w.ended = true
		} else if stop {
			w.resp.Stopped = true
			w.ended = true
		}
	}
	if hit && !w.ended {
		w.resp.FinishReason = "stop"
		w.ended = true
	}
	if w.ended {
		w.stop()
	}
	return len(b), nil
}

// appendConversation writes msgs as the JSONL a model command reads.
func appendConversation(dst []byte, msgs []Message) []byte {
	for _, m := range msgs {
		switch m.Role {
		case "tool":
			dst = append(dst, `{"type":"tool_observation"`...)
			if m.ToolCallID != "" {
				dst = append(dst, `,"id":`...)
				dst = jsonw.AppendString(dst, m.ToolCallID)
			}
			if m.Name != "" {
				dst = append(dst, `,"name":`...)
				dst = jsonw.AppendString(dst, m.Name)
			}
		default:
			dst = append(dst, `{"type":`...)
			dst = jsonw.AppendString(dst, m.Role)
		}
		dst = append(dst, `,"content":`...)
		dst = jsonw.AppendString(dst, m.Content)
		dst = append(dst, "}\n"...)
		for i := range m.ToolCalls {
			dst = m.ToolCalls[i].AppendJSON(dst)
			dst = append(dst, '\n')
		}
	}
	return dst
}

// stopScanner cuts a stream at the first of its stop sequences, holding
// back only the bytes that could be the start of one, so text reaches the
// sink as soon as it cannot belong to a stop sequence.
type stopScanner struct {
	stops   []string
	pending []byte
}

// feed returns the text that is safe to pass on, and whether a stop
// sequence was found (the text then ends before it).
func (s *stopScanner) feed(b []byte) ([]byte, bool) {
	if len(s.stops) == 0 {
		return b, false
	}
	s.pending = append(s.pending, b...)
	cut := -1
	for _, st := range s.stops {
		if st == "" {
			continue
		}
		if i := bytes.Index(s.pending, []byte(st)); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		out := s.pending[:cut]
		s.pending = nil
		return out, true
	}
	keep := 0
	for _, st := range s.stops {
		for k := min(len(st)-1, len(s.pending)); k > keep; k-- {
			if bytes.HasSuffix(s.pending, []byte(st[:k])) {
				keep = k
				break
			}
		}
	}
	out := bytes.Clone(s.pending[:len(s.pending)-keep])
	s.pending = append(s.pending[:0], s.pending[len(s.pending)-keep:]...)
	return out, false
}

// flush returns what was held back when the stream ended.
func (s *stopScanner) flush() []byte {
	out := s.pending
	s.pending = nil
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

// suffix is the tail for an error message: ": stderr: …", or "".
func (t *tailBuffer) suffix() string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "\uFFFD"))
	if s == "" {
		return ""
	}
	if t.cut {
		s = "…" + s
	}
	return ": stderr: " + s
}
