package run

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/parse/chattemplate"
)

// qwenTemplate is Qwen2.5's own chat template, vendored for parse's tests.
const qwenTemplate = "../parse/chattemplate/testdata/llamacpp/Qwen-Qwen2.5-7B-Instruct.jinja"

// The built-in chatml template is ChatML as Qwen 2.5 writes it: rendering
// with Qwen's own Jinja template gives the same prompt, and the same stop.
func TestModelTemplateMatchesBuiltIn(t *testing.T) {
	own, err := Template(qwenTemplate)
	if err != nil {
		t.Fatal(err)
	}
	builtin, _ := Template("chatml")
	got, err := own.Render(conversation)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := builtin.Render(conversation)
	if got != want {
		t.Errorf("Qwen's template:\n%s\nbuilt-in chatml:\n%s", got, want)
	}
	if s := own.Stop(); len(s) != 1 || s[0] != "<|im_end|>" {
		t.Errorf("stop %q, want the end-of-turn token <|im_end|>", s)
	}
	// Calls the server parsed go back through the template's own syntax.
	p, err := own.Render(nativeConversation)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}}\n</tool_call>") || !strings.HasSuffix(p, "<|im_start|>assistant\n") {
		t.Errorf("native conversation:\n%s", p)
	}
}

func TestModelTemplateFiles(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(qwenTemplate)
	if err != nil {
		t.Fatal(err)
	}
	// A Jinja file without the extension is known by its {% tags.
	bare := filepath.Join(dir, "chat_template")
	if err := os.WriteFile(bare, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Template(bare); err != nil {
		t.Errorf("Jinja file without extension: %v", err)
	}
	// A template that raises names itself and says what it raised.
	raises := filepath.Join(dir, "strict.jinja")
	os.WriteFile(raises, []byte(`{% for m in messages %}{% if m.role == 'tool' %}{{ raise_exception('tool turns are not supported') }}{% endif %}{{ m.content }}<|end|>{% endfor %}`), 0o644)
	tmpl, err := Template(raises)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmpl.Render(conversation); err == nil || !strings.Contains(err.Error(), "tool turns are not supported") || !strings.Contains(err.Error(), raises) {
		t.Errorf("raising template: %v", err)
	}
	// Not Jinja.
	broken := filepath.Join(dir, "broken.jinja")
	os.WriteFile(broken, []byte(`{% for m in messages %}`), 0o644)
	if _, err := Template(broken); err == nil || !strings.Contains(err.Error(), "broken.jinja") {
		t.Errorf("broken template: %v", err)
	}
}

// The whole loop on completions with Qwen's own template: the same
// prompts, stop sequences and transcript as with the built-in chatml.
func TestE2ECompletionsModelTemplate(t *testing.T) {
	run := func(name string) (string, []string, [][]string) {
		fake := newFakeModel()
		srv := httptest.NewServer(fake)
		defer srv.Close()
		tmpl, err := Template(name)
		if err != nil {
			t.Fatal(err)
		}
		hopts := HTTPOptions{BaseURL: srv.URL + "/v1", Stream: true, Stall: 10 * time.Second}
		opts := Options{Model: "qwen2.5-7b-instruct", MaxIterations: 5, Timeout: 30 * time.Second, Catalog: e2eCatalog(t)}
		opts.Style, opts.ObservationRole, opts.Stop = catalog.StyleXML, RoleTool, tmpl.Stop()
		out, res := runLoop(t, NewCompletions(hopts, tmpl.Render), opts, "What is the weather in Paris, in Fahrenheit?")
		if res.Reason != StopFinalAnswer {
			t.Fatalf("%s: %+v\n%s", name, res, out)
		}
		var prompts []string
		var stops [][]string
		for _, r := range fake.requests() {
			prompts = append(prompts, r.Get("prompt").Str)
			var s []string
			for _, v := range r.Get("stop").Array() {
				s = append(s, v.Str)
			}
			stops = append(stops, s)
		}
		return durationField.ReplaceAllString(out, ""), prompts, stops
	}
	wantOut, wantPrompts, wantStops := run("chatml")
	gotOut, gotPrompts, gotStops := run(qwenTemplate)
	if gotOut != wantOut {
		t.Errorf("transcript with Qwen's template:\n%s\nwith chatml:\n%s", gotOut, wantOut)
	}
	for i := range wantPrompts {
		if i >= len(gotPrompts) || gotPrompts[i] != wantPrompts[i] {
			t.Errorf("prompt %d differs from chatml's", i)
		}
	}
	for i := range gotStops {
		if !slices.Contains(gotStops[i], "<|im_end|>") {
			t.Errorf("request %d stops at %q, want <|im_end|> among them (chatml: %q)", i, gotStops[i], wantStops[i])
		}
	}
}

// With a model's own template, earlier calls and their results go back
// with ids of the form the template wants: Mistral's templates refuse
// any id but nine letters and digits, and Kimi K2 0905's writes the id
// where the name belongs, so it must be functions.NAME:INDEX. The result
// of a call answers it under the same id.
func TestModelTemplateCallIDs(t *testing.T) {
	for name, want := range map[string][]string{
		"mistralai-Mistral-Nemo-Instruct-2407": {`"id": "` + chattemplate.NineCharID("call_1") + `"`, `"call_id": "` + chattemplate.NineCharID("call_2") + `"`},
		"moonshotai-Kimi-K2-Instruct-0905": {"<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>", "<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>",
			"## Return of functions.get_weather:0", "## Return of functions.get_weather:1"},
		// A template that takes any id gets the loop's.
		"Qwen-Qwen2.5-7B-Instruct": {`{"name": "get_weather", "arguments": {"city": "Lyon"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := Template("../parse/chattemplate/testdata/llamacpp/" + name + ".jinja")
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Render(nativeConversation)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "templates", "model-"+name+"-native.txt"), []byte(got))
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in the prompt", w)
				}
			}
		})
	}
}

// A template that has the tool's response begin right after the calls
// (FunctionGemma's <start_function_response>) adds that token to the
// stop sequences: the model writes it after a call and would go on to
// invent the response.
func TestModelTemplateStopsAfterCalls(t *testing.T) {
	for name, want := range map[string][]string{
		"google-functiongemma-270m-it": {"<end_of_turn>", "<start_function_response>"},
		"google-gemma-4-31B-it":        {"<turn|>", "<|tool_response>"},
		"Qwen-Qwen2.5-7B-Instruct":     {"<|im_end|>"},
	} {
		p, err := Template("../parse/chattemplate/testdata/llamacpp/" + name + ".jinja")
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Stop(); !slices.Equal(got, want) {
			t.Errorf("%s: stops %q, want %q", name, got, want)
		}
	}
}

// The built-in llama3 template writes a tool's result as Meta's Llama 3.1
// template does, passed through tojson: the ipython turns of the two
// renderings are the same bytes.
func TestLlama3ResultsMatchMetaTemplate(t *testing.T) {
	meta, err := Template("../parse/chattemplate/testdata/llamacpp/meta-llama-Llama-3.1-8B-Instruct.jinja")
	if err != nil {
		t.Fatal(err)
	}
	builtin, _ := Template("llama3")
	turns := func(p string) []string {
		var out []string
		for _, s := range strings.Split(p, "ipython<|end_header_id|>\n\n")[1:] {
			out = append(out, s[:strings.Index(s, "<|eot_id|>")])
		}
		return out
	}
	for _, conv := range [][]Message{conversation} { // Meta's template takes one call a turn
		want, err := meta.Render(conv)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := builtin.Render(conv)
		w, g := turns(want), turns(got)
		if len(w) == 0 || !slices.Equal(g, w) {
			t.Errorf("tool results: built-in llama3 %q, Meta's template %q", g, w)
		}
	}
}
