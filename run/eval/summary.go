package eval

import (
	"slices"
	"strconv"
	"time"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// The event types eval writes: one eval event per case, then one
// eval_summary per setting.
const (
	TypeEval        = "eval"
	TypeEvalSummary = "eval_summary"
)

// WhyError is the why of a case that could not be run (the model server
// failed): not a miss of the model's, and counted apart.
const WhyError Why = "error"

// EventType says the result is an eval event.
func (r *Result) EventType() string { return TypeEval }

// AppendJSON appends the result as an eval event, without its newline:
// the case, its score (1 right, 0 not) and why, what was read of the
// reply, and where its recording is.
func (r *Result) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"eval","id":`...)
	dst = jsonw.AppendString(dst, r.Case.ID)
	dst = append(dst, `,"category":`...)
	dst = jsonw.AppendString(dst, r.Case.Category)
	if r.Setting != "" {
		dst = append(dst, `,"setting":`...)
		dst = jsonw.AppendString(dst, r.Setting)
	}
	score, why, reason := 0, r.Verdict.Why, r.Verdict.Reason
	switch {
	case r.Err != nil:
		why, reason = WhyError, r.Err.Error()
	case r.Verdict.Right:
		score = 1
	}
	dst = append(dst, `,"score":`...)
	dst = strconv.AppendInt(dst, int64(score), 10)
	if why != "" {
		dst = append(dst, `,"why":`...)
		dst = jsonw.AppendString(dst, string(why))
		dst = append(dst, `,"reason":`...)
		dst = jsonw.AppendString(dst, reason)
		if r.Verdict.Rule != "" && r.Err == nil {
			dst = append(dst, `,"rule":`...)
			dst = jsonw.AppendString(dst, r.Verdict.Rule)
		}
	}
	dst = append(dst, `,"calls":`...)
	dst = strconv.AppendInt(dst, int64(len(r.Calls)), 10)
	if r.ParseErrors > 0 {
		dst = append(dst, `,"parse_errors":`...)
		dst = strconv.AppendInt(dst, int64(r.ParseErrors), 10)
	}
	if len(r.Formats) > 0 {
		dst = append(dst, `,"formats":`...)
		dst = jsonw.AppendStrings(dst, r.Formats)
	}
	if r.Repairs > 0 {
		dst = append(dst, `,"repairs":`...)
		dst = strconv.AppendInt(dst, int64(r.Repairs), 10)
	}
	if t := r.Tokens; t != nil {
		dst = append(dst, `,"tokens":{"prompt":`...)
		dst = strconv.AppendInt(dst, t.Prompt, 10)
		dst = append(dst, `,"completion":`...)
		dst = strconv.AppendInt(dst, t.Completion, 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"duration_ms":`...)
	dst = strconv.AppendInt(dst, r.Duration.Milliseconds(), 10)
	if r.Recording != "" {
		dst = append(dst, `,"recording":`...)
		dst = jsonw.AppendString(dst, r.Recording)
	}
	if r.Resumed {
		dst = append(dst, `,"resumed":true`...)
	}
	return append(dst, '}')
}

// Summary adds up results.
type Summary struct {
	Setting string
	// Cases counts every result; Right the ones scored right; Failed the
	// ones not run (Err), which count as not right.
	Cases, Right, Failed int
	ByCategory           map[string]*Tally
	ByWhy                map[Why]int
	// Formats counts the cases whose calls were read in each syntax.
	Formats map[string]int
	// Repaired counts the cases with a repaired call.
	Repaired int
	Tokens   struct{ Prompt, Completion int64 }
	// Duration adds up the cases' own times (not the wall clock of a
	// run with several jobs).
	Duration time.Duration
}

// Tally is one category's count.
type Tally struct{ Cases, Right int }

// Score is the share of cases right, 0 with none.
func (t Tally) Score() float64 {
	if t.Cases == 0 {
		return 0
	}
	return float64(t.Right) / float64(t.Cases)
}

// Score is the share of all cases right, 0 with none.
func (s *Summary) Score() float64 { return Tally{s.Cases, s.Right}.Score() }

