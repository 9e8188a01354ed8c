package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolcall/toolcall/tools"
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
// first one and the program is killed. When the loop has what it needs, the
// program and everything it started are killed at once. timeout (0: none)
// bounds each turn.
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
	if m.timeout > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithTimeout(runCtx, m.timeout)
		defer stop()
	}
	cmd := exec.CommandContext(runCtx, m.argv[0], m.argv[1:]...)
	tools.KillGroupOnCancel(cmd)
	// exec copies stdin in a goroutine of its own, so a program that writes
	// before it reads cannot deadlock with us, and one that never reads
	// only costs an ignored EPIPE.
	cmd.Stdin = bytes.NewReader(appendConversation(nil, req.Messages))
	stderr := &tailBuffer{max: stderrTail}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return resp, fmt.Errorf("model command %s: %w", name, err)
	}
	if err := cmd.Start(); err != nil {
		return resp, &ProviderError{Message: fmt.Sprintf("cannot run the model command: %v", err), Attempts: 1}
	}

	scan := stopScanner{stops: req.Stop}
	var wrote int64
	var sinkErr error
	ended := false // by the sink or a stop sequence: the kill is ours
	buf := make([]byte, 4<<10)
	for !ended {
		n, rerr := stdout.Read(buf)
		if n > 0 {
			out, hit := scan.feed(buf[:n])
			if len(out) > 0 {
				wrote += int64(len(out))
				stop, err := sink.Text(out)
				if err != nil {
					sinkErr = err
					ended = true
				} else if stop {
					resp.Stopped = true
					ended = true
				}
			}
			if hit && !ended {
				resp.FinishReason = "stop"
				ended = true
			}
		}
		if rerr != nil {
			break
		}
	}
	if ended {
		cancel() // kills the process group
	} else if rest := scan.flush(); len(rest) > 0 {
		wrote += int64(len(rest))
		if stop, err := sink.Text(rest); err != nil {
			sinkErr = err
		} else if stop {
			resp.Stopped = true
		}
	}
	werr := cmd.Wait()

	switch {
	case sinkErr != nil:
		return resp, sinkErr
	case ctx.Err() != nil:
		// The caller gave up (interrupt, total time): its reason, not ours.
		return resp, fmt.Errorf("model command %s: %w", name, ctx.Err())
	case ended:
		return resp, nil
	case runCtx.Err() != nil:
		return resp, &ProviderError{Message: fmt.Sprintf("the model command %s did not finish within %s%s", name, m.timeout, stderr.suffix()), Attempts: 1}
	case werr != nil:
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			return resp, &ProviderError{Message: fmt.Sprintf("the model command %s: %v", name, werr), Attempts: 1}
		}
		after := "before writing anything"
		if wrote > 0 {
			after = fmt.Sprintf("after writing %d bytes", wrote)
		}
		return resp, &ProviderError{Message: fmt.Sprintf("the model command %s failed (%v) %s%s", name, ee.ProcessState, after, stderr.suffix()), Attempts: 1}
	}
	if resp.FinishReason == "" {
		resp.FinishReason = "stop"
	}
	return resp, nil
}

// appendConversation writes msgs as the JSONL a model command reads.
func appendConversation(dst []byte, msgs []Message) []byte {
	for _, m := range msgs {
		switch m.Role {
		case "tool":
			dst = append(dst, `{"type":"tool_observation"`...)
			if m.ToolCallID != "" {
				dst = append(dst, `,"id":`...)
				dst = tools.AppendString(dst, m.ToolCallID)
			}
			if m.Name != "" {
				dst = append(dst, `,"name":`...)
				dst = tools.AppendString(dst, m.Name)
			}
		default:
			dst = append(dst, `{"type":`...)
			dst = tools.AppendString(dst, m.Role)
		}
		dst = append(dst, `,"content":`...)
		dst = tools.AppendString(dst, m.Content)
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
