package chattemplate

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/parse"
)

// A family's result markers (parse.Spec.Result) say how its chat
// template writes a tool's result back, for --api completions. The
// templates of the corpus, which this project did not write, are the
// reference: each family's template renders a call and its result, and
// what AppendResult writes must be in the rendering as it is.

// resultText is the result rendered: a quote and a line break show a
// template that escapes, trims or indents it.
const resultText = "Rz5 \"sunny\"\n21 °C~"

// resultFamilies are the corpus templates of each family besides the
// ones TestRoundTrip derives (wantDerived): templates that render no
// calls but write results, and a template whose family is also another.
var resultFamilies = map[string][]string{
	// Ollama's Granite 3.x templates leave the calls out and write the
	// results.
	"ollama-granite3.1-moe-1b": {parse.FormatGranite},
	"ollama-granite3.2-8b":     {parse.FormatGranite},
	"ollama-granite3.3-2b":     {parse.FormatGranite},
	// LFM2's templates where the calls are the content's.
	"LFM2-8B-A1B":         {parse.FormatLFM2},
	"LFM2.5-Instruct":     {parse.FormatLFM2},
	"LFM2.5-VL-1.6B-Q8_0": {parse.FormatLFM2},
	// Ollama's templates, which leave the calls out.
	"ollama-phi4-mini-3.8b":   {parse.FormatPhi4Mini},
	"ollama-deepseek-v3-671b": {parse.FormatDeepSeekR1},
	"ollama-hermes3-70b":      {parse.FormatHermes},
	// poolside's template writes GLM 4.7's calls and Laguna's results.
	"laguna": {parse.FormatLaguna},
	// Meta's template is also that of the built-in tools.
	"meta-llama-Llama-3.1-8B-Instruct": {parse.FormatLlama3JSON, parse.FormatLlama3Builtin},
}

// resultDiffers are the templates whose results are not written as their
// family's markers say, and how they are written instead.
var resultDiffers = map[string]string{
	"Bielik-11B-v3.0-Instruct":    "hermes calls, its results after <|function_output|>",
	"LGAI-EXAONE-EXAONE-4.0-1.2B": `hermes calls, its results <tool_result>{"result": "…"}</tool_result>, as JSON`,
	// Step 3.5 writes Qwen3-Coder's calls and results without the
	// newlines, in a turn of role tool_response.
	"StepFun3.5-Flash":          "<tool_response>…</tool_response>, no newlines",
	"stepfun-ai-Step-3.5-Flash": "<tool_response>…</tool_response>, no newlines",
	// HyperCLOVA X SEED writes GLM 4.5's calls and a result of its own.
	"naver-hyperclovax-omniserve-track_a": "<tool_response>NAME\\n…\\n</tool_response> in a tool turn",
	"naver-hyperclovax-omniserve-track_b": "<tool_response>NAME\\n…\\n</tool_response> in a tool turn",
	"ollama-hermes3-70b":                  "Ollama's template writes a bare turn of role tool, <|im_start|>tool\\n…<|im_end|>, where Nous Research's wraps it in <tool_response>",
	"ollama-llama4-latest":                "Llama 4's header tokens: <|header_start|>ipython<|header_end|>, <|eot|>",
	"DeepSeek-V4-Flash":                   "V4 writes <tool_result>…</tool_result> in a user turn, V3.2 <result>…</result>",
	"Mistral-Small-3.2-24B-Instruct-2506": "[TOOL_RESULTS]ID[TOOL_CONTENT]…[/TOOL_RESULTS], the call's id first",
	"google-gemma-4-31B-it-interleaved":   "a turn of role tool, <|turn>tool\\n…<turn|>, where Google's own writes a response token",
	"LFM2-8B-A1B":                         "LFM2's tool turn wraps it in <|tool_response_start|>…<|tool_response_end|>, LFM2.5's do not",
	"moonshotai-Kimi-K2-Instruct-0905":    "four spaces of its own layout before the result, and each turn's <|im_end|> written where the next begins",
	"moonshotai-Kimi-K2":                  `an older template: "## Return of ID\\n" with a backslash and an n, in a turn of role tool`,
}

// resultUnsaid are the families of corpus templates whose specs say no
// result markers, and why.
var resultUnsaid = map[string]string{
	parse.FormatApertus:        "the results are one list, [A, B], after the calls: nothing is written around each",
	parse.FormatNemotron:       "the results are one list in <TOOL_RESPONSE>[A, B]</TOOL_RESPONSE>",
	parse.FormatCommandR7B:     `the results are entries of one JSON list, each with its call's index ("tool_call_id": "0")`,
	parse.FormatKimiK3:         `a result's tag says its call's place in the turn (index="1"), which neither it nor its call's id says`,
	parse.FormatToolCallsArray: "its models share the call syntax, not the results': Apriel 1.5 writes <|tool_result|>, 1.6 <|begin_tool_result|>, Jamba and Hunyuan their own",
}

