package chattemplate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolcall/toolcall/internal/clip"
)

// A few bytes of template must not take the memory of the machine: each
// of these asks for gigabytes (or, "a" * 10**12, more than any machine
// has, which kills the process) and must fail at once instead, saying
// what was too large.
func TestRenderBoundsWhatItBuilds(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	for _, src := range []string{
		// A long literal joined in a loop.
		`{% set ns = namespace(s="") %}{% for i in range(1000) %}{% set ns.s = ns.s ~ "` + big + `" %}{% endfor %}{{ ns.s | length }}`,
		`{% set ns = namespace(s="") %}{% for i in range(1000) %}{% set ns.s = "` + big + `" + ns.s %}{% endfor %}{{ ns.s | length }}`,
		`{{ ("a" * 300000000) | length }}`,
		`{{ ("a" * 1000000000000) | length }}`,
		`{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}`,
		`{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s | length }}`,
		`{% set ns = namespace(l=range(540000) | list) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | length }}`,
		`{{ range(1000000000000) | list | length }}`,
		`{{ " " | center(10**12) | length }}`,
		`{{ ("x\n" * 1000) | indent(10**9) | length }}`,
		`{{ range(100) | join("x" * 1000000) | length }}`,
		`{{ ("a" * 1000) | replace("a", "b" * 1000000) | length }}`,
		`{{ "a".ljust(10**12) | length }}`,
		`{{ "a".center(10**12) | length }}`,
		`{{ "a".zfill(10**12) | length }}`,
		`{% set s = "\t" * 1000 %}{{ s.expandtabs(10**9) | length }}`,
		`{% set s = "x" * 100000 %}{{ s.replace("x", "y" * 100000) | length }}`,
		`{% set s = "y" * 1000000 %}{{ s.join(["a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"]) | length }}`,
		`{{ "{:>1000000000}".format(1) | length }}`,
		`{{ "%999999d%999999d%999999d" | format(1, 2, 3) | length }}`,
		`{{ ([1, 2] | slice(10**12)) | length }}`,
	} {
		tp := &Template{Name: "hostile.jinja", Source: src}
		out, err := tp.Render(nil, RenderOptions{})
		if err == nil {
			t.Errorf("%.200s: rendered %q, want an error", src, clip.Head(out, 200))
			continue
		}
		if !strings.Contains(err.Error(), "larger than toolcall allows") && !strings.Contains(err.Error(), "heap grew") {
			t.Errorf("%.200s: %.300v", src, err)
		}
	}
}

// The guarded operators compute what the engine does: real templates
// keep their output (TestRewritesKeepOutput checks the corpus), and these
// corners too.
func TestGuardedOperators(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "hi"}}
	cases := []struct{ src, want string }{
		{`{{ "ab" * 3 }}|{{ "ab" * 0 }}|{{ "ab" * -1 }}|{{ 2 * 3 }}|{{ 1.5 * 2 }}`, "ababab|||6|3.0"},
		{`{{ 1 + 2 * 3 }}|{{ (1 + 2) * 3 }}|{{ 10 - 2 + 1 }}|{{ 7 / 2 * 2 }}`, "7|9|9|7.0"},
		{`{{ "a" ~ 1 ~ "b" }}|{{ "a" + "b" }}|{{ [1] + [2, 3] }}|{{ -1 + 2 }}|{{ 2 * -1 }}|{{ 1e+2 + 1 }}`, "a1b|ab|[1, 2, 3]|1|-2|101.0"},
		{`{{ messages[0].content + "!" | upper }}|{{ "x" ~ messages | length }}|{{ 1 + 1 == 2 }}`, "hi!|x1|True"},
		{`{% set x = 2 * 3 %}{% for i in range(x - 4) %}{{ i + 1 }}{% endfor %}`, "12"},
		{`{% macro f(a, b=1 + 1) %}{{ a * b }}{% endmacro %}{{ f(3) }}|{{ f("y", b=2 + 1) }}`, "6|yyy"},
		{`{{- " a " + "b" -}}|{{ "-" + "+" }}|{{ "*" ~ "~" }}`, " a b|-+|*~"},
		{`{{ range(3) | list }}|{{ range(1, 7, 2) | list }}|{{ range(5, 0, -2) | list }}|{{ range(0) | list }}`, "[0, 1, 2]|[1, 3, 5]|[5, 3, 1]|[]"},
	}
	for _, c := range cases {
		tp := &Template{Name: "t", Source: c.src}
		got, err := tp.Render(msgs, RenderOptions{})
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.src, got, err, c.want)
		}
	}
}

