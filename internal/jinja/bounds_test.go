package jinja

import (
	"context"
	"errors"
	"strings"
	"testing"
)

var testLimits = Limits{Steps: 100000, Output: 1 << 20, String: 1 << 20, Items: 1 << 16, Depth: 100}

// Each attack stops at the bound it reaches, with a *LimitError that
// names it, before the value is built.
func TestBounds(t *testing.T) {
	for _, c := range []struct {
		src   string
		bound Bound
	}{
		{`{% for i in range(60000) %}{% for j in range(60000) %}{% endfor %}{% endfor %}`, BoundSteps},
		{`{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(1) }}`, BoundDepth},
		{`{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}`, BoundDepth},
		{`{{ "a" * 300000000 }}`, BoundString},
		{`{{ "a" * 1000000000000 }}`, BoundString},
		{`{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}`, BoundString},
		{`{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}`, BoundItems},
		{`{{ range(1000000000000) | list | length }}`, BoundItems},
		{`{{ [1] * 100000000 }}`, BoundItems},
		{`{{ "x" | center(1000000000) }}`, BoundString},
		{`{{ ("x\n" * 1000) | indent(1000000) }}`, BoundString},
		{`{{ "a".ljust(1000000000000) }}`, BoundString},
		{`{{ ("a" * 1000) | replace("a", "b" * 100000) }}`, BoundString},
		{`{{ [1, 2] | batch(100000000, 0) | list }}`, BoundItems},
		{`{% for i in range(2000) %}{{ "x" * 1000 }}{% endfor %}`, BoundOutput},
		{`{% set l = [] %}{% for i in range(70000) %}{% set _ = l.append(i) %}{% endfor %}`, BoundItems},
		// Each turn within the bounds, the work of all of them is not.
		{`{% for i in range(60000) %}{% set x = "a" * 1000000 %}{% endfor %}`, BoundSteps},
		{`{% set l = range(60000) | list %}{% for i in range(60000) %}{% if l == l + [] %}{% endif %}{% endfor %}`, BoundSteps},
		{`{% set l = range(60000) | list %}{% for i in range(60000) %}{% if -1 in l %}{% endif %}{% endfor %}`, BoundSteps},
		{`{% set l = range(60000) | list %}{% for i in range(60000) %}{{ l | unique | list | length }}{% endfor %}`, BoundSteps},
		{`{% set s = "é" * 500000 %}{% for i in range(60000) %}{% set c = s[i] %}{% endfor %}`, BoundSteps},
		{`{% set s = "a" * 1000000 %}{% for i in range(60000) %}{% set c = s.split("b") %}{% endfor %}`, BoundSteps},
	} {
		_, err := render(c.src, nil)
		var le *LimitError
		if !errors.As(err, &le) || le.Bound != c.bound {
			t.Errorf("%.80s: %v, want a *LimitError of bound %d", c.src, err, c.bound)
		}
		if c.bound == BoundString && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%.80s: %v is not ErrTooLarge", c.src, err)
		}
	}
}

// Nesting past the parser's bound is an error, not a stack overflow.
func TestNestingBound(t *testing.T) {
	const n = 100000
	for _, src := range []string{
		"{{ " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + " }}",
		"{{ " + strings.Repeat("[", n) + strings.Repeat("]", n) + " }}",
		"{{ " + strings.Repeat("-", n) + "1 }}",
		"{{ " + strings.Repeat("not ", n) + "1 }}",
		strings.Repeat("{% if true %}", n) + strings.Repeat("{% endif %}", n),
		"{{ x" + strings.Repeat(".a", n) + " }}",
		"{{ x" + strings.Repeat("|e", n) + " }}",
	} {
		_, err := Compile(src)
		var le *LimitError
		if !errors.As(err, &le) || le.Bound != BoundNesting {
			t.Errorf("%.40s…: %v", src, err)
		}
	}
}

// A render stops when its context is done, at its next step.
func TestRenderStopsWithContext(t *testing.T) {
	tpl, err := Compile(`{% for i in range(1000) %}{% for j in range(1000) %}{{ j }}{% endfor %}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = tpl.Render(ctx, nil, &Options{Step: func() error {
		if n++; n == 100 {
			cancel()
		}
		return nil
	}})
	if !errors.Is(err, context.Canceled) || n > 101 {
		t.Errorf("after cancel: %v, %d steps", err, n)
	}
}

// The engine has no loader: the four tags that read other templates do
// not parse, and the error names the tag.
func TestNoFiles(t *testing.T) {
	for _, tag := range []string{"include", "import", "from", "extends"} {
		_, err := Compile(`x{% if false %}{% ` + tag + ` "/etc/passwd" %}{% endif %}`)
		var se *SyntaxError
		if !errors.Is(err, ErrNoFiles) || !errors.As(err, &se) || se.Tag != tag || !strings.Contains(err.Error(), tag) {
			t.Errorf("%s: %v", tag, err)
		}
	}
}

// Errors are typed: the exception Python raises is RenderError.Type, and
// what a callable returned is kept for errors.Is.
func TestTypedErrors(t *testing.T) {
	_, err := render(`{{ x.y }}`, nil)
	var re *RenderError
	if !errors.As(err, &re) || re.Type != "UndefinedError" || re.Line != 1 {
		t.Errorf("x.y: %#v", err)
	}
	raised := errors.New("raised")
	vars := map[string]Value{"boom": NewCallable("boom", func([]Value, map[string]Value) (Value, error) { return Value{}, raised })}
	if _, err := render("a\n{{ boom() }}", vars); !errors.Is(err, raised) || !errors.As(err, &re) || re.Line != 2 {
		t.Errorf("boom(): %v", err)
	}
}

// FuzzRender renders any template within the bounds: it ends with an
// error or with output within them, never a panic or a stack overflow.
func FuzzRender(f *testing.F) {
	for _, c := range pythonCases {
		f.Add(c.src)
	}
	for _, s := range []string{
		`{{ "a" * 300000000 }}`,
		`{% macro f(x) %}{{ f(x) }}{% endmacro %}{{ f(1) }}`,
		`{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}`,
		`{% set l = [1] %}{% set _ = l.append(l) %}{{ l }}{{ l == l }}{{ l | tojson }}`,
		`{% for x in [1] recursive %}{{ loop([x]) }}{% endfor %}`,
		`{{ range(1000000000000) | list | length }}`,
		`{% include "/dev/zero" %}`,
		"{{0.痈00}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tpl, err := Compile(src)
		if err != nil {
			return
		}
		out, err := tpl.Render(context.Background(), pythonVars(), &Options{Limits: testLimits})
		if err == nil && len(out) > testLimits.Output {
			t.Fatalf("wrote %d bytes, past the bound", len(out))
		}
	})
}
