package chattemplate

import (
	"context"
	"io"
	"testing"

	"github.com/toolcall/toolcall/parse"
)

// On the corpus, parse --template reads every call set auto-detection
// reads, template by template: calls other than the probe's (one, two,
// and one after text) rendered through each template and parsed back
// both ways. Where derivation fails parse --template is auto-detection
// (with a warning), so only derived templates are compared.
func TestNeverWorseThanDetectionOnCorpus(t *testing.T) {
	var withTemplate, withDetection, compared int
	for tp, d := range derivedCorpus(t) {
		f := tp.Name
		compared++
		tmplAll, autoAll := true, true
		for _, c := range callShapes {
			calls, want := c.calls()
			out, fits := modelOutput(t, tp, d, c.content, calls)
			if !fits {
				continue
			}
			auto, _, _, err := parseBack(out, func(r io.Reader, w io.Writer) error {
				_, err := parse.Stream(context.Background(), r, w, parse.Options{})
				return err
			})
			autoOK := err == nil && sameCalls(auto, want)
			got, _, events, err := parseBack(out, func(r io.Reader, w io.Writer) error {
				_, err := Stream(context.Background(), r, w, d.Options(parse.Options{}), parse.Options{})
				return err
			})
			tmplOK := err == nil && sameCalls(got, want)
			if autoOK && !tmplOK {
				t.Errorf("%s: detection reads the %d call(s) of %q, --template does not: %v\n%s", nameOf(f), c.n, out, err, events)
			}
			tmplAll = tmplAll && tmplOK
			autoAll = autoAll && autoOK
		}
		if tmplAll {
			withTemplate++
		}
		if autoAll {
			withDetection++
		}
	}
	t.Logf("round trip of %d derived templates: %d with --template, %d with detection alone", compared, withTemplate, withDetection)
	if withTemplate < withDetection {
		t.Errorf("--template round-trips %d templates, detection %d", withTemplate, withDetection)
	}
}
