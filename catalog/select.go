package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// The defaults the CLI passes when it ranks.
const (
	DefaultMax           = 3
	DefaultMinScore      = 0.05
	DefaultScorerTimeout = 10 * time.Second
)

// Selection says which tools a catalog command shows, and how to rank them
// for a request.
type Selection struct {
	// Policy filters by name (Allow, Deny), consent (AllowUnsafe, Approved)
	// and LocalOnly; see Select for exactly how.
	Policy tools.Policy
	// Tags, when not empty, keeps only tools that have at least one of them.
	Tags []string
	// Query, when not empty, ranks the tools for it and keeps the best.
	Query string
	// Runnable leaves out definitions read from a list of tools, which
	// have no executable: for offering tools a call will run.
	Runnable bool
	// Max is how many tools to keep at most; 0 keeps all. With a Query,
	// Max is also how many tools are asked for: a catalog that holds no
	// more candidates than Max offers them all, in catalog order (ranking
	// is for choosing, not for hiding), and when fewer than Max score at
	// least MinScore the best of the rest make up the number, and Warn
	// says so. Cap turns both off.
	Max int
	// Cap makes Max a bound only: the tools scoring at least MinScore,
	// at most Max of them, however few. catalog sets it when --max was
	// not given, since its default of 3 is a bound no one asked for.
	Cap bool
	// MinScore is the lowest score (0..1) a ranked tool may have.
	MinScore float64
	// Scorer, when not empty, is the argv of a command (run directly, no
	// shell) that scores the tools instead of BM25, for embedding or
	// model-based ranking. It reads one JSON object on stdin,
	//
	//	{"query":"…","tools":[{"name","description","tags","input_schema"},…]}
	//
	// holding the tools that passed the filters (input_schema null for a
	// tool without one), and prints {"scores":[{"name","score","reason"?},…]},
	// a bare array of those, or one of those objects per line. Scores are
	// clamped to 0..1; a tool it does not name scores 0; the reason
	// defaults to "scored by <command>". If it fails, times out or prints
	// something else, the tools are ranked with BM25 and Warn says why.
	Scorer []string
	// ScorerTimeout bounds the scorer; 0 means DefaultScorerTimeout.
	ScorerTimeout time.Duration
	// Warn, when set, is told about anything the user should know that is
	// not an error, such as a scorer that failed and was replaced by BM25.
	Warn func(string)

	// scored keeps the scorer's scores once it has run: the tools that
	// fill up Max are chosen from them, without a second run.
	scored []Ranked
}

// Ranked is one selected tool.
type Ranked struct {
	Tool *tools.Tool
	// Score is the relevance to the query, 0..1, rounded to 4 decimals.
	Score float64
	// Reason says why it scored so: the matched terms and where.
	Reason string
	// Scored is true when a ranking happened, so the output shows Score
	// and Reason.
	Scored bool
}

// Select returns the tools sel picks, in order.
//
// A tool is shown when all of these hold:
//   - it is available on this machine (nothing in Tool.Unavailable);
//   - Policy.Listed: it is not denied and, if there is an allow list, on it;
//   - it is safe, or Policy.AllowUnsafe is set, or Policy.Approved names it;
//   - with Policy.LocalOnly, it is not tagged "network";
//   - with Tags, it has at least one of them.
//
// A tool registered without a schema in human-approval mode is shown even
// when not approved: asking a person at call time is what that mode is for,
// and validate refuses the call (kind permission) if nobody approves it.
//
// Without a Query the result is every such tool, sorted by name, cut to
// Max. With one, the tools are ranked (by sel.Scorer, or BM25), those below
// MinScore are dropped, and the rest come best first, ties by name, cut to
// Max. Unless Cap is set, Max is a number asked for: when there are no more
// candidates than Max they are all returned in catalog order, and when
// fewer than Max score MinScore the best of the others make up Max (see
// Selection.Max).
//
// BM25 ranking (k1 1.2, b 0.9) reads each tool's name split into words
// (snake_case, kebab-case, dots, camelCase, digits; weight 3), tags (2),
// argument names (1.5, nested objects included), description (1),
// argument descriptions and enum values (0.5), example values (0.25) and
// the requests of the sidecar's examples (0.25).
// Words are lower-cased and stemmed (Snowball English) on both sides, and
// English stop words are dropped from the query; filler, quoted and common
// words weigh less. A request of several asks is ranked ask by ask and the
// rankings merged round by round (see rankBM25). A score is the BM25
// score divided by the most any tool could score for the query's words
// that occur in the candidates, so it lies in 0..1; it is rounded to 4
// decimals. The reason lists the matched words and where: "matched
// weather (name, description), city (argument)".
func (c *Catalog) Select(ctx context.Context, sel Selection) ([]Ranked, error) {
	cands := c.filter(&sel)
	if strings.TrimSpace(sel.Query) == "" || len(cands) == 0 {
		out := make([]Ranked, 0, len(cands))
		for _, t := range cands {
			out = append(out, Ranked{Tool: t})
		}
		return firstN(out, sel.Max), nil
	}

	asked := sel.Max > 0 && !sel.Cap
	if asked && len(cands) <= sel.Max {
		return sel.all(ctx, cands)
	}
	ranked, err := sel.rank(ctx, cands, sel.MinScore, sel.Max)
	if errors.Is(err, errNoTerms) {
		if asked {
			sel.warn(fmt.Sprintf("query %q has no words to rank by (only stop words or punctuation); offering the first %d tools", sel.Query, sel.Max))
			return unscored(cands[:sel.Max]), nil
		}
		sel.warn(fmt.Sprintf("query %q has no words to rank by (only stop words or punctuation); no tools selected", sel.Query))
		return []Ranked{}, nil
	}
	if err != nil {
		return nil, err
	}
	if asked && len(ranked) < sel.Max {
		return sel.fill(ctx, cands, ranked)
	}
	sel.warnNone(ranked, len(cands))
	return ranked, nil
}

