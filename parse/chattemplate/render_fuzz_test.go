package chattemplate

import (
	"strings"
	"testing"
)

// FuzzRender renders arbitrary template text: whatever it is, the render
// ends with output within the bound or an error, never a crash of the
// process (a panic in the engine, an allocation no machine has, a stack
// overflow). The seeds are the memory findings of issue 31 and their
// neighbours.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		tinyTemplate,
		`{{ "a" * 300000000 }}`,
		`{{ "a" * 1000000000000 }}`,
		`{{ "ab" * -1 }}`,
		`{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}`,
		`{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | length }}`,
		`{{ range(1000000000000) | list | length }}`,
		`{{ " " | center(1000000000000) }}`,
		`{{ "x" | indent(1000000000) }}`,
		`{{ "a".ljust(1000000000000) }}`,
		`{{ "{:>1000000000}".format(1) }}`,
		`{{ "%999999d" | format(1) }}`,
		`{% include "/dev/zero" %}`,
		`{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(1) }}`,
		`{{ messages[-1]['content'] + ("!" if messages else "?") }}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tp := &Template{Name: "fuzz.jinja", Source: src}
		out, err := tp.Render([]Message{{Role: "user", Content: "hi"}}, RenderOptions{})
		if err == nil && len(out) > maxRender {
			t.Fatalf("rendered %d bytes, past the %d bound", len(out), maxRender)
		}
		if err != nil && strings.Contains(err.Error(), "\x1b") {
			t.Fatalf("error carries a raw escape byte: %q", err)
		}
	})
}
