package chattemplate

// Deriving how a template writes tool calls: the probe conversations, and
// what their renderings say about the model's output (Derived).

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/parse"
)

// Derived is what a template says about the model's output.
type Derived struct {
	// Format is the built-in format the template's calls are written in,
	// or parse.FormatTemplate when Syntax.Call describes them instead.
	Format string
	// Syntax holds the template's control tokens (and its own call
	// syntax for parse.FormatTemplate).
	Syntax *parse.Syntax
	// EndOfTurn is the token the template ends an assistant turn with:
	// the stop sequence for a completions endpoint. Empty when none.
	EndOfTurn string
	// GenerationPrompt is what add_generation_prompt appends.
	GenerationPrompt string
	// CallText is the probe call as the template renders it, for messages.
	CallText string
	// KimiIDs is set when the template writes a call's id where its name
	// belongs (Kimi K2 0905, K2.5: <|tool_call_begin|>{{ tool_call.id }}),
	// so a call only renders whole with an id of Kimi's form,
	// functions.NAME:INDEX (see CallID).
	KimiIDs bool
	// NineCharIDs is set when the template refuses a call id that is not
	// nine letters and digits (Mistral's: "Tool call IDs should be
	// alphanumeric strings with length 9!"), as it refuses call_1.
	NineCharIDs bool
	// AfterCalls is the control token the template writes after a turn's
	// calls where the tool's response begins (FunctionGemma's
	// <start_function_response>, Gemma 4's <|tool_response>): a model that
	// writes it goes on to invent the response, so it is a stop sequence
	// too. Empty when the turn ends after the calls.
	AfterCalls string
}

// CallID is the id to give a call to NAME when rendering it through the
// template, index counting the calls of the conversation from 0: id
// itself; Kimi's functions.NAME:INDEX where the template writes the id
// in place of the name (an id of that form for NAME is kept); or nine
// letters and digits made from id where the template wants those (an id
// of that form is kept). The same id always gives the same result, so
// a tool message's tool_call_id can be mapped alike.
func (d *Derived) CallID(id, name string, index int) string {
	switch {
	case d.KimiIDs:
		if n, ok := strings.CutPrefix(id, "functions."+name+":"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return id
		}
		return kimiID(name, index)
	case d.NineCharIDs:
		return NineCharID(id)
	}
	return id
}

func kimiID(name string, index int) string { return fmt.Sprintf("functions.%s:%d", name, index) }

