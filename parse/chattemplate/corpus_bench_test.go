package chattemplate

import (
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkCorpusRender is the engine's cost on the corpus: one op
// compiles each template of testdata/llamacpp and renders the four
// conversations of testdata/conversations.json through it (the work of
// TestPythonRenders). Run it at two commits to compare engines.
func BenchmarkCorpusRender(b *testing.B) {
	raw, err := os.ReadFile("testdata/conversations.json")
	if err != nil {
		b.Fatal(err)
	}
	var convs conversationsFile
	if err := json.Unmarshal(raw, &convs); err != nil {
		b.Fatal(err)
	}
	type conv struct {
		msgs []Message
		opts RenderOptions
	}
	var cs []conv
	for _, c := range convs.Conversations {
		var msgs []Message
		for _, m := range c.Messages {
			msg := Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
			for _, tc := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, Call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
			msgs = append(msgs, msg)
		}
		o := RenderOptions{AddGenerationPrompt: c.Gen, Now: convs.Now}
		if c.Tools {
			for _, tl := range convs.Tools {
				o.Tools = append(o.Tools, tl)
			}
		}
		cs = append(cs, conv{msgs, o})
	}
	var srcs []string
	for _, f := range templates(b) {
		tp, err := Load(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, tp.Source)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, src := range srcs {
			tp := &Template{Name: "t", Source: src}
			for _, c := range cs {
				_, _ = tp.Render(c.msgs, c.opts)
			}
		}
	}
}