// A list filled in a loop, each value within the bounds, fails once the
// heap has grown past the bound. (The bound is lowered so that a slow
// machine reaches it long before the time bound; maxHeapGrowth is the
// same check.)
func TestRenderBoundsHeap(t *testing.T) {
	tp := &Template{Name: "fill.jinja", maxHeap: 32 << 20,
		Source: `{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = ns.l + ["x" * 1000000] %}{% endfor %}{{ ns.l | length }}`}
	if _, err := tp.Render(nil, RenderOptions{}); err == nil || !strings.Contains(err.Error(), "heap grew by more than 32 MiB") {
		t.Errorf("a list of 1000 strings of 1 MB: %v", err)
	}
}

// A loop without a useful end fails after a bounded number of steps,
// whatever the time bound. (The bound is lowered so that a slow machine
// reaches it long before the time bound; maxSteps is the same check.)
func TestRenderBoundsSteps(t *testing.T) {
	spin := `{% for i in range(100000) %}{% for j in range(100000) %}{{ i ~ j }}{% endfor %}{% endfor %}`
	for _, steps := range []int{10, 1000} {
		tp := &Template{Name: "spin.jinja", Source: spin, maxSteps: steps}
		if _, err := tp.Render(nil, RenderOptions{}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d loop iterations", steps)) {
			t.Errorf("nested loops of 10**10 steps, bound %d: %v", steps, err)
		}
	}
	// Real templates stay far below the bound: the corpus renders (see
	// TestRoundTrip) with it at maxSteps.
}

// Arguments given as JSON keep the key order the model wrote, as a
// request's do in Python's Jinja; JSON nested past the decoder's bound
// reaches the template as its text, not as a failed render.
func TestOrderedArguments(t *testing.T) {
	tp := &Template{Name: "t", Source: `{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.arguments | tojson }}|{% for k, v in c.function.arguments.items() %}{{ k }}{% endfor %}|{% for k, v in c.function.arguments | items %}{{ k }}{% endfor %}|{{ c.function.arguments.get("a") | tojson }}|{% for k, v in c.function.arguments | dictsort %}{{ k }}{% endfor %}{% endfor %}{% endfor %}`}
	msgs := []Message{{Role: "assistant", ToolCalls: []Call{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"z": 1, "a": {"y": 2.5, "b": [true, null]}, "m": "x"}`)}}}}
	got, err := tp.Render(msgs, RenderOptions{})
	want := `{"z": 1, "a": {"y": 2.5, "b": [true, null]}, "m": "x"}|zam|zam|{"y": 2.5, "b": [true, null]}|amz`
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	deep := strings.Repeat("[", maxJSONDepth+10) + strings.Repeat("]", maxJSONDepth+10)
	msgs[0].ToolCalls[0].Arguments = json.RawMessage(deep)
	tp = &Template{Name: "t", Source: `{{ messages[0].tool_calls[0].function.arguments }}`}
	if got, err := tp.Render(msgs, RenderOptions{}); err != nil || got != deep {
		t.Errorf("deep arguments: %.40q, %v", got, err)
	}
}

// A number followed by '.' and a non-ASCII character inside a tag (which
// sent the previous engine's lexer out of range or into an endless loop)
// is an error or a render, promptly; the same text outside a tag or in a
// string renders as written.
func TestLexerTrap(t *testing.T) {
	for _, src := range []string{"{{0.痈00}}", "{% set x = 1.版 %}", "{{\xe7\x970e\x010.痈00"} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = FromSource("trap", src).Render(nil, RenderOptions{})
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: no answer in 5s", src)
		}
	}
	for src, want := range map[string]string{"版本 1.版 {{ 'v1.版' }}": "版本 1.版 v1.版"} {
		got, err := FromSource("plain", src).Render(nil, RenderOptions{})
		if err != nil || got != want {
			t.Errorf("%q: rendered %q, %v; want %q", src, got, err, want)
		}
	}
}