// resultFamiliesOf are the families template name is one of.
func resultFamiliesOf(name string) []string {
	fs := resultFamilies[name]
	if f := wantDerived[name]; isFormat(f) && f != parse.FormatTemplate && !slices.Contains(fs, f) {
		fs = append(fs, f)
	}
	return fs
}

// renderResults renders a user turn, an assistant turn calling the first
// n of weatherCalls, and a result for each, with the generation prompt;
// ok is false where the template takes no such conversation.
// A template that writes one call a turn leaves the second out, and ok
// is false for two. Kimi K2's calls have ids of Kimi's form, functions.NAME:INDEX,
// which its template writes whatever the id given.
func renderResults(tp *Template, n int, format string) (string, []Call, bool) {
	d, err := tp.Derive()
	if err != nil {
		d = &Derived{}
	}
	const user = "Weather and time in Paris?"
	calls := weatherCalls()[:n]
	msgs := []Message{{Role: "user", Content: user}, {Role: "assistant", ToolCalls: calls}}
	for i := range calls {
		calls[i].ID = d.CallID(calls[i].ID, calls[i].Name, i)
		if format == parse.FormatKimiK2 {
			calls[i].ID = kimiID(calls[i].Name, i)
		}
		msgs = append(msgs, Message{Role: "tool", Content: resultText + calls[i].Name, ToolCallID: calls[i].ID, Name: calls[i].Name})
	}
	o := RenderOptions{Tools: weatherTools(), AddGenerationPrompt: true}
	r, err := tp.Render(msgs, o)
	if err != nil {
		for i := range calls {
			calls[i].Arguments = mustJSON(calls[i].Arguments)
		}
		if r, err = tp.Render(msgs, o); err != nil {
			return "", nil, false
		}
	}
	i, j := strings.LastIndex(r, user), strings.Index(r, resultText[:3])
	if n > 1 && (i < 0 || j < i || !strings.Contains(r[i:j], calls[n-1].Name)) {
		return "", nil, false
	}
	return r, calls, true
}

func TestResultMarkersAgreeWithTemplates(t *testing.T) {
	checked, agree, differ := 0, 0, 0
	seen := map[string]bool{}
	for _, f := range templates(t) {
		name := nameOf(f)
		for _, format := range resultFamiliesOf(name) {
			spec := parse.BuiltinSpec(format)
			if spec == nil {
				t.Fatalf("%s: no built-in family %q", name, format)
			}
			tp, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if spec.Result == nil {
				if _, ok := resultUnsaid[format]; !ok {
					t.Errorf("%s: family %s has no result markers; give it some, or say why in resultUnsaid", name, format)
				}
				continue
			}
			seen[format] = true
			// One result, and two (where the template takes two calls):
			// markers are what is written around each result, so both
			// of two consecutive ones are written as they say.
			ok := true
			var missing, rendered string
			for n := 1; n <= 2 && ok; n++ {
				r, calls, took := renderResults(tp, n, format)
				if !took {
					if n == 1 {
						t.Fatalf("%s: renders no call and result", name)
					}
					break
				}
				for _, c := range calls {
					want, err := spec.AppendResult(nil, parse.SpecResult{Content: resultText + c.Name, Name: c.Name, ID: c.ID})
					if err != nil {
						t.Fatalf("%s (%s): %v", name, format, err)
					}
					if !strings.Contains(r, string(want)) {
						ok, missing, rendered = false, string(want), r
						break
					}
				}
			}
			checked++
			why, listed := resultDiffers[name]
			switch {
			case ok && listed:
				t.Errorf("%s writes results as %s's markers say, and resultDiffers says it does not (%s): drop it there", name, format, why)
			case ok:
				agree++
			case listed:
				differ++
				t.Logf("%s: not as %s's markers (as expected: %s)", name, format, why)
			default:
				i := strings.Index(rendered, "Rz5")
				t.Errorf("%s: family %s's result markers write\n%q\nwhich the template's rendering does not hold; it writes\n%q",
					name, format, missing, rendered[max(0, i-120):min(len(rendered), i+120)])
			}
		}
	}
	for _, s := range parse.Specs() {
		if s.Result != nil && !seen[s.Format] {
			t.Errorf("family %s has result markers that no corpus template checks: add its template to resultFamilies", s.Format)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(resultUnsaid)) {
		if s := parse.BuiltinSpec(f); s != nil && s.Result != nil {
			t.Errorf("family %s has result markers, and resultUnsaid says why it has none: drop it there", f)
		}
	}
	t.Logf("result markers: %d (template, family) pairs checked, %d agree, %d differ as listed", checked, agree, differ)
}

// docs/formats.md names the families with result markers, and no other.
func TestResultFamiliesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	_, para, _ := strings.Cut(string(doc), "Results written back.")
	para, _, _ = strings.Cut(para, "None are given")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9_]+)`").FindAllStringSubmatch(para, -1) {
		named[m[1]] = true
	}
	for _, s := range parse.Specs() {
		if has := s.Result != nil; has != named[s.Format] {
			t.Errorf("family %s: result markers %v, and docs/formats.md (Results written back) lists it: %v", s.Format, has, named[s.Format])
		}
	}
}