// Add counts one result.
func (s *Summary) Add(r Result) {
	if s.ByCategory == nil {
		s.ByCategory, s.ByWhy, s.Formats = map[string]*Tally{}, map[Why]int{}, map[string]int{}
	}
	s.Cases++
	t := s.ByCategory[r.Case.Category]
	if t == nil {
		t = &Tally{}
		s.ByCategory[r.Case.Category] = t
	}
	t.Cases++
	switch {
	case r.Err != nil:
		s.Failed++
		s.ByWhy[WhyError]++
	case r.Verdict.Right:
		s.Right++
		t.Right++
	default:
		s.ByWhy[r.Verdict.Why]++
	}
	for _, f := range r.Formats {
		s.Formats[f]++
	}
	if r.Repairs > 0 {
		s.Repaired++
	}
	if r.Tokens != nil {
		s.Tokens.Prompt += r.Tokens.Prompt
		s.Tokens.Completion += r.Tokens.Completion
	}
	s.Duration += r.Duration
}

// Categories are the categories seen, in order.
func (s *Summary) Categories() []string {
	names := make([]string, 0, len(s.ByCategory))
	for c := range s.ByCategory {
		names = append(names, c)
	}
	slices.Sort(names)
	return names
}

// EventType says the summary is an eval_summary event.
func (s *Summary) EventType() string { return TypeEvalSummary }

// AppendJSON appends the summary as an eval_summary event: the totals, a
// score per category, the misses by why, the syntaxes read, and tokens.
func (s *Summary) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"eval_summary"`...)
	if s.Setting != "" {
		dst = append(dst, `,"setting":`...)
		dst = jsonw.AppendString(dst, s.Setting)
	}
	dst = append(dst, `,"cases":`...)
	dst = strconv.AppendInt(dst, int64(s.Cases), 10)
	dst = append(dst, `,"right":`...)
	dst = strconv.AppendInt(dst, int64(s.Right), 10)
	dst = append(dst, `,"failed":`...)
	dst = strconv.AppendInt(dst, int64(s.Failed), 10)
	dst = append(dst, `,"score":`...)
	dst = appendScore(dst, s.Score())
	dst = append(dst, `,"categories":[`...)
	for i, name := range s.Categories() {
		t := s.ByCategory[name]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"category":`...)
		dst = jsonw.AppendString(dst, name)
		dst = append(dst, `,"cases":`...)
		dst = strconv.AppendInt(dst, int64(t.Cases), 10)
		dst = append(dst, `,"right":`...)
		dst = strconv.AppendInt(dst, int64(t.Right), 10)
		dst = append(dst, `,"score":`...)
		dst = appendScore(dst, t.Score())
		dst = append(dst, '}')
	}
	dst = append(dst, `],"why":`...)
	dst = appendCounts(dst, s.ByWhy)
	dst = append(dst, `,"formats":`...)
	dst = appendCounts(dst, s.Formats)
	if s.Repaired > 0 {
		dst = append(dst, `,"repaired":`...)
		dst = strconv.AppendInt(dst, int64(s.Repaired), 10)
	}
	if s.Tokens.Prompt > 0 || s.Tokens.Completion > 0 {
		dst = append(dst, `,"tokens":{"prompt":`...)
		dst = strconv.AppendInt(dst, s.Tokens.Prompt, 10)
		dst = append(dst, `,"completion":`...)
		dst = strconv.AppendInt(dst, s.Tokens.Completion, 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"duration_ms":`...)
	dst = strconv.AppendInt(dst, s.Duration.Milliseconds(), 10)
	return append(dst, '}')
}

// appendScore writes a share with four decimals, as a number.
func appendScore(dst []byte, f float64) []byte {
	return strconv.AppendFloat(dst, float64(int64(f*10000+0.5))/10000, 'f', -1, 64)
}

// appendCounts writes counts as an object, keys sorted, so two runs'
// summaries diff line for line.
func appendCounts[K ~string](dst []byte, m map[K]int) []byte {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(dst, string(k))
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(m[k]), 10)
	}
	return append(dst, '}')
}
