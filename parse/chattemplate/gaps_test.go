package chattemplate

import "testing"

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
