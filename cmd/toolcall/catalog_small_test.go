package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestCatalogSmall holds issue 30's rules for a small catalog, as a user
// meets them on the example tools: ranking is for choosing, not for
// hiding.
func TestCatalogSmall(t *testing.T) {
	examples := buildExamples(t)
	catalog := func(t *testing.T, args ...string) (names []string, stderr string) {
		t.Helper()
		clearEnv(t)
		var out, errOut bytes.Buffer
		args = append([]string{"catalog", "--tools", examples}, args...)
		if code := execute(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			names = append(names, gjson.Get(line, "name").Str)
		}
		return names, errOut.String()
	}
	all, _ := catalog(t, "--allow-unsafe")
	if len(all) != 7 {
		t.Fatalf("the example tools are %q, want 7", all)
	}

	t.Run("no larger than --max: all, in catalog order", func(t *testing.T) {
		got, stderr := catalog(t, "--allow-unsafe", "--query", "weather in Paris", "--max", "7")
		if strings.Join(got, " ") != strings.Join(all, " ") || stderr != "" {
			t.Errorf("got %q, want %q; stderr %q", got, all, stderr)
		}
	})
	t.Run("fewer above the floor: filled up, and said on stderr", func(t *testing.T) {
		got, stderr := catalog(t, "--allow-unsafe", "--query", "weather in Paris", "--max", "3")
		if len(got) != 3 || got[0] != "get_weather" {
			t.Errorf("got %q, want get_weather first and 3 in all", got)
		}
		if want := "toolcall: warning: 2 of 7 tools scored 0.05 or more for query \"weather in Paris\"; offering 1 more, the best of the rest, to make up the 3 asked for\n"; stderr != want {
			t.Errorf("stderr %q, want %q", stderr, want)
		}
	})
	t.Run("17 times 25 is arithmetic, not time", func(t *testing.T) {
		got, _ := catalog(t, "--allow-unsafe", "--query", "What is 17 times 25?", "--max", "3")
		if len(got) == 0 || got[0] != "calculator" {
			t.Errorf("got %q, want the calculator first", got)
		}
	})
}
