package run

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/parse/chattemplate"
	"github.com/toolcall/toolcall/tools/redact"
)

// isModelTemplate reports whether the file at path is a model's own chat
// template (Jinja, a tokenizer_config.json, a GGUF model) rather than a Go
// text/template file: by its extension, else by its first bytes.
func isModelTemplate(path string) bool {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return true // a model's directory
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jinja", ".j2", ".json", ".gguf":
		return true
	case ".tmpl", ".gotmpl":
		return false
	}
	f, err := chattemplate.OpenFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	head = head[:n]
	return strings.HasPrefix(string(head), "GGUF") || strings.Contains(string(head), "{%")
}

// modelTemplate renders prompts with a model's own chat template: the
// conversation as it stands (system prompt with the tools as --style
// describes them, turns, assistant calls, observations as tool messages),
// ending with the generation prompt. Its stop sequences are the
// template's end-of-turn and end-of-sequence tokens, and the token that
// begins a tool's response after the calls (Derived.AfterCalls).
func modelTemplate(path string) (*PromptTemplate, error) {
	t, err := chattemplate.Load(path)
	if err != nil {
		return nil, err
	}
	return fromChatTemplate(t, nil)
}

// ChatTemplate returns a prompt template that renders with a chat template
// that came from elsewhere (a server's /props), named name. Its errors,
// then and at each render, are redacted by r, which should know the
// request's key and password (Secrets): they quote the template and what
// it raised, and a server knows the key it was sent. A nil r still
// removes the well-known credential formats.
func ChatTemplate(name, source string, r *redact.Redactor) (*PromptTemplate, error) {
	return fromChatTemplate(chattemplate.FromSource(name, source), r)
}

// fromChatTemplate makes a prompt template of t; redact, when not nil,
// is applied to its errors.
func fromChatTemplate(t *chattemplate.Template, redactor *redact.Redactor) (*PromptTemplate, error) {
	// Servers add the beginning-of-sequence token when they tokenize a
	// completions prompt; the template must not add a second one.
	t.BOS = ""
	clean := func(err error) error {
		if err == nil || redactor == nil {
			return err
		}
		// Not wrapped: what it wraps holds the text unredacted.
		return errors.New(redactor.String(err.Error()))
	}
	stops, err := t.Stops()
	if err != nil {
		return nil, clean(err)
	}
	// Earlier calls go back with ids of the form the template wants
	// (Kimi's functions.NAME:INDEX, Mistral's nine characters); a
	// template whose calls are not derived gets them as they are.
	d, derr := t.Derive()
	if derr != nil {
		d = nil
	}
	// Where the template has the tool's response begin right after the
	// calls, the model stops there too, rather than invent the response.
	if d != nil && d.AfterCalls != "" && !slices.Contains(stops, d.AfterCalls) {
		stops = append(stops, d.AfterCalls)
	}
	render := func(msgs []Message) (string, error) {
		s, err := t.Render(chatMessages(msgs, d), chattemplate.RenderOptions{AddGenerationPrompt: true})
		return s, clean(err)
	}
	return &PromptTemplate{name: t.Name, render: render, stop: stops}, nil
}

// chatMessages converts the loop's messages for a chat template. With d,
// call ids take the form the template wants (d.CallID, counting the
// conversation's calls from 0), and a tool message's tool_call_id the
// same id as its call.
func chatMessages(msgs []Message, d *chattemplate.Derived) []chattemplate.Message {
	out := make([]chattemplate.Message, len(msgs))
	ids := map[string]string{}
	n := 0
	for i, m := range msgs {
		cm := chattemplate.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
		if to, ok := ids[m.ToolCallID]; ok && m.Role == "tool" {
			cm.ToolCallID = to
		} else if d != nil && d.NineCharIDs && m.ToolCallID != "" {
			cm.ToolCallID = chattemplate.NineCharID(m.ToolCallID)
		}
		for _, c := range m.ToolCalls {
			id := c.ID
			if d != nil {
				id = d.CallID(c.ID, c.Name, n)
				ids[c.ID] = id
			}
			n++
			// As JSON, the template sees the keys in the order the model
			// wrote them, as Python's Jinja would.
			var args any = json.RawMessage(`{}`)
			if len(c.Arguments) > 0 {
				if json.Valid(c.Arguments) {
					args = json.RawMessage(c.Arguments)
				} else {
					args = string(c.Arguments)
				}
			}
			cm.ToolCalls = append(cm.ToolCalls, chattemplate.Call{ID: id, Name: c.Name, Arguments: args})
		}
		out[i] = cm
	}
	return out
}
