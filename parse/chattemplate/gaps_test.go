package chattemplate

import (
	"strings"
	"testing"
)

// Templates that meet gonja's gaps render as Python's Jinja would render
// them.
func TestJinjaGaps(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "hi"}}
	cases := []struct{ src, want string }{
		// Conditionals inside parentheses, brackets and arguments.
		{`{{ "p" + ("a" if messages else "b") }}`, "pa"},
		{`{% set ns = namespace(s="") %}{% set ns.s = ns.s + ("\n" if ns.s else "") + "x" %}{{ ns.s }}`, "x"},
		{`{{ ["a" if x else "b" if messages else "c"] | join }}`, "b"},
		{`{{ ("a" if x else "b") | upper }}`, "B"},
		{`{{ "(x if y else z)" }}`, "(x if y else z)"},
		// x[-1] on a one-item list.
		{`{{ messages[-1]['role'] }}|{{ messages[-1].content[-1] }}|{{ "[-1]" }}`, "user|i|[-1]"},
		// … followed by a method, which gonja calls on no parenthesised value.
		{`{% set s = "a\n</think>\n b" ~ messages[0].content %}{{ s.split('</think>')[-1].lstrip('\n') }}|{{ messages[-1].content.upper() }}`, " bhi|HI"},
		// str methods.
		{`{{ "".endswith("x") }}|{{ "ab".endswith(("x", "b")) }}|{{ "ab".startswith("a") }}`, "False|True|True"},
		{`[{{ "  a  ".lstrip() }}|{{ "xxaxx".strip("x") }}|{{ "a \n".rstrip() }}]`, "[a  |a|a]"},
		// transformers' generation block.
		{`{% generation %}G{% endgeneration %}`, "G"},
	}
	for _, c := range cases {
		tp := &Template{Name: "t", Source: c.src}
		got, err := tp.Render(msgs, RenderOptions{})
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.src, got, err, c.want)
		}
	}
}

// The macro depth count every template gets leaves the output of the
// templates gonja renders as they are unchanged.
func TestRewritesKeepOutput(t *testing.T) {
	user := Message{Role: "user", Content: probeUser}
	convs := [][]Message{
		{user},
		{user, {Role: "assistant", Content: probeReply}},
		{user, {Role: "assistant", ToolCalls: []Call{{ID: probeID, Name: probeName, Arguments: probeArgs()}}}, {Role: "tool", Content: "42", ToolCallID: probeID, Name: probeName}},
	}
	compared := 0
	for _, f := range templates(t) {
		tp, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(tp.Source, "[-1]") {
			continue // gonja's own x[-1] is None on one item, which the rewrite corrects
		}
		for _, msgs := range convs {
			for _, gen := range []bool{false, true} {
				o := RenderOptions{Tools: ProbeTools(), AddGenerationPrompt: gen}
				want, err := (&Template{Name: f, Source: tp.Source, verbatim: true}).Render(msgs, o)
				if err != nil {
					continue
				}
				got, err := (&Template{Name: f, Source: tp.Source}).Render(msgs, o)
				if err != nil || got != want {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					t.Errorf("%s: rewritten template differs at %d: %q, %v; verbatim %q", nameOf(f), i, got[max(0, i-80):min(len(got), i+80)], err, want[max(0, i-80):min(len(want), i+80)])
				}
				compared++
			}
		}
	}
	if compared == 0 {
		t.Fatal("nothing compared")
	}
}

func TestRunawayMacro(t *testing.T) {
	tp := &Template{Name: "loop.jinja", Source: `{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(1) }}`}
	if _, err := tp.Render(nil, RenderOptions{}); err == nil || !strings.Contains(err.Error(), "recurses without end") {
		t.Errorf("runaway recursion: %v", err)
	}
	// Deep but finite recursion is fine.
	deep := &Template{Name: "deep.jinja", Source: `{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% else %}done{% endif %}{% endmacro %}{{ f(50) }}`}
	if out, err := deep.Render(nil, RenderOptions{}); err != nil || out != "done" {
		t.Errorf("finite recursion: %q, %v", out, err)
	}
}

func TestRunawayOutput(t *testing.T) {
	tp := &Template{Name: "big.jinja", Source: `{% for i in range(100000) %}{{ "x" * 1000 }}{% endfor %}`}
	if _, err := tp.Render(nil, RenderOptions{}); err == nil || !strings.Contains(err.Error(), "more than 16 MiB") {
		t.Errorf("runaway output: %v", err)
	}
}