// rank ranks cands with sel.Scorer, or with BM25 when there is none or it
// fails, keeping those scoring at least minScore, at most limit of them.
func (sel *Selection) rank(ctx context.Context, cands []*tools.Tool, minScore float64, limit int) ([]Ranked, error) {
	if len(sel.Scorer) > 0 && sel.scored == nil {
		scored, err := runScorer(ctx, sel, cands)
		switch {
		case err == nil:
			sel.scored = scored
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			sel.warn(err.Error() + "; ranked with BM25 instead")
			// Once is enough: a second ranking, to fill up Max, need
			// not wait for it to fail again.
			sel.Scorer = nil
		}
	}
	if sel.scored != nil {
		order := best(sel.scored, minScore, limit)
		out := make([]Ranked, len(order))
		for i, k := range order {
			out[i] = sel.scored[k]
		}
		return out, nil
	}
	return rankBM25(sel.Query, cands, minScore, limit)
}

// all offers every candidate, in catalog order, scored when the query has
// words to score by, so that the score and reason still say how well each
// fits.
func (sel *Selection) all(ctx context.Context, cands []*tools.Tool) ([]Ranked, error) {
	ranked, err := sel.rank(ctx, cands, 0, 0)
	if errors.Is(err, errNoTerms) {
		return unscored(cands), nil
	}
	if err != nil {
		return nil, err
	}
	at := make(map[*tools.Tool]int, len(ranked))
	for i, r := range ranked {
		at[r.Tool] = i
	}
	out := make([]Ranked, 0, len(cands))
	for _, t := range cands {
		if i, ok := at[t]; ok {
			out = append(out, ranked[i])
		} else {
			out = append(out, Ranked{Tool: t, Scored: true, Reason: "no query terms matched"})
		}
	}
	return out, nil
}

// fill makes up sel.Max with the best of the tools that scored below
// sel.MinScore, after those that did not, and says so.
func (sel *Selection) fill(ctx context.Context, cands []*tools.Tool, ranked []Ranked) ([]Ranked, error) {
	rest, err := sel.rank(ctx, cands, 0, sel.Max)
	if err != nil {
		return nil, err
	}
	kept := make(map[*tools.Tool]bool, len(ranked))
	for _, r := range ranked {
		kept[r.Tool] = true
	}
	above := len(ranked)
	for _, r := range rest {
		if len(ranked) == sel.Max {
			break
		}
		if !kept[r.Tool] {
			ranked = append(ranked, r)
		}
	}
	sel.warn(fmt.Sprintf("%d of %d tools scored %g or more for query %q; offering %d more, the best of the rest, to make up the %d asked for",
		above, len(cands), sel.MinScore, sel.Query, len(ranked)-above, sel.Max))
	return ranked, nil
}

func unscored(ts []*tools.Tool) []Ranked {
	out := make([]Ranked, len(ts))
	for i, t := range ts {
		out[i] = Ranked{Tool: t}
	}
	return out
}

// warnNone says so when a ranking kept none of the candidates, since an
// empty tool list would otherwise pass unnoticed into a prompt.
func (sel *Selection) warnNone(kept []Ranked, cands int) {
	if len(kept) == 0 {
		sel.warn(fmt.Sprintf("no tool of %d scored %g or more for query %q; none selected (lower the minimum score, or rephrase the query)", cands, sel.MinScore, sel.Query))
	}
}

// best returns the indexes of the tools in rs that score at least
// minScore, best first, ties by name, at most limit of them (0: all).
func best(rs []Ranked, minScore float64, limit int) []int {
	order := make([]int, 0, len(rs))
	for i := range rs {
		if rs[i].Score >= minScore {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		if sa, sb := rs[a].Score, rs[b].Score; sa != sb {
			if sa > sb {
				return -1
			}
			return 1
		}
		return strings.Compare(rs[a].Tool.Name, rs[b].Tool.Name)
	})
	if limit > 0 && len(order) > limit {
		order = order[:limit]
	}
	return order
}

