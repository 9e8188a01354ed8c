package chattemplate

import (
	"fmt"
	"testing"

	"github.com/toolcall/toolcall/parse"
)

// A template's derived result markers are its family's where the
// template writes results as the family's markers say (the corpus
// templates TestResultMarkersAgreeWithTemplates checks), and the
// template's own where it does not (resultDiffers): what it writes.
func TestDeriveResult(t *testing.T) {
	agree, own, none := 0, 0, 0
	for tp, d := range derivedCorpus(t) {
		name, got := nameOf(tp.Name), d.Syntax.Result
		b := parse.BuiltinSpec(d.Format)
		if d.Format == parse.FormatTemplate || b == nil {
			continue
		}
		why, listed := resultDiffers[name]
		switch {
		case b.Result == nil:
			t.Logf("%s: %s has no result markers; the template's: %s", name, d.Format, showResult(got))
			if got == nil {
				none++
			} else {
				own++
			}
		case listed:
			if got != nil && *got == *b.Result {
				t.Errorf("%s: derived %s's result markers, and resultDiffers says it writes them otherwise (%s)", name, d.Format, why)
			}
			own++
			t.Logf("%s: its own result markers (%s): %s", name, why, showResult(got))
		case got == nil:
			t.Errorf("%s: derived no result markers; %s's are %s", name, d.Format, showResult(b.Result))
		case *got != *b.Result:
			t.Errorf("%s: derived result markers %s; %s's are %s", name, showResult(got), d.Format, showResult(b.Result))
		default:
			agree++
		}
		// The spec --show-format prints says the template's.
		if s, err := parse.TemplateSpec(d.Format, d.Syntax, "template "+name); err == nil && s.Result != got {
			t.Errorf("%s: its spec's result markers are %s, not the derived %s", name, showResult(s.Result), showResult(got))
		}
	}
	t.Logf("derived result markers: %d as the family's, %d the template's own, %d none", agree, own, none)
	if agree == 0 {
		t.Fatal("no template derived its family's result markers")
	}
}

// showResult is m on one line.
func showResult(m *parse.ResultMarkers) string {
	if m == nil {
		return "none"
	}
	return fmt.Sprintf("start %q, end %q, json %v", m.Start, m.End, m.JSON)
}

// A template of a syntax no family has writes its results in a turn of
// role tool, and derivation says so.
func TestDeriveResultOwnSyntax(t *testing.T) {
	src := `{%- for m in messages -%}
<|turn|>{{ m.role }}
{{ m.content }}{% for c in m.tool_calls %}<|fn|>{{ c.function.name }}<|args|>{{ c.function.arguments | tojson }}<|fn_end|>{% endfor %}<|turn_end|>
{% endfor -%}
{%- if add_generation_prompt %}<|turn|>assistant
{% endif -%}`
	d, err := (&Template{Name: "own", Source: src}).Derive()
	if err != nil {
		t.Fatal(err)
	}
	want := parse.ResultMarkers{Start: "<|turn|>tool\n", End: "<|turn_end|>"}
	if got := d.Syntax.Result; got == nil || *got != want {
		t.Errorf("derived result markers %+v, want %+v", got, want)
	}
}
