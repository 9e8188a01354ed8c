package run

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/template"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/parse/chattemplate"
	"github.com/toolcall/toolcall/tools"
)

// PromptTemplate renders a conversation as the single prompt string of a
// completions endpoint, in a model family's chat format, ending with the
// assistant's turn opened so the model continues as the assistant.
//
// The built-in templates leave out the beginning-of-sequence token
// (<|begin_of_text|>, <s>, <bos>): llama-server and vLLM add it when they
// tokenize a completions prompt, and a second one degrades the output.
type PromptTemplate struct {
	name   string
	render func(msgs []Message) (string, error)
	stop   []string
}

// TemplateNames are the built-in templates, in the order documented.
var TemplateNames = []string{"chatml", "llama3", "mistral", "gemma", "plain"}

// Template returns a built-in template by name (see TemplateNames), or
// else reads name as a file: a model's own chat template (a .jinja file, a
// tokenizer_config.json or a GGUF model), or a Go text/template file (see
// TemplateFuncs for what such a file can use).
func Template(name string) (*PromptTemplate, error) {
	switch name {
	case "chatml":
		return &PromptTemplate{name: name, render: renderChatML, stop: []string{"<|im_end|>", "<|im_start|>"}}, nil
	case "llama3":
		return &PromptTemplate{name: name, render: renderLlama3, stop: []string{"<|eot_id|>", "<|eom_id|>", "<|start_header_id|>"}}, nil
	case "mistral":
		return &PromptTemplate{name: name, render: renderMistral, stop: []string{"</s>", "[INST]", "[TOOL_RESULTS]"}}, nil
	case "gemma":
		return &PromptTemplate{name: name, render: renderGemma, stop: []string{"<end_of_turn>", "<start_of_turn>"}}, nil
	case "plain":
		return &PromptTemplate{name: name, render: renderPlain, stop: []string{"\nUser:", "\nObservation"}}, nil
	}
	if isModelTemplate(name) {
		t, err := modelTemplate(name)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	// Read as a model's template is: a regular file, bounded.
	src, err := chattemplate.ReadFile(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(name, `/\.`) {
			return nil, fmt.Errorf("unknown template %q: use one of %s, the model's chat template (.jinja, tokenizer_config.json, .gguf) or a Go text/template file", name, strings.Join(TemplateNames, ", "))
		}
		return nil, fmt.Errorf("reading template: %w", err)
	}
	return parseTemplateFile(name, string(src))
}

// Name is the template's name, or the path of its file.
func (p *PromptTemplate) Name() string { return p.name }

// Render renders the conversation, ending with the open assistant turn.
func (p *PromptTemplate) Render(msgs []Message) (string, error) {
	return p.render(msgs)
}

// Stop returns the strings that end the assistant's turn (and the ones that
// would begin a turn of someone else), to send as stop sequences.
func (p *PromptTemplate) Stop() []string {
	return append([]string(nil), p.stop...)
}

// systemAndTurns splits off the system messages, joined by a blank line,
// for the families that have no system role of their own.
func systemAndTurns(msgs []Message) (string, []Message) {
	var sys []string
	var turns []Message
	for _, m := range msgs {
		if m.Role == "system" {
			sys = append(sys, m.Content)
		} else {
			turns = append(turns, m)
		}
	}
	return strings.Join(sys, "\n\n"), turns
}

// appendCallsJSON writes calls as {"name": …, "<argsKey>": {…}} objects,
// separated by sep: the JSON most families were trained to emit.
func appendCallsJSON(b *strings.Builder, calls []tools.Call, argsKey, sep string) {
	for i, c := range calls {
		if i > 0 {
			b.WriteString(sep)
		}
		b.Write(callJSON(c, argsKey))
	}
}

func callJSON(c tools.Call, argsKey string) []byte {
	dst := append([]byte(nil), `{"name": `...)
	dst = jsonw.AppendString(dst, c.Name)
	dst = append(dst, `, "`...)
	dst = append(dst, argsKey...)
	dst = append(dst, `": `...)
	if len(c.Arguments) == 0 {
		dst = append(dst, "{}"...)
	} else {
		dst = append(dst, c.Arguments...)
	}
	return append(dst, '}')
}

// renderChatML is ChatML as Qwen 2.5/3 use it. Tool results go back in a
// user turn, each wrapped as the hermes spec's result markers say
// (<tool_response> tags), consecutive results in the same turn; an
// assistant's own calls are <tool_call> blocks.
func renderChatML(msgs []Message) (string, error) {
	var b strings.Builder
	result := parse.BuiltinSpec(parse.FormatHermes).Result
	for i, m := range msgs {
		switch m.Role {
		case "tool":
			if i == 0 || msgs[i-1].Role != "tool" {
				b.WriteString("<|im_start|>user")
			}
			b.WriteString("\n")
			b.WriteString(result.Start)
			b.WriteString(m.Content)
			b.WriteString(result.End)
			if i == len(msgs)-1 || msgs[i+1].Role != "tool" {
				b.WriteString("<|im_end|>\n")
			}
		case "assistant":
			b.WriteString("<|im_start|>assistant")
			if m.Content != "" {
				b.WriteString("\n")
				b.WriteString(m.Content)
			}
			for _, c := range m.ToolCalls {
				b.WriteString("\n<tool_call>\n")
				b.Write(callJSON(c, "arguments"))
				b.WriteString("\n</tool_call>")
			}
			b.WriteString("<|im_end|>\n")
		default:
			fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
		}
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String(), nil
}

// renderLlama3 is the Llama 3.1+ header format. Tool results are turns of
// role ipython, each written as a JSON string: Meta's template passes it
// through tojson (a string is iterable to Jinja), so that is what the
// models saw in training. An assistant's own calls are {"name",
// "parameters"} objects. Other content is trimmed, as Meta's template
// does.
func renderLlama3(msgs []Message) (string, error) {
	var b strings.Builder
	header := func(role string) {
		fmt.Fprintf(&b, "<|start_header_id|>%s<|end_header_id|>\n\n", role)
	}
	for _, m := range msgs {
		if m.Role == "tool" {
			header("ipython")
			b.Write(jsonw.AppendString(nil, m.Content))
			b.WriteString("<|eot_id|>")
			continue
		}
		header(m.Role)
		b.WriteString(strings.TrimSpace(m.Content))
		if len(m.ToolCalls) > 0 {
			if strings.TrimSpace(m.Content) != "" {
				b.WriteString("\n")
			}
			appendCallsJSON(&b, m.ToolCalls, "parameters", "; ")
		}
		b.WriteString("<|eot_id|>")
	}
	header("assistant")
	return b.String(), nil
}

// renderMistral is the [INST] format of Mistral Instruct v0.3 and its
// successors. Mistral has no system role: the system prompt opens the first
// user turn. (Mistral's own template moves it to the last user turn; the
// first keeps the prompt's prefix the same from one turn to the next, so a
// server reuses its cache, and the catalog is not repeated in each
// observation sent as a user turn.) Tool results are
// [TOOL_RESULTS]{"content": …, "call_id": …}[/TOOL_RESULTS]; an assistant's
// own calls are a [TOOL_CALLS] array.
func renderMistral(msgs []Message) (string, error) {
	sys, turns := systemAndTurns(msgs)
	var b strings.Builder
	for _, m := range turns {
		switch m.Role {
		case "assistant":
			if content := strings.TrimSpace(m.Content); content != "" || len(m.ToolCalls) == 0 {
				b.WriteString(" ")
				b.WriteString(content)
			}
			if len(m.ToolCalls) > 0 {
				// With the call's id, which the [TOOL_RESULTS] call_id answers.
				b.WriteString("[TOOL_CALLS] [")
				for i, c := range m.ToolCalls {
					if i > 0 {
						b.WriteString(", ")
					}
					call := callJSON(c, "arguments")
					if c.ID != "" {
						call = append(call[:len(call)-1], `, "id": `...)
						call = append(jsonw.AppendString(call, c.ID), '}')
					}
					b.Write(call)
				}
				b.WriteString("]")
			}
			b.WriteString("</s>")
		case "tool":
			dst := append([]byte(nil), `[TOOL_RESULTS] {"content": `...)
			dst = jsonw.AppendString(dst, m.Content)
			if m.ToolCallID != "" {
				dst = append(dst, `, "call_id": `...)
				dst = jsonw.AppendString(dst, m.ToolCallID)
			}
			dst = append(dst, "}[/TOOL_RESULTS]"...)
			b.Write(dst)
		default:
			b.WriteString("[INST] ")
			if sys != "" {
				b.WriteString(sys)
				b.WriteString("\n\n")
				sys = ""
			}
			b.WriteString(m.Content)
			b.WriteString("[/INST]")
		}
	}
	if sys != "" { // a system prompt and no user turn to fold it into
		fmt.Fprintf(&b, "[INST] %s[/INST]", sys)
	}
	return b.String(), nil
}

// renderGemma is the Gemma 2/3 turn format: roles user and model, the
// system prompt folded into the first user turn, content trimmed. Gemma has
// no tool role: results go back in a user turn as ```tool_output blocks, as
// Google's function-calling guide does; an assistant's own calls are JSON
// objects, one a line.
func renderGemma(msgs []Message) (string, error) {
	sys, turns := systemAndTurns(msgs)
	var b strings.Builder
	for i, m := range turns {
		switch m.Role {
		case "assistant":
			b.WriteString("<start_of_turn>model\n")
			b.WriteString(strings.TrimSpace(m.Content))
			if len(m.ToolCalls) > 0 {
				if strings.TrimSpace(m.Content) != "" {
					b.WriteString("\n")
				}
				appendCallsJSON(&b, m.ToolCalls, "arguments", "\n")
			}
			b.WriteString("<end_of_turn>\n")
		case "tool":
			if i == 0 || turns[i-1].Role != "tool" {
				b.WriteString("<start_of_turn>user\n")
			} else {
				b.WriteString("\n")
			}
			b.WriteString("```tool_output\n")
			b.WriteString(strings.TrimSpace(m.Content))
			b.WriteString("\n```")
			if i == len(turns)-1 || turns[i+1].Role != "tool" {
				b.WriteString("<end_of_turn>\n")
			}
		default:
			b.WriteString("<start_of_turn>user\n")
			if sys != "" {
				b.WriteString(strings.TrimSpace(sys))
				b.WriteString("\n\n")
				sys = ""
			}
			b.WriteString(strings.TrimSpace(m.Content))
			b.WriteString("<end_of_turn>\n")
		}
	}
	if sys != "" {
		fmt.Fprintf(&b, "<start_of_turn>user\n%s<end_of_turn>\n", strings.TrimSpace(sys))
	}
	b.WriteString("<start_of_turn>model\n")
	return b.String(), nil
}

// renderPlain is a labelled dialogue for base models with no chat format:
// "System:", "User:", "Assistant:" and "Observation:" paragraphs, ending
// with "Assistant:" (no space: the model's first token carries it).
func renderPlain(msgs []Message) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case "system":
			b.WriteString("System:")
		case "user":
			b.WriteString("User:")
		case "assistant":
			b.WriteString("Assistant:")
		case "tool":
			b.WriteString("Observation")
			if m.Name != "" {
				b.WriteString(" from ")
				b.WriteString(m.Name)
			}
			b.WriteString(":")
		default:
			b.WriteString(m.Role)
			b.WriteString(":")
		}
		if content := strings.TrimSpace(m.Content); content != "" {
			b.WriteString(" ")
			b.WriteString(content)
		}
		if len(m.ToolCalls) > 0 {
			b.WriteString("\n")
			appendCallsJSON(&b, m.ToolCalls, "arguments", "\n")
		}
		b.WriteString("\n\n")
	}
	b.WriteString("Assistant:")
	return b.String(), nil
}

