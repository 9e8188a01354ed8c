package run

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/jsonw"
)

// Recommendation is how to run against the server: the "recommendation"
// event that ends a probe.
type Recommendation struct {
	// Usable is false when no endpoint answered.
	Usable bool
	// Args are the flags of toolcall run, Reasons why each was chosen.
	Args    []string
	Reasons []string
}

// Command is the toolcall run line a user can paste, with a placeholder
// for the tools and the prompt.
func (r *Recommendation) Command() string {
	return ShellLine(append(append([]string{"toolcall", "run"}, r.Args...), "--tools", "DIR", "PROMPT"))
}

// AppendJSON appends the event, without a newline.
func (r *Recommendation) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"recommendation","usable":`...)
	dst = strconv.AppendBool(dst, r.Usable)
	dst = append(dst, `,"args":`...)
	dst = jsonw.AppendStrings(dst, r.Args)
	if r.Usable {
		dst = append(dst, `,"command":`...)
		dst = jsonw.AppendString(dst, r.Command())
	}
	dst = append(dst, `,"reasons":`...)
	dst = jsonw.AppendStrings(dst, r.Reasons)
	return append(dst, '}')
}

// ShellLine joins words into a line for a POSIX shell, quoting those that
// need it.
func ShellLine(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellWord(w)
	}
	return strings.Join(quoted, " ")
}

func shellWord(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-./:=,@+%", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// recommend turns the findings into the flags of toolcall run.
func (p *prober) recommend() Recommendation {
	rec := Recommendation{Usable: p.answered}
	if !p.answered {
		rec.Reasons = append(rec.Reasons, "no request got an answer: check --base-url and that the server is running")
		return rec
	}
	add := func(reason string, args ...string) {
		rec.Args = append(rec.Args, args...)
		rec.Reasons = append(rec.Reasons, ShellLine(args)+": "+reason)
	}
	if base := p.opts.HTTP.BaseURL; base != "" && strings.TrimRight(base, "/") != DefaultBaseURL {
		add("the server probed", "--base-url", DisplayURL(base))
	}
	if p.model != "" {
		add("the model the checks used", "--model", p.model)
	}
	chat := p.chatOK || p.found[CheckChat] == nil
	style, format := p.bestStyle()
	switch {
	case p.native == "supported":
		add("the server parses this model's calls itself and returns native tool_calls", "--api", APINative)
		return rec
	case chat:
		reason := "/chat/completions answers"
		if p.found[CheckChat] == nil {
			reason = "the default (the chat check did not run)"
		}
		if p.native == "leaking" {
			reason += fmt.Sprintf("; native tool calling leaks calls into content (format %s), so toolcall's prompt and parse do better", p.leakFormat)
		}
		add(reason, "--api", "chat")
	case p.completionsOK:
		tmpl := guessTemplate(p.model)
		add("only /completions answers", "--api", "completions")
		add("the chat template, guessed from the model's name: check it against the model card", "--template", tmpl)
	default:
		rec.Usable = false
		rec.Reasons = append(rec.Reasons, "neither /chat/completions nor /completions answers")
		return rec
	}
	if style != "" {
		add(fmt.Sprintf("with --style %s the model wrote a call that parse read (format %s)", style, format), "--style", style)
	}
	key := "response_format"
	if !chat {
		key = "json_schema"
	}
	if p.constrained[key] == "honoured" && (style == "" || style == catalog.StyleJSONL) {
		add(fmt.Sprintf("the server honours %s, so the protocol can be enforced", key), "--constrain")
	}
	return rec
}

// bestStyle is the style of the prompt_mode check that worked, in the
// order of catalog.Styles (jsonl first: it is the one --constrain can
// enforce), or "" when none did or the check did not run.
func (p *prober) bestStyle() (style, format string) {
	for _, s := range catalog.Styles {
		if f := p.styles[s]; f != "" {
			return s, f
		}
	}
	return "", ""
}

// guessTemplate picks a built-in template by the model's name.
func guessTemplate(model string) string {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "llama-3"), strings.Contains(m, "llama3"):
		return "llama3"
	case strings.Contains(m, "mistral"), strings.Contains(m, "mixtral"):
		return "mistral"
	case strings.Contains(m, "gemma"):
		return "gemma"
	}
	return "chatml"
}
