package catalog

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
)

// rankEval is a retrieval measure of the ranking on BFCL: every function
// of every category is one catalog, each question with accepted answers is
// a request, and the functions of its answers are the tools it needs.
type rankEval struct {
	tools    []*tools.Tool
	requests []evalRequest
}

type evalRequest struct {
	id    string
	query string
	want  []string
}

// readRankEval reads dir (a BFCL data directory, laid out as
// testdata/bfcl is).
func readRankEval(t testing.TB, dir string) *rankEval {
	t.Helper()
	ev := &rankEval{}
	seen := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "BFCL_v4_*.json"))
	if len(files) == 0 {
		t.Fatalf("no BFCL data in %s", dir)
	}
	for _, file := range files {
		answers := map[string][]string{}
		if f, err := os.Open(filepath.Join(dir, "possible_answer", filepath.Base(file))); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				id := gjson.GetBytes(sc.Bytes(), "id").String()
				gjson.GetBytes(sc.Bytes(), "ground_truth").ForEach(func(_, call gjson.Result) bool {
					call.ForEach(func(name, _ gjson.Result) bool {
						if !slices.Contains(answers[id], name.String()) {
							answers[id] = append(answers[id], name.String())
						}
						return true
					})
					return true
				})
			}
			f.Close()
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			for _, fn := range gjson.GetBytes(line, "function").Array() {
				name := fn.Get("name").String()
				if seen[name] {
					continue
				}
				seen[name] = true
				ev.tools = append(ev.tools, &tools.Tool{
					Name:        name,
					Description: fn.Get("description").String(),
					InputSchema: []byte(fn.Get("parameters").Raw),
				})
			}
			id := gjson.GetBytes(line, "id").String()
			if want := answers[id]; len(want) > 0 {
				q := gjson.GetBytes(line, "question.0.#(role==\"user\").content").String()
				ev.requests = append(ev.requests, evalRequest{id: id, query: q, want: want})
			}
		}
		f.Close()
	}
	return ev
}

// recall ranks every request (as rankBM25 does, with the catalog read
// once: see evalIndex) and returns Recall@5 over all requests (the
// share of the tools each needs that are in its top 5, averaged), Recall@1
// over those that need one tool, and NDCG@10 (binary relevance: each tool
// a request needs counts 1, discounted by log2 of its rank + 1, over the
// best order possible), averaged over all requests.
func (ev *rankEval) recall(t testing.TB) (at5, at1single, ndcg10 float64, misses []string) {
	var n1 int
	e := newEvalIndex(ev.tools)
	for _, r := range ev.requests {
		q := newQuery(r.query)
		if len(q.terms) == 0 {
			t.Fatalf("%s: %v", r.id, errNoTerms)
		}
		ranked, _ := q.rank(e.index(q), ev.tools, 0, 10)
		a5, a1, nd := ev.measure(r, ranked)
		at5 += a5
		at1single += a1
		ndcg10 += nd
		if len(r.want) == 1 {
			n1++
		}
		if a5 < 1 {
			var top5 []string
			for _, k := range ranked[:min(5, len(ranked))] {
				top5 = append(top5, k.Tool.Name)
			}
			for _, w := range r.want {
				if !slices.Contains(top5, w) {
					misses = append(misses, r.id+": "+w+" not in "+"["+strings.Join(top5, " ")+"]")
				}
			}
		}
	}
	n := float64(len(ev.requests))
	return at5 / n, at1single / float64(max(n1, 1)), ndcg10 / n, misses
}

// measure returns, for one request and the tools ranked for it, the share
// of the tools it needs in the top 5, whether the first is the one it
// needs if it needs one (1 or 0), and NDCG@10.
func (ev *rankEval) measure(r evalRequest, ranked []Ranked) (at5, at1single, ndcg10 float64) {
	found := 0
	dcg, ideal := 0.0, 0.0
	for i, k := range ranked[:min(10, len(ranked))] {
		if slices.Contains(r.want, k.Tool.Name) {
			dcg += 1 / math.Log2(float64(i+2))
			if i < 5 {
				found++
			}
		}
	}
	for i := range min(len(r.want), 10) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if len(r.want) == 1 && len(ranked) > 0 && ranked[0].Tool.Name == r.want[0] {
		at1single = 1
	}
	return float64(found) / float64(len(r.want)), at1single, dcg / ideal
}

