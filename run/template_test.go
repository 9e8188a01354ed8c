package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/golden"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
)

// conversation is one round of the loop: the model called a tool, saw its
// observation, and the user said something more.
var conversation = []Message{
	{Role: "system", Content: "You are a helpful assistant with tools."},
	{Role: "user", Content: "What is the weather in Paris?"},
	{Role: "assistant", Content: "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"},
	{Role: "tool", Content: `{"city":"Paris","temperature":18,"conditions":"light rain"}`, ToolCallID: "call_1", Name: "get_weather"},
	{Role: "user", Content: "And in Fahrenheit?"},
}

// nativeConversation has calls the server parsed itself (no text) and two
// observations in a row, which some families put in one turn.
var nativeConversation = []Message{
	{Role: "system", Content: "You are a helpful assistant with tools."},
	{Role: "user", Content: "Weather in Paris and Lyon?"},
	{Role: "assistant", ToolCalls: []tools.Call{
		{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)},
		{ID: "call_2", Name: "get_weather", Arguments: []byte(`{"city":"Lyon"}`)},
	}},
	{Role: "tool", Content: `{"temperature":18}`, ToolCallID: "call_1", Name: "get_weather"},
	{Role: "tool", Content: `{"temperature":21}`, ToolCallID: "call_2", Name: "get_weather"},
}

func TestTemplateGolden(t *testing.T) {
	for _, name := range TemplateNames {
		for suffix, msgs := range map[string][]Message{"": conversation, "-native": nativeConversation} {
			t.Run(name+suffix, func(t *testing.T) {
				p, err := Template(name)
				if err != nil {
					t.Fatal(err)
				}
				got, err := p.Render(msgs)
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join("testdata", "templates", name+suffix+".txt"), []byte(got))
				// Whatever comes next is the assistant's: the prompt must
				// not end inside a stop sequence's turn.
				for _, s := range p.Stop() {
					if strings.HasSuffix(got, s) {
						t.Errorf("prompt ends with the stop sequence %q", s)
					}
				}
			})
		}
	}
}

func TestTemplateStop(t *testing.T) {
	want := map[string]string{"chatml": "<|im_end|>", "llama3": "<|eot_id|>", "mistral": "</s>", "gemma": "<end_of_turn>", "plain": "\nUser:"}
	for name, first := range want {
		p, err := Template(name)
		if err != nil {
			t.Fatal(err)
		}
		if s := p.Stop(); len(s) == 0 || s[0] != first {
			t.Errorf("%s: Stop() = %q, want %q first", name, s, first)
		}
	}
}

// The example file reproduces the built-in chatml: a file can do what a
// built-in does with the documented data and functions.
func TestTemplateFile(t *testing.T) {
	file, err := Template(filepath.Join("testdata", "templates", "chatml.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	builtin, _ := Template("chatml")
	for _, msgs := range [][]Message{conversation, nativeConversation} {
		want, _ := builtin.Render(msgs)
		got, err := file.Render(msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("file template:\n%s\nbuilt-in chatml:\n%s", got, want)
		}
	}
	if got, want := strings.Join(file.Stop(), "|"), "<|im_end|>|<|im_start|>"; got != want {
		t.Errorf("Stop() = %q, want %q", got, want)
	}
}

func TestTemplateFileData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fold.tmpl")
	src := `{{.System}}|{{range .Turns}}{{.Role}}:{{json .Content}} {{end}}`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Template(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Render(conversation[:2])
	if err != nil {
		t.Fatal(err)
	}
	if want := `You are a helpful assistant with tools.|user:"What is the weather in Paris?" `; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(p.Stop()) != 0 {
		t.Errorf("a file without a stop template has stop sequences %q", p.Stop())
	}
}

func TestTemplateErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	syntax := write("syntax.tmpl", "line one\n{{range .Messages}}\n{{.Content}\n")
	field := write("field.tmpl", "ok\n\n{{range .Messages}}{{.Text}}{{end}}")

	_, err := Template(syntax)
	if err == nil || !strings.HasPrefix(err.Error(), syntax+":3:") {
		t.Errorf("syntax error: %v, want it to start with %s:3:", err, syntax)
	}
	p, err := Template(field)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Render(conversation)
	if err == nil || !strings.HasPrefix(err.Error(), field+":3:") || !strings.Contains(err.Error(), ".Content") {
		t.Errorf("execution error: %v, want it to start with %s:3: and list the fields", err, field)
	}
	_, err = Template("qwen")
	if err == nil || !strings.Contains(err.Error(), "chatml, llama3, mistral, gemma, plain") {
		t.Errorf("unknown name: %v, want the list of templates", err)
	}
	_, err = Template(filepath.Join(dir, "missing.tmpl"))
	if err == nil || !strings.Contains(err.Error(), "missing.tmpl") {
		t.Errorf("missing file: %v, want the path named", err)
	}
}

// TestTemplateCallAs: a template file writes a model's earlier calls back
// in a built-in family's syntax with callAs, and parse reads them back.
func TestTemplateCallAs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "coder.tmpl")
	src := `{{range .Messages}}{{if .ToolCalls}}{{callAs "qwen3_coder" .ToolCalls}}{{end}}{{end}}`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Template(path)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []Message{{Role: "assistant", ToolCalls: []tools.Call{
		{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris","days":2}`)},
	}}}
	got, err := p.Render(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	pr, _ := parse.NewParser(parse.Options{}, func(e *parse.Event) error {
		if e.Type == tools.TypeToolCall {
			calls = append(calls, e.Call.Name+string(e.Call.Arguments)+" "+e.Call.Format)
		}
		return nil
	})
	pr.Write([]byte(got))
	pr.Close()
	if want := []string{`get_weather{"city":"Paris","days":2} qwen3_coder`}; strings.Join(calls, "|") != strings.Join(want, "|") {
		t.Errorf("rendered %q, read back as %q, want %q", got, calls, want)
	}
	res := filepath.Join(t.TempDir(), "result.tmpl")
	os.WriteFile(res, []byte(`{{range .Messages}}{{if eq .Role "tool"}}{{resultAs "hermes" .Content}}{{end}}{{end}}`), 0o644)
	if p, err := Template(res); err != nil {
		t.Fatal(err)
	} else if got, err := p.Render([]Message{{Role: "tool", Content: `{"temp_c": 14}`}}); err != nil || got != "<tool_response>\n{\"temp_c\": 14}\n</tool_response>" {
		t.Errorf("resultAs hermes: %q, %v", got, err)
	}
	os.WriteFile(res, []byte(`{{range .Messages}}{{resultAs "nemotron" .Content}}{{end}}`), 0o644)
	if p, err := Template(res); err == nil {
		if _, err := p.Render(msgs); err == nil || !strings.Contains(err.Error(), "no result markers") {
			t.Errorf("resultAs nemotron: %v, want an error that its spec does not say", err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.tmpl")
	os.WriteFile(bad, []byte(`{{range .Messages}}{{callAs "gpt_oss_harmony" .ToolCalls}}{{end}}`), 0o644)
	if p, err := Template(bad); err == nil {
		if _, err := p.Render(msgs); err == nil || !strings.Contains(err.Error(), "code of its own") {
			t.Errorf("harmony: %v, want an error that it has no spec", err)
		}
	}
}