// NineCharID is id when it is nine ASCII letters and digits, and else
// nine lowercase letters and digits made from a hash of id.
func NineCharID(id string) string {
	if len(id) == 9 && strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == "" {
		return id
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var out [9]byte
	for i, n := 0, h.Sum64(); i < len(out); i, n = i+1, n/36 {
		out[i] = digits[n%36]
	}
	return string(out[:])
}

// Options returns parse options that read the model's output this way.
func (d *Derived) Options(base parse.Options) parse.Options {
	base.Format = d.Format
	base.Syntax = d.Syntax
	return base
}

// The probe conversation. Its strings are unlikely to occur in a template.
const (
	probeUser      = "Tq7 probe question~"
	probeReply     = "Zq9 probe reply~"
	probeReasoning = "Rq8 probe thought~"
	probeName      = "tc_probe_lookup"
	probeName2     = "tc_probe_other"
	// The probe ids are nine letters and digits, the form Mistral's
	// templates insist on (they raise on any other), and which others
	// take as they come.
	probeID  = "call00001"
	probeID2 = "call00002"
)

func probeArgs() map[string]any {
	return map[string]any{
		"city":  "Zürich \"old\" town",
		"count": 42,
		"ratio": -1.5,
		"flag":  true,
		"tags":  []any{"a", "b"},
		"opts":  map[string]any{"k": "v"},
	}
}

func probeArgs2() map[string]any {
	return map[string]any{"q": "second call"}
}

// ProbeTools are the tool definitions the probe conversation offers.
func ProbeTools() []Tool {
	param := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	return []Tool{
		map[string]any{"type": "function", "function": map[string]any{"name": probeName, "description": "Probe tool.", "parameters": param(map[string]any{
			"city": map[string]any{"type": "string", "description": "A city."}, "count": map[string]any{"type": "integer", "description": "A count."},
			"ratio": map[string]any{"type": "number", "description": "A ratio."}, "flag": map[string]any{"type": "boolean", "description": "A flag."},
			"tags": map[string]any{"description": "Tags."}, "opts": map[string]any{"description": "Options."},
		})}},
		map[string]any{"type": "function", "function": map[string]any{"name": probeName2, "description": "Second probe tool.", "parameters": param(map[string]any{
			"q": map[string]any{"type": "string", "description": "A query."},
		})}},
	}
}

type deriveResult struct {
	once sync.Once
	d    *Derived
	err  error
}

// Derive works out, by rendering probe conversations and comparing them,
// how the template writes a tool call, and checks the result by parsing
// the rendered calls back. The result is cached per Template.
func (t *Template) Derive() (*Derived, error) {
	r := &t.derived
	r.once.Do(func() { r.d, r.err = t.derive() })
	return r.d, r.err
}

func (t *Template) derive() (*Derived, error) {
	user := Message{Role: "user", Content: probeUser}
	opts := RenderOptions{Tools: ProbeTools(), Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	render := func(msgs []Message, gen bool) (string, error) {
		o := opts
		o.AddGenerationPrompt = gen
		return t.Render(msgs, o)
	}
	d := &Derived{Syntax: &parse.Syntax{}}
	withGen, err := render([]Message{user}, true)
	if err != nil {
		return nil, err
	}
	noGen, err := render([]Message{user}, false)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(withGen, noGen) {
		d.GenerationPrompt = withGen[len(noGen):]
	}
	text, err := render([]Message{user, {Role: "assistant", Content: probeReply}}, false)
	if err != nil {
		return nil, err
	}
	d.EndOfTurn = endOfTurn(text)
	// What the model writes for a turn: the rendering after the
	// generation prompt, up to the end-of-turn token. Where a template
	// renders past turns otherwise, the difference from the text turn.
	output := func(r string) (string, bool) {
		if !strings.HasPrefix(r, withGen) {
			return difference(text, r), false
		}
		return cutAtEnd(r[len(withGen):], d.EndOfTurn, probeName), true
	}
	afterPrompt := true
	// Calls, with arguments as an object and else as a JSON string (as
	// some templates need them), with ids as servers send them: a plain
	// one, and else Kimi's functions.NAME:INDEX, which Kimi K2 0905 and
	// K2.5 write where the name belongs and parse reads the name from.
	var one, two string
	var args1 any             // the first call's arguments, in the form the template took
	var calls1, calls2 []Call // the calls one and two render
	for _, try := range []struct{ asString, kimi bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		args, args2 := any(probeArgs()), any(probeArgs2())
		if try.asString {
			args, args2 = mustJSON(args), mustJSON(args2)
		}
		id, id2 := probeID, probeID2
		if try.kimi {
			id, id2 = kimiID(probeName, 0), kimiID(probeName2, 1)
		}
		d.KimiIDs = try.kimi
		c1 := []Call{{ID: id, Name: probeName, Arguments: args}}
		c2 := append(c1, Call{ID: id2, Name: probeName2, Arguments: args2})
		r1, err1 := render([]Message{user, {Role: "assistant", ToolCalls: c1}}, false)
		if err1 != nil {
			err = err1
			continue
		}
		var ok1, ok2 bool
		one, ok1 = output(r1)
		if !strings.Contains(one, probeName) {
			one = ""
			continue
		}
		afterPrompt = ok1
		args1, calls1 = args, c1
		if r2, err2 := render([]Message{user, {Role: "assistant", ToolCalls: c2}}, false); err2 == nil {
			two, ok2 = output(r2)
			calls2 = c2
			afterPrompt = afterPrompt && ok2
		}
		break
	}
	if one != "" && !d.KimiIDs {
		// Whether the template takes an id of the form parse gives a
		// call (the probe's are nine letters and digits).
		c := []Call{{ID: "call_1", Name: probeName, Arguments: args1}}
		_, err := render([]Message{user, {Role: "assistant", ToolCalls: c}}, false)
		d.NineCharIDs = err != nil
	}
	if one == "" {
		d.KimiIDs = false
		if err != nil {
			return nil, fmt.Errorf("chat template %s cannot render an assistant turn with a tool call: %w", t.Name, err)
		}
		return nil, fmt.Errorf("chat template %s has no tool-call support: an assistant turn with a call to %q renders without the call", t.Name, probeName)
	}
	d.CallText = one
	if !strings.Contains(two, probeName2) {
		two = "" // one call per turn only
	}
	// How results are written back after the calls.
	if two != "" {
		calls1 = calls2
	}
	d.Syntax.Result = deriveResultMarkers(render, user, calls1, d.EndOfTurn, d.GenerationPrompt)
	// Reasoning markers around the probe thought.
	if r, err := render([]Message{user, {Role: "assistant", Content: probeReply, Reasoning: probeReasoning}}, false); err == nil {
		if i := strings.LastIndex(r, probeReasoning); i >= 0 {
			before := strings.TrimRight(r[:i], " \n")
			after := strings.TrimLeft(r[i+len(probeReasoning):], " \n")
			open, close := lastToken(before), firstToken(after)
			// A token the plain reply is written after too (gpt-oss's
			// <|message|>) does not open reasoning.
			plain := text[strings.LastIndex(text, probeUser)+1:]
			if open != "" && close != "" && !strings.Contains(plain, open) {
				d.Syntax.Reasoning = append(d.Syntax.Reasoning, [2]string{open, close})
			}
		}
	}
	// Control tokens the text must not carry.
	if d.EndOfTurn != "" {
		d.Syntax.Skip = append(d.Syntax.Skip, d.EndOfTurn)
	}
	if afterPrompt && len(d.GenerationPrompt) <= 4096 {
		// The output continues the generation prompt; a think block the
		// prompt opens is left out, as servers open it or not depending
		// on their settings: parse takes text before a lone </think> as
		// reasoning either way.
		d.Syntax.Prompt = withoutOpenThink(d.GenerationPrompt, d.Syntax.Reasoning)
	}
	// A token the call itself begins with (gpt-oss's "<|start|>assistant")
	// is the call's to read, not one to drop.
	kept := d.Syntax.Skip[:0]
	for _, tok := range d.Syntax.Skip {
		if !strings.Contains(one, tok) {
			kept = append(kept, tok)
		}
	}
	d.Syntax.Skip = kept
	want1 := []wantCall{{probeName, probeArgs()}}
	want2 := []wantCall{{probeName, probeArgs()}, {probeName2, probeArgs2()}}
	check := func(format string, syn *parse.Syntax) bool {
		o := parse.Options{Format: format, Syntax: syn}
		if !parsesTo(one, o, want1) {
			return false
		}
		return two == "" || parsesTo(two, o, want2)
	}
	// A built-in format that reads the probe calls back. Control tokens
	// the template writes around the calls (Gemma 4's <|tool_response>)
	// are not prose either.
	if f := detectFormat(one, d.Syntax); f != "" {
		syn := *d.Syntax
		stray := strayTokens(one, two, parse.Options{Format: f, Syntax: d.Syntax})
		syn.Skip = append(append([]string(nil), syn.Skip...), stray...)
		if check(f, &syn) {
			d.Format, d.Syntax = f, &syn
			// The control token the template writes right after the calls
			// (Gemma 4's <|tool_response>): one parse shows as a stray, or
			// one it already drops.
			if tok := lastToken(strings.TrimRight(one, " \n")); tok != "" && tok != d.EndOfTurn && (slices.Contains(stray, tok) || dropped(tok)) {
				d.AfterCalls = tok
			}
			return d, nil
		}
	}
	// Otherwise a syntax of the template's own.
	call, err := deriveCall(one, two)
	if err != nil {
		return nil, fmt.Errorf("chat template %s: no parser for its tool calls, rendered as %q: %w", t.Name, clip.Head(one, 300), err)
	}
	syn := *d.Syntax
	syn.Call = call
	syn.Skip = append(append([]string(nil), syn.Skip...), sectionTokens(one, call)...)
	if err := validSyntax(&syn); err != nil {
		return nil, fmt.Errorf("chat template %s: %w", t.Name, err)
	}
	if !check(parse.FormatTemplate, &syn) {
		return nil, fmt.Errorf("chat template %s: derived a call syntax (%+v) that does not read back its own rendering %q", t.Name, *call, clip.Head(one, 300))
	}
	d.Format, d.Syntax = parse.FormatTemplate, &syn
	return d, nil
}

func validSyntax(s *parse.Syntax) error {
	_, err := parse.NewParser(parse.Options{Format: parse.FormatTemplate, Syntax: s}, func(*parse.Event) error { return nil })
	return err
}

// mustJSON is v as tojson writes it.
func mustJSON(v any) string {
	out, err := filterToJSON(args{toValue(v)}, nil)
	if err != nil {
		return ""
	}
	return printed(out)
}

// cutAtEnd cuts a turn at the end-of-turn token that follows the call to
// name: the model stops there.
func cutAtEnd(out, eot, name string) string {
	if eot == "" {
		return out
	}
	from := max(0, strings.LastIndex(out, name))
	if i := strings.Index(out[from:], eot); i >= 0 {
		return out[:from+i]
	}
	return out
}

// thinkOpeners are the think markers parse knows.
var thinkOpeners = []string{"<think>", "<thinking>", "<seed:think>", "[THINK]", "<|START_THINKING|>", "<|inner_prefix|>", "<|open|>think<|sep|>"}

// withoutOpenThink cuts a think marker, and what follows it, off the end
// of a generation prompt.
func withoutOpenThink(prompt string, pairs [][2]string) string {
	t := strings.TrimRight(prompt, " \n")
	opens := append([]string(nil), thinkOpeners...)
	for _, p := range pairs {
		opens = append(opens, p[0])
	}
	for _, o := range opens {
		if strings.HasSuffix(t, o) {
			return t[:len(t)-len(o)]
		}
	}
	return prompt
}