// TemplateData is what a template file is executed with.
type TemplateData struct {
	Messages []Message // the whole conversation, in order
	// System is the text of the system messages, joined by a blank line,
	// and Turns the other messages: for formats that fold the system
	// prompt into the first user turn.
	System string
	Turns  []Message
}

// TemplateFuncs are the functions a template file can call, besides
// text/template's own (len, index, eq, printf, …):
//
//	trim S               S without leading and trailing white space
//	json S               S as a JSON string literal, quotes included
//	args CALL            a call's arguments, a JSON object, as text
//	call CALL            {"name": …, "arguments": {…}} for a call
//	callAs FORMAT CALLS  a message's calls as the built-in family FORMAT
//	                     writes them (its spec's markers: parse
//	                     --show-format FORMAT): earlier calls written back
//	                     in the model's own syntax
//	resultAs FORMAT MSG  a tool message MSG (or its text, .Content) as the
//	                     built-in family FORMAT's template writes it back:
//	                     its spec's result markers, Qwen's
//	                     <tool_response>\nS\n</tool_response>, Llama 3's
//	                     ipython turn. 27 families have them (docs/formats.md,
//	                     "Results written back"); gemma4, gpt_oss_harmony,
//	                     kimi_k2, mistral and solar_open write the call's
//	                     name or id with it, so give them MSG. Where results
//	                     share a turn (Qwen's user turn, GLM's
//	                     <|observation|>), the file writes the turn
//	role MSGS I          the role of message I, "" when I is out of range
//	                     (role $.Messages (add $i 1) tells the next one)
//	add A B, sub A B     integer arithmetic, for the indexes above
//	last I MSGS          whether I is the index of the last message
//	hasPrefix S P, replace S OLD NEW, join LIST SEP   as in package strings
//
// A file may also define a template named "stop" whose output, one string
// a line, is the stop sequences: {{define "stop"}}<|im_end|>{{end}}.
var TemplateFuncs = template.FuncMap{
	"trim": strings.TrimSpace,
	"json": func(s string) string { return string(jsonw.AppendString(nil, s)) },
	"args": func(c tools.Call) string {
		if len(c.Arguments) == 0 {
			return "{}"
		}
		return string(c.Arguments)
	},
	"call": func(c tools.Call) string { return string(callJSON(c, "arguments")) },
	"callAs": func(format string, calls []tools.Call) (string, error) {
		s := parse.BuiltinSpec(format)
		if s == nil {
			return "", fmt.Errorf("callAs: unknown format %q: see toolcall parse --list-formats", format)
		}
		cs := make([]parse.SpecCall, len(calls))
		for k, c := range calls {
			cs[k] = parse.SpecCall{Name: c.Name, Arguments: c.Arguments}
		}
		b, err := s.AppendCalls(nil, cs...)
		if err != nil {
			return "", fmt.Errorf("callAs: %w", err)
		}
		return string(b), nil
	},
	"resultAs": func(format string, result any) (string, error) {
		s := parse.BuiltinSpec(format)
		if s == nil {
			return "", fmt.Errorf("resultAs: unknown format %q: see toolcall parse --list-formats", format)
		}
		var r parse.SpecResult
		switch v := result.(type) {
		case string:
			r.Content = v
		case Message:
			r = parse.SpecResult{Content: v.Content, Name: v.Name, ID: v.ToolCallID}
		default:
			return "", fmt.Errorf("resultAs: %T is neither a tool message nor its text: give resultAs %q . (or .Content)", result, format)
		}
		b, err := s.AppendResult(nil, r)
		if _, text := result.(string); err != nil && text && s.Result != nil {
			return "", fmt.Errorf("resultAs: %w: give the tool message, resultAs %q ., not its text", err, format)
		}
		if err != nil {
			return "", fmt.Errorf("resultAs: %w", err)
		}
		return string(b), nil
	},
	"role": func(msgs []Message, i int) string {
		if i < 0 || i >= len(msgs) {
			return ""
		}
		return msgs[i].Role
	},
	"add":       func(a, b int) int { return a + b },
	"sub":       func(a, b int) int { return a - b },
	"last":      func(i int, msgs []Message) bool { return i == len(msgs)-1 },
	"hasPrefix": strings.HasPrefix,
	"replace":   func(s, old, new string) string { return strings.ReplaceAll(s, old, new) },
	"join":      strings.Join,
}

