package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/launch"
	"github.com/toolcall/toolcall/tools"
)

// maxScorerOutput bounds what is read from a scorer: far more than scores
// for any catalog, far less than memory.
const maxScorerOutput = 16 << 20

// runScorer scores cands with the external command sel.Scorer (the
// protocol is at Selection.Scorer). Scores are rounded to 4 decimals, and
// names the output gives that are not candidates are ignored. The command
// is killed after sel.ScorerTimeout (DefaultScorerTimeout when 0).
//
// The error says why the scorer could not be used (it timed out, failed to
// start, exited non-zero, or printed something unreadable), in words fit to
// follow with "; ranked with BM25 instead".
func runScorer(ctx context.Context, sel *Selection, cands []*tools.Tool) ([]Ranked, error) {
	timeout := sel.ScorerTimeout
	if timeout <= 0 {
		timeout = DefaultScorerTimeout
	}
	stdout, stderr := capped{max: maxScorerOutput}, capped{max: 4096, tail: true}
	// Through the launcher, as a tool runs: on timeout the scorer's
	// children die with it, and one that escaped the group holding stdout
	// open cannot keep us waiting. Its environment is ours: the scorer is
	// the user's program.
	r := launch.Run(ctx, launch.Spec{
		Path:     sel.Scorer[0],
		Args:     sel.Scorer[1:],
		LookPath: true,
		Env:      os.Environ(),
		Stdin:    scorerRequest(sel.Query, cands),
		Stdout:   &stdout,
		Stderr:   &stderr,
		Timeout:  timeout,
	})
	switch {
	case r.TimedOut:
		return nil, fmt.Errorf("scorer timed out after %v", timeout)
	case r.Interrupted:
		return nil, ctx.Err()
	case r.StartErr != nil:
		return nil, fmt.Errorf("scorer could not run: %w", r.StartErr)
	case r.Signal != "":
		return nil, fmt.Errorf("scorer was killed by %s", r.Signal)
	case r.ExitCode != 0:
		msg := fmt.Sprintf("scorer exited with status %d", r.ExitCode)
		if tail := lastLine(stderr.buf.String()); tail != "" {
			msg += " (" + tail + ")"
		}
		return nil, errors.New(msg)
	case stdout.over:
		return nil, fmt.Errorf("scorer printed more than %d MiB", maxScorerOutput>>20)
	}

	scores, err := parseScores(stdout.buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("scorer output is not readable: %w (want {\"scores\":[{\"name\":…,\"score\":…}]})", err)
	}
	by := filepath.Base(sel.Scorer[0])
	out := make([]Ranked, len(cands))
	for i, t := range cands {
		out[i] = Ranked{Tool: t, Scored: true, Reason: "scored by " + by}
		if s, ok := scores[t.Name]; ok {
			out[i].Score = s.score
			if s.reason != "" {
				out[i].Reason = s.reason
			}
		}
	}
	return out, nil
}

// scorerRequest is what a scorer reads on stdin.
func scorerRequest(query string, cands []*tools.Tool) []byte {
	b := append([]byte(nil), `{"query":`...)
	b = jsonw.AppendString(b, query)
	b = append(b, `,"tools":[`...)
	for i, t := range cands {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonw.AppendString(b, t.Name)
		b = append(b, `,"description":`...)
		b = jsonw.AppendString(b, t.Description)
		b = append(b, `,"tags":`...)
		b = jsonw.AppendStrings(b, t.Tags)
		b = append(b, `,"input_schema":`...)
		b = appendSchema(b, t.InputSchema, "null")
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

type scorerScore struct {
	score  float64
	reason string
}

// parseScores reads a scorer's output (see runScorer for the shapes).
func parseScores(out []byte) (map[string]scorerScore, error) {
	text := strings.TrimSpace(string(out))
	if text == "" {
		return nil, errors.New("it printed nothing")
	}
	scores := make(map[string]scorerScore)
	if gjson.Valid(text) {
		v := gjson.Parse(text)
		if s := v.Get("scores"); v.IsObject() && s.Exists() {
			v = s
		}
		if v.IsArray() {
			for i, e := range v.Array() {
				if err := addScore(scores, e); err != nil {
					return nil, fmt.Errorf("item %d: %w", i+1, err)
				}
			}
			return scores, nil
		}
		if err := addScore(scores, v); err != nil {
			return nil, err
		}
		return scores, nil
	}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !gjson.Valid(line) {
			return nil, fmt.Errorf("line %d is not JSON", n+1)
		}
		if err := addScore(scores, gjson.Parse(line)); err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
	}
	return scores, nil
}

func addScore(scores map[string]scorerScore, e gjson.Result) error {
	name, s := e.Get("name"), e.Get("score")
	if !e.IsObject() || name.Type != gjson.String || s.Type != gjson.Number {
		return errors.New(`each score needs a string "name" and a number "score"`)
	}
	v := math.Round(min(max(s.Float(), 0), 1)*1e4) / 1e4
	scores[name.Str] = scorerScore{score: v, reason: e.Get("reason").String()}
	return nil
}

// capped is a buffer that keeps at most max bytes, the first or (tail) the
// last, and notes the excess.
type capped struct {
	buf  bytes.Buffer
	max  int
	tail bool
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.tail {
		c.buf.Write(p)
		if c.buf.Len() > c.max {
			c.buf.Next(c.buf.Len() - c.max)
		}
		return len(p), nil
	}
	if room := c.max - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		c.over = true
		return len(p), nil
	}
	return c.buf.Write(p)
}

// lastLine returns the last non-empty line of s, for a short message.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	const limit = 200
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
