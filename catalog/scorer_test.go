package catalog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// scorerScript writes a POSIX shell script for use as a scorer and
// returns its path.
func scorerScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "score.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScorer(t *testing.T) {
	c := New(rankTools())
	ctx := context.Background()
	sel := func(argv ...string) Selection {
		return Selection{Query: "weather in Paris", Max: DefaultMax, Cap: true, MinScore: DefaultMinScore, Scorer: argv}
	}

	t.Run("reads the request and uses the scores", func(t *testing.T) {
		saved := filepath.Join(t.TempDir(), "request.json")
		script := scorerScript(t, `cat > "$1"
echo '{"scores":[{"name":"math.factorial","score":0.42,"reason":"embedding similarity"},'
echo '{"name":"get_weather","score":1.7},{"name":"read_file","score":-3},{"name":"no_such_tool","score":1}]}'`)
		var warned []string
		s := sel(script, saved)
		s.Warn = func(m string) { warned = append(warned, m) }
		got, err := c.Select(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(warned) > 0 {
			t.Errorf("warnings: %q", warned)
		}
		want := []string{"get_weather 1 scored by score.sh", "math.factorial 0.42 embedding similarity"}
		if diff := cmp.Diff(want, summary(got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}

		var req struct {
			Query string `json:"query"`
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Tags        []string        `json:"tags"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"tools"`
		}
		data, err := os.ReadFile(saved)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &req); err != nil {
			t.Fatalf("request is not JSON: %v\n%s", err, data)
		}
		if req.Query != "weather in Paris" {
			t.Errorf("query = %q", req.Query)
		}
		// Only the candidates: no unsafe or unavailable tool.
		var names []string
		for _, tl := range req.Tools {
			names = append(names, tl.Name)
			if tl.Tags == nil || len(tl.InputSchema) == 0 {
				t.Errorf("tool %s: tags %v, input_schema %s", tl.Name, tl.Tags, tl.InputSchema)
			}
		}
		if diff := cmp.Diff([]string{"convertCurrency", "get_weather", "math.factorial", "notes_search", "read_file", "weather_forecast"}, names); diff != "" {
			t.Errorf("tools sent (-want +got):\n%s", diff)
		}
	})

	t.Run("bare array", func(t *testing.T) {
		script := scorerScript(t, `echo '[{"name":"read_file","score":0.5},{"name":"get_weather","score":0.5}]'`)
		got, err := c.Select(ctx, sel("sh", script))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"get_weather 0.5 scored by sh", "read_file 0.5 scored by sh"}, summary(got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("JSON lines", func(t *testing.T) {
		script := scorerScript(t, `echo '{"name":"read_file","score":0.3}'
echo
echo '{"name":"weather_forecast","score":0.04}'
echo '{"name":"convertCurrency","score":0.9,"reason":"model said so"}'`)
		got, err := c.Select(ctx, sel("sh", script))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"convertCurrency 0.9 model said so", "read_file 0.3 scored by sh"}, summary(got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestScorerFallback(t *testing.T) {
	c := New(rankTools())
	bm25, err := c.Select(context.Background(), Selection{Query: "weather in Paris", Max: DefaultMax, Cap: true, MinScore: DefaultMinScore})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		script  string
		argv    []string
		timeout time.Duration
		warning string
	}{
		{name: "timeout", script: "exec sleep 10", timeout: 200 * time.Millisecond,
			warning: "scorer timed out after 200ms; ranked with BM25 instead"},
		{name: "timeout, child holds stdout", script: "sleep 10; echo late", timeout: 200 * time.Millisecond,
			warning: "scorer timed out after 200ms; ranked with BM25 instead"},
		{name: "exit status", script: "echo 'model server refused' >&2; exit 3",
			warning: "scorer exited with status 3 (model server refused); ranked with BM25 instead"},
		{name: "not JSON", script: "echo 'get_weather: 0.9'",
			warning: `scorer output is not readable: line 1 is not JSON (want {"scores":[{"name":…,"score":…}]}); ranked with BM25 instead`},
		{name: "no score", script: `echo '{"scores":[{"name":"get_weather","score":"high"}]}'`,
			warning: `scorer output is not readable: item 1: each score needs a string "name" and a number "score" (want {"scores":[{"name":…,"score":…}]}); ranked with BM25 instead`},
		{name: "silent", script: "true",
			warning: `scorer output is not readable: it printed nothing (want {"scores":[{"name":…,"score":…}]}); ranked with BM25 instead`},
		{name: "missing", argv: []string{filepath.Join(t.TempDir(), "no-such-scorer")},
			warning: "scorer could not run: fork/exec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv := tc.argv
			if argv == nil {
				argv = []string{"sh", scorerScript(t, tc.script)}
			}
			var warned []string
			start := time.Now()
			got, err := c.Select(context.Background(), Selection{
				Query: "weather in Paris", Max: DefaultMax, Cap: true, MinScore: DefaultMinScore,
				Scorer: argv, ScorerTimeout: tc.timeout,
				Warn: func(m string) { warned = append(warned, m) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(warned) != 1 || !strings.HasPrefix(warned[0], tc.warning) {
				t.Errorf("warnings %q, want one starting %q", warned, tc.warning)
			}
			if diff := cmp.Diff(summary(bm25), summary(got)); diff != "" {
				t.Errorf("not the BM25 ranking (-want +got):\n%s", diff)
			}
			if tc.timeout > 0 && time.Since(start) > 5*time.Second {
				t.Errorf("a timed-out scorer held Select for %v", time.Since(start))
			}
		})
	}
}

func TestScorerCancelled(t *testing.T) {
	c := New(rankTools())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Select(ctx, Selection{Query: "weather", Scorer: []string{"sh", scorerScript(t, "exec sleep 10")}})
	if err == nil {
		t.Errorf("Select with a cancelled context: no error")
	}
}

func summary(rs []Ranked) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Tool.Name+" "+strconv.FormatFloat(r.Score, 'f', -1, 64)+" "+r.Reason)
	}
	return out
}

// TestScorerFill: when a Max asked for is not reached above the floor, the
// scorer's own scores choose the tools that fill it, and it runs once.
func TestScorerFill(t *testing.T) {
	c := New(rankTools())
	runs := filepath.Join(t.TempDir(), "runs")
	script := scorerScript(t, `echo run >> "$1"
echo '{"name":"read_file","score":0.3}'
echo '{"name":"weather_forecast","score":0.04}'`)
	var warned []string
	got, err := c.Select(context.Background(), Selection{Query: "weather in Paris", Max: 2, MinScore: DefaultMinScore,
		Scorer: []string{"sh", script, runs}, Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"read_file 0.3 scored by sh", "weather_forecast 0.04 scored by sh"}, summary(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "1 of 6 tools scored 0.05 or more") {
		t.Errorf("warnings %q", warned)
	}
	if data, _ := os.ReadFile(runs); string(data) != "run\n" {
		t.Errorf("the scorer ran %d times, want once", strings.Count(string(data), "run"))
	}
}