func (sel *Selection) warn(msg string) {
	if sel.Warn != nil {
		sel.Warn(msg)
	}
}

// Withheld names the tools sel leaves out for want of consent alone:
// unsafe, with neither Policy.AllowUnsafe set nor Policy.Approved naming
// them, and kept by every other filter. catalog says how many, so that a
// tool is not missing without a word.
func (c *Catalog) Withheld(sel Selection) []string {
	shown := map[*tools.Tool]bool{}
	for _, t := range c.filter(&sel) {
		shown[t] = true
	}
	sel.Policy.AllowUnsafe = true
	var names []string
	for _, t := range c.filter(&sel) {
		if !shown[t] {
			names = append(names, t.Name)
		}
	}
	return names
}

// filter returns the tools that pass sel's filters, sorted by name.
func (c *Catalog) filter(sel *Selection) []*tools.Tool {
	p := &sel.Policy
	// Approved is matched like Allow (names or globs); Listed does that.
	approved := &tools.Policy{Allow: p.Approved}
	out := make([]*tools.Tool, 0, len(c.all))
	for _, t := range c.all {
		if t.Unavailable != "" || !p.Listed(t) || sel.Runnable && t.Definition {
			continue
		}
		if !t.Safe && !p.AllowUnsafe && (len(p.Approved) == 0 || !approved.Listed(t)) {
			continue
		}
		if p.LocalOnly && slices.Contains(t.Tags, tools.TagNetwork) {
			continue
		}
		if len(sel.Tags) > 0 && !slices.ContainsFunc(sel.Tags, func(tag string) bool { return slices.Contains(t.Tags, tag) }) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func firstN(rs []Ranked, limit int) []Ranked {
	if limit > 0 && len(rs) > limit {
		return rs[:limit]
	}
	return rs
}

// RequestQuery finds the text to rank tools by in a request read from
// stdin. It accepts, in this order:
//   - {"query": "…"} or {"prompt": "…"};
//   - a user event, {"type":"user","content":…};
//   - {"messages": […]}: the last message with role "user";
//   - several JSON lines (a transcript): the last of them that holds one of
//     the above;
//   - a JSON string;
//   - anything else that does not start with "{": the text itself.
//
// Content may be a string or an array of parts, whose "text" fields are
// joined with newlines. Empty input gives "" and no error.
func RequestQuery(data []byte) (string, error) {
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "", nil
	}
	if gjson.Valid(text) && (text[0] == '{' || text[0] == '[' || text[0] == '"') {
		if q, ok := queryOf(gjson.Parse(text)); ok {
			return q, nil
		}
		return "", errNoQuery
	}
	if text[0] != '{' {
		// Plain text; a "[" or a quote that does not begin valid JSON is
		// still a prompt ("[urgent] book a room").
		return text, nil
	}
	// Several JSON values, one per line: the last that holds a query wins.
	q, found := "", false
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !gjson.Valid(line) {
			return "", fmt.Errorf("request line %d is not valid JSON: give a JSON request such as {\"query\": \"…\"}, JSON lines, or plain text that does not start with { or [", n+1)
		}
		if s, ok := queryOf(gjson.Parse(line)); ok {
			q, found = s, true
		}
	}
	if !found {
		return "", errNoQuery
	}
	return q, nil
}

var errNoQuery = errors.New(`request holds no query: give {"query": "…"}, {"prompt": "…"}, {"messages": […]} with a user message, a {"type":"user"} event, or plain text`)

// queryOf returns the query v holds, if any.
func queryOf(v gjson.Result) (string, bool) {
	switch {
	case v.Type == gjson.String:
		return v.String(), true
	case v.IsArray():
		return lastUser(v)
	case !v.IsObject():
		return "", false
	}
	for _, key := range []string{"query", "prompt"} {
		if s := v.Get(key); s.Type == gjson.String {
			return s.String(), true
		}
	}
	if v.Get("type").String() == event.TypeUser {
		if s, ok := contentText(v.Get("content")); ok {
			return s, true
		}
	}
	if m := v.Get("messages"); m.IsArray() {
		return lastUser(m)
	}
	return "", false
}

// lastUser returns the content of the last message with role "user".
func lastUser(msgs gjson.Result) (string, bool) {
	arr := msgs.Array()
	for i := len(arr) - 1; i >= 0; i-- {
		if arr[i].Get("role").String() == "user" {
			return contentText(arr[i].Get("content"))
		}
	}
	return "", false
}

// contentText reads a message content: a string, or parts with "text".
func contentText(c gjson.Result) (string, bool) {
	if c.Type == gjson.String {
		return c.String(), true
	}
	if !c.IsArray() {
		return "", false
	}
	var parts []string
	for _, p := range c.Array() {
		if p.Type == gjson.String {
			parts = append(parts, p.String())
		} else if s := p.Get("text"); s.Type == gjson.String {
			parts = append(parts, s.String())
		}
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}