// parseTemplateFile parses a template file; text/template's errors already
// name the file and line, as "template: FILE:LINE: …".
func parseTemplateFile(path, src string) (*PromptTemplate, error) {
	t, err := template.New(path).Funcs(TemplateFuncs).Option("missingkey=error").Parse(src)
	if err != nil {
		return nil, templateError(err, "")
	}
	var stop []string
	if st := t.Lookup("stop"); st != nil {
		var buf bytes.Buffer
		if err := st.Execute(&buf, TemplateData{}); err != nil {
			return nil, templateError(err, "")
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			if line != "" {
				stop = append(stop, line)
			}
		}
	}
	render := func(msgs []Message) (string, error) {
		sys, turns := systemAndTurns(msgs)
		var buf strings.Builder
		if err := t.Execute(&buf, TemplateData{Messages: msgs, System: sys, Turns: turns}); err != nil {
			return "", templateError(err, " (the data is .Messages, .System and .Turns; each message has .Role, .Content, .ToolCalls, .ToolCallID and .Name)")
		}
		return buf.String(), nil
	}
	return &PromptTemplate{name: path, render: render, stop: stop}, nil
}

// templateError drops text/template's "template: " prefix, which leaves the
// message starting with FILE:LINE:, and adds a hint.
func templateError(err error, hint string) error {
	return &templateFileError{msg: strings.TrimPrefix(err.Error(), "template: ") + hint, err: err}
}

type templateFileError struct {
	msg string
	err error
}

func (e *templateFileError) Error() string { return e.msg }
func (e *templateFileError) Unwrap() error { return e.err }