// TestRankRecall measures the ranking on the vendored BFCL subset and
// holds it to the figures it reached; TOOLCALL_RANK_EVAL=DIR measures it
// on a whole BFCL data directory instead, and only reports.
func TestRankRecall(t *testing.T) {
	dir, full := os.LookupEnv("TOOLCALL_RANK_EVAL")
	if !full {
		dir = "../testdata/bfcl"
	}
	ev := readRankEval(t, dir)
	at5, at1, ndcg, misses := ev.recall(t)
	t.Logf("%d tools, %d requests: Recall@5 %.4f, single-tool Recall@1 %.4f, NDCG@10 %.4f", len(ev.tools), len(ev.requests), at5, at1, ndcg)
	if testing.Verbose() {
		for _, m := range misses {
			t.Log("miss", m)
		}
	}
	// The subset's figures when this test was written were 0.983 and
	// 0.859; issue 30's work brought them to 0.9867, 0.8672 and NDCG@10
	// 0.9374, then NDCG@10 0.9380.
	if !full && (at5 < 0.98 || at1 < 0.86 || ndcg < 0.93) {
		t.Errorf("Recall@5 %.4f, Recall@1 %.4f, NDCG@10 %.4f: below what the ranking reached", at5, at1, ndcg)
	}
}

// lendRequests makes a held-out set of example requests from ev: each
// tool that two or more requests need gets the first of them (by id) as
// its example request, and the other requests are the ones ranked. It
// returns the tools with their examples and the requests left.
func (ev *rankEval) lendRequests() ([]*tools.Tool, []evalRequest) {
	byTool := map[string][]int{}
	for i, r := range ev.requests {
		for _, w := range r.want {
			byTool[w] = append(byTool[w], i)
		}
	}
	lent := map[int]bool{}
	examples := map[string]string{}
	for name, rs := range byTool {
		if len(rs) < 2 {
			continue
		}
		first := slices.MinFunc(rs, func(a, b int) int { return strings.Compare(ev.requests[a].id, ev.requests[b].id) })
		examples[name] = ev.requests[first].query
		lent[first] = true
	}
	ts := make([]*tools.Tool, len(ev.tools))
	for i, t := range ev.tools {
		c := &tools.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if q, ok := examples[t.Name]; ok {
			c.Examples, c.ExampleRequests = [][]byte{[]byte("{}")}, []string{q}
		}
		ts[i] = c
	}
	var left []evalRequest
	for i, r := range ev.requests {
		if lent[i] {
			continue
		}
		for _, w := range r.want {
			if _, ok := examples[w]; ok {
				left = append(left, r)
				break
			}
		}
	}
	return ts, left
}

// TestRankExampleRequests: a tool's example requests help rank it for
// other requests for it. Measured on requests held out from the ones lent
// as examples (see lendRequests); with TOOLCALL_RANK_EVAL=DIR on that
// BFCL data, where the weight of the field was chosen, and by default on
// the vendored subset.
func TestRankExampleRequests(t *testing.T) {
	dir, full := os.LookupEnv("TOOLCALL_RANK_EVAL")
	if !full {
		dir = "../testdata/bfcl"
	}
	ev := readRankEval(t, dir)
	ts, left := ev.lendRequests()
	if len(left) == 0 {
		t.Fatalf("no tool in %s is needed by two requests", dir)
	}
	without := &rankEval{tools: ev.tools, requests: left}
	with := &rankEval{tools: ts, requests: left}
	b5, b1, bn, _ := without.recall(t)
	a5, a1, an, _ := with.recall(t)
	t.Logf("%d held-out requests: Recall@5 %.4f -> %.4f, Recall@1 %.4f -> %.4f, NDCG@10 %.4f -> %.4f with example requests at weight %g",
		len(left), b5, a5, b1, a1, bn, an, bm25.weight[fieldRequest])
	if a5 < b5 || an < bn {
		t.Errorf("example requests made the ranking worse")
	}
	if w := os.Getenv("TOOLCALL_RANK_EVAL_WEIGHTS"); w != "" && full {
		// The sweep the weight was chosen by.
		saved := bm25.weight[fieldRequest]
		defer func() { bm25.weight[fieldRequest] = saved }()
		for _, f := range strings.Fields(w) {
			bm25.weight[fieldRequest], _ = strconv.ParseFloat(f, 64)
			a5, a1, an, _ := with.recall(t)
			t.Logf("weight %s: Recall@5 %.4f, Recall@1 %.4f, NDCG@10 %.4f", f, a5, a1, an)
		}
	}
}
