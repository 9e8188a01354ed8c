package chattemplate

// Checking a derivation: parsing the rendered calls back and comparing
// them with the calls the probe conversation made.

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/toolcall/toolcall/parse"
)

type wantCall struct {
	name string
	args map[string]any
}

// detectFormat parses the rendered call with every format on and returns
// the one its calls came in, when they all came in one.
func detectFormat(s string, syn *parse.Syntax) string {
	format := ""
	ok := true
	p, err := parse.NewParser(parse.Options{Syntax: syn}, func(e *parse.Event) error {
		if e.Type == "tool_call" {
			if format != "" && format != e.Call.Format {
				ok = false
			}
			format = e.Call.Format
		}
		return nil
	})
	if err != nil {
		return ""
	}
	if _, err := p.Write([]byte(s)); err != nil || p.Close() != nil || !ok {
		return ""
	}
	return format
}

// strayTokens returns the control tokens that come out as text when the
// rendered calls are parsed: text made of nothing else.
func strayTokens(one, two string, o parse.Options) []string {
	var out []string
	for _, s := range []string{one, two} {
		p, err := parse.NewParser(o, func(e *parse.Event) error {
			if e.Type != "text" {
				return nil
			}
			t := strings.TrimSpace(string(e.Content))
			toks := controlTokens(t)
			if len(toks) > 0 && strings.Join(toks, "") == strings.Join(strings.Fields(t), "") {
				for _, tok := range toks {
					if tok[0] == '<' || tok[0] == '[' {
						out = append(out, tok)
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil
		}
		_, _ = p.Write([]byte(s))
		_ = p.Close()
	}
	return out
}

// dropped reports whether parse reads tok as a control token: no text,
// no call, nothing at all.
func dropped(tok string) bool {
	n := 0
	p, err := parse.NewParser(parse.Options{}, func(*parse.Event) error { n++; return nil })
	if err != nil {
		return false
	}
	_, _ = p.Write([]byte(tok))
	return p.Close() == nil && n == 0
}

// parsesTo reports whether s parses to exactly the wanted calls and no
// prose or errors.
func parsesTo(s string, o parse.Options, want []wantCall) bool {
	var got []wantCall
	bad := false
	p, err := parse.NewParser(o, func(e *parse.Event) error {
		switch e.Type {
		case "tool_call":
			var args map[string]any
			if json.Unmarshal(e.Call.Arguments, &args) != nil {
				bad = true
			}
			got = append(got, wantCall{e.Call.Name, args})
		case "text":
			if len(bytes.TrimSpace(e.Content)) > 0 {
				bad = true
			}
		case "parse_error":
			bad = true
		}
		return nil
	})
	if err != nil {
		return false
	}
	if _, err := p.Write([]byte(s)); err != nil || p.Close() != nil || bad || len(got) != len(want) {
		return false
	}
	for i := range want {
		if got[i].name != want[i].name || !sameJSON(got[i].args, want[i].args) {
			return false
		}
	}
	return true
}

// sameJSON compares two values as JSON. Templates that print values
// with Jinja write booleans as Python does (True), which a tagged format
// reads back as the string "True", and FunctionGemma's quotes them
// (<escape>true<escape>), read back as "true": that is the template's own
// spelling, not a syntax mismatch.
func sameJSON(a, b any) bool {
	norm := func(v any) any {
		raw, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	x, y := norm(a), norm(b)
	if reflect.DeepEqual(x, y) {
		return true
	}
	mx, ok1 := x.(map[string]any)
	my, ok2 := y.(map[string]any)
	if !ok1 || !ok2 || len(mx) != len(my) {
		return false
	}
	for k, v := range my {
		got := mx[k]
		if bv, ok := v.(bool); ok {
			if s, ok := got.(string); ok && (strings.EqualFold(s, "true") && bv || strings.EqualFold(s, "false") && !bv) {
				continue
			}
		}
		if !reflect.DeepEqual(got, v) {
			return false
		}
	}
	return true
}
