package chattemplate

import (
	"bytes"
	"slices"

	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"regexp"
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
	var args1 any // the first call's arguments, in the form the template took
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
		args1 = args
		if r2, err2 := render([]Message{user, {Role: "assistant", ToolCalls: c2}}, false); err2 == nil {
			two, ok2 = output(r2)
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

// difference returns what b has in place of a's middle: the text between
// their common prefix and common suffix, both taken after the last user
// turn (templates may render the system prompt differently by turn).
func difference(a, b string) string {
	if i, j := strings.LastIndex(a, probeUser), strings.LastIndex(b, probeUser); i >= 0 && j >= 0 {
		a, b = a[i+len(probeUser):], b[j+len(probeUser):]
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	// Do not cut a control token in half at either end.
	for p > 0 && strings.LastIndexAny(b[:p], "<[") > strings.LastIndexAny(b[:p], ">]") {
		p--
	}
	// A difference that starts inside a header line (gpt-oss: the shared
	// "<|start|>assistant" then " to=functions.NAME") takes the header
	// from its last control token on.
	if p > 0 && p < len(b) && b[p-1] != '\n' && b[p-1] != '>' && b[p-1] != ']' && b[p] != '<' && b[p] != '[' {
		if locs := tokenRE().FindAllStringIndex(b[:p], -1); len(locs) > 0 {
			last := locs[len(locs)-1]
			if !strings.Contains(b[last[1]:p], "\n") {
				p = last[0]
			}
		}
	}
	for s > 0 {
		tail := b[len(b)-s:]
		if strings.ContainsAny(tail, ">]") && (!strings.ContainsAny(tail, "<[") || strings.IndexAny(tail, ">]") < strings.IndexAny(tail, "<[")) {
			s--
			continue
		}
		break
	}
	return b[p : len(b)-s]
}

// tokenRE is compiled on first use, not at start-up. Control tokens
// look like <|x|>, <x|>, <|x>, <x>, DeepSeek's fullwidth <｜x｜>,
// Mistral's [X], EXAONE's [|x|] (its [|endofturn|] ends a turn), and
// Kimi K3's tags, <|open|>x attr="v"<|sep|> and <|close|>x<|sep|>, each
// one token (first, so that <|open|> alone is not one).
var tokenRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<\|open\|>[a-z_-]{1,32}(?: [^<>\n]{1,200})?<\|sep\|>|<\|close\|>[a-z_-]{1,32}<\|sep\|>|<｜[^｜<>]{1,64}｜>|<\|[^<>\n]{1,64}\|>|<\|[^<>|\n]{1,64}>|<[^<>|\n]{1,64}\|>|</?[A-Za-z_][A-Za-z0-9_:.-]{0,40}>|\[/?[A-Z_]{2,24}\]|\[\|[a-z_]{1,32}\|\]`)
})

// controlTokens lists the control tokens in s, in order.
func controlTokens(s string) []string { return tokenRE().FindAllString(s, -1) }

func firstToken(s string) string {
	if loc := tokenRE().FindStringIndex(s); loc != nil && loc[0] == 0 {
		return s[:loc[1]]
	}
	return ""
}

func lastToken(s string) string {
	locs := tokenRE().FindAllStringIndex(s, -1)
	if len(locs) > 0 && locs[len(locs)-1][1] == len(s) {
		return s[locs[len(locs)-1][0]:]
	}
	return ""
}

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

// deriveCall reads the call syntax off one rendered call (and two, when
// the template renders several calls in a turn).
func deriveCall(one, two string) (*parse.CallSyntax, error) {
	n := strings.Index(one, probeName)
	if rest := one[n+len(probeName):]; strings.HasPrefix(rest, "(") {
		// Python-style calls after a marker: [f(a=1), g(b=2)].
		open := strings.TrimSuffix(strings.TrimSpace(one[:n]), "[")
		end := strings.LastIndexAny(one, ")]")
		c := &parse.CallSyntax{Pythonic: true, Open: strings.TrimSpace(open), Close: firstToken(strings.TrimSpace(one[end+1:]))}
		if c.Open == "" {
			return nil, errors.New("the Python-style calls have no marker before them")
		}
		return c, nil
	}
	brace := strings.IndexAny(one, "{[")
	if brace >= 0 && brace < n {
		// The name is inside JSON: Open, a JSON call, Close.
		open := strings.TrimSpace(one[:brace])
		end := jsonEnd(one, brace)
		if end < 0 {
			return nil, errors.New("the call's JSON does not end")
		}
		c := &parse.CallSyntax{Open: perCall(open, two, true), Close: perCall(strings.TrimSpace(one[end:]), two, false)}
		if c.Open == "" {
			return nil, errors.New("the call's JSON has no marker before it")
		}
		return c, nil
	}
	if c, ok, err := taggedCall(one, two, n); ok || err != nil {
		return c, err
	}
	if brace < 0 {
		return nil, errors.New("the arguments are written neither as a JSON object nor as tagged parameters")
	}
	pre := one[:n]
	c := &parse.CallSyntax{}
	if id := strings.Index(pre, probeID); id >= 0 {
		c.Open = perCall(strings.TrimSpace(pre[:id]), two, true)
		c.NameAfter = pre[id+len(probeID):]
	} else {
		c.Open = perCall(strings.TrimSpace(pre), two, true)
		if full := strings.TrimSpace(pre); c.Open != full && strings.HasSuffix(full, c.Open) {
			c.Open = full[len(full)-len(c.Open):]
		}
	}
	if c.Open == "" {
		return nil, errors.New("the call has no marker before its name")
	}
	b := strings.Index(one[n:], "{") + n
	c.ArgsAfter = one[n+len(probeName) : b]
	if strings.TrimSpace(c.ArgsAfter) == "" {
		return nil, errors.New("nothing separates the name from the arguments")
	}
	end := jsonEnd(one, b)
	if end < 0 {
		return nil, errors.New("the arguments' JSON does not end")
	}
	c.Close = perCall(strings.TrimSpace(one[end:]), two, false)
	return c, nil
}

// opener returns the per-call opening of the text before a call's name,
// and what comes between it (and any call id) and the name.
func opener(pre, two string) (open, nameAfter string) {
	if id := strings.Index(pre, probeID); id >= 0 {
		return perCall(strings.TrimSpace(pre[:id]), two, true), pre[id+len(probeID):]
	}
	full := strings.TrimSpace(pre)
	return perCall(full, two, true), ""
}

// taggedCall derives a call whose arguments are tagged parameters,
// "<parameter=KEY>value</parameter>" or "<arg name="KEY">value</arg>":
// ok is false when the call is not written so.
func taggedCall(one, two string, n int) (*parse.CallSyntax, bool, error) {
	nameEnd := n + len(probeName)
	// The first argument key written as a tag: KEY> or "KEY">.
	kp, key, attr := -1, "", false
	for k := range probeArgs() {
		for _, form := range []struct {
			s    string
			attr bool
		}{{k + ">", false}, {k + `">`, true}, {k + `'>`, true}} {
			if i := strings.Index(one[nameEnd:], form.s); i >= 0 && (kp < 0 || nameEnd+i < kp) {
				kp, key, attr = nameEnd+i, k, form.attr
			}
		}
	}
	if kp < 0 || strings.IndexByte(one[nameEnd:kp], '{') >= 0 {
		return nil, false, nil
	}
	lead := one[nameEnd:kp] // ArgsAfter, then ParamOpen
	if attr {
		lead = lead[:len(lead)-1] // the quote: taggedArgs reads it
	}
	lt := strings.LastIndexByte(lead, '<')
	if lt < 0 {
		return nil, true, errors.New("the first parameter tag does not start with '<'")
	}
	c := &parse.CallSyntax{ArgsAfter: lead[:lt], ParamOpen: lead[lt:], AttrKeys: attr}
	if strings.TrimSpace(c.ArgsAfter) == "" && strings.Contains(c.ArgsAfter, "\n") {
		c.ArgsAfter = "\n" // the name is on a line of its own
	} else if strings.TrimSpace(c.ArgsAfter) == "" {
		c.ArgsAfter = "" // the first parameter ends the name
	}
	// The tag that closes a value: the first closing tag after the key.
	valStart := kp + len(key) + 1
	if attr {
		valStart++
	}
	closeRE := regexp.MustCompile(`</[^<>\s]{1,64}>`)
	loc := closeRE.FindStringIndex(one[valStart:])
	if loc == nil {
		return nil, true, errors.New("a parameter's value has no closing tag")
	}
	c.ParamClose = one[valStart+loc[0] : valStart+loc[1]]
	// After the last value: the call's end.
	last := strings.LastIndex(one, c.ParamClose) + len(c.ParamClose)
	c.Close = perCall(strings.TrimSpace(one[last:]), two, false)
	if toks := controlTokens(c.Close); len(toks) > 0 {
		c.Close = toks[0] // the call's own closer; what follows is the section's
	}
	c.Open, c.NameAfter = opener(one[:n], two)
	if c.Open == "" || c.Close == "" {
		return nil, true, errors.New("the call has no marker before its name, or none after its parameters")
	}
	return c, true, nil
}

// perCall keeps, of the text before (open) or after a call, the part that
// is written once per call: with two calls rendered, a token written once
// is the section's and is left out. With one call to go by, it is all of s.
func perCall(s, two string, open bool) string {
	if s == "" || two == "" {
		return s
	}
	toks := controlTokens(s)
	if len(toks) == 0 {
		return s
	}
	if open {
		// From the first token that the two-call rendering repeats.
		for _, t := range toks {
			if strings.Count(two, t) >= 2 {
				return s[strings.Index(s, t):]
			}
		}
		return ""
	}
	// Up to the last token that the two-call rendering repeats.
	for k := len(toks) - 1; k >= 0; k-- {
		if strings.Count(two, toks[k]) >= 2 {
			i := strings.Index(s, toks[k])
			return strings.TrimSpace(s[:i+len(toks[k])])
		}
	}
	return ""
}

// sectionTokens are the control tokens around the calls that are not part
// of a call: section markers, dropped as layout.
func sectionTokens(one string, c *parse.CallSyntax) []string {
	var out []string
	for _, t := range controlTokens(one) {
		if strings.Contains(c.Open, t) || strings.Contains(c.Close, t) || strings.Contains(c.NameAfter, t) || strings.Contains(c.ArgsAfter, t) {
			continue
		}
		if c.ParamOpen != "" && (strings.HasPrefix(t, c.ParamOpen) || t == c.ParamClose) {
			continue // a parameter's tag
		}
		if t[0] == '<' || t[0] == '[' {
			out = append(out, t)
		}
	}
	return out
}

// jsonEnd returns the end of the JSON value at s[i], or -1.
func jsonEnd(s string, i int) int {
	depth := 0
	for k := i; k < len(s); k++ {
		switch s[k] {
		case '"':
			for k++; k < len(s) && s[k] != '"'; k++ {
				if s[k] == '\\' {
					k++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return -1
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

// endOfTurn returns the control token right after the probe reply in a
// rendered text turn: what ends an assistant turn. A tag that closes one
// the reply was opened with (Kimi K3's <|open|>response<|sep|>, which
// tool calls follow) wraps the reply and does not end the turn: the
// token after it does.
func endOfTurn(text string) string {
	i := strings.LastIndex(text, probeReply)
	if i < 0 {
		return ""
	}
	before, after := text[:i], text[i+len(probeReply):]
	for {
		after = strings.TrimLeft(after, " \n")
		tok := firstToken(after)
		if tok == "" {
			return ""
		}
		open := lastToken(before)
		if open == "" || !closes(tok, open) {
			return tok
		}
		before, after = before[:len(before)-len(open)], after[len(tok):]
	}
}

// closes reports whether tok closes the tag open: </x> closes <x ...>,
// and Kimi K3's <|close|>x<|sep|> closes <|open|>x ...<|sep|>.
func closes(tok, open string) bool {
	if name, ok := strings.CutPrefix(tok, "<|close|>"); ok {
		name = strings.TrimSuffix(name, "<|sep|>")
		rest, ok := strings.CutPrefix(open, "<|open|>"+name)
		return ok && (rest == "<|sep|>" || strings.HasPrefix(rest, " "))
	}
	if name, ok := strings.CutPrefix(tok, "</"); ok {
		name = strings.TrimSuffix(name, ">")
		rest, ok := strings.CutPrefix(open, "<"+name)
		return ok && (rest == ">" || strings.HasPrefix(rest, " "))
	}
	return false
}

// Stops returns the stop sequences of a completions request: the token
// that ends an assistant turn, and the end-of-sequence token. Unlike
// Derive it needs no tool support.
func (t *Template) Stops() ([]string, error) {
	msgs := []Message{{Role: "user", Content: probeUser}, {Role: "assistant", Content: probeReply}}
	text, err := t.Render(msgs, RenderOptions{})
	if err != nil {
		return nil, err
	}
	var stops []string
	for _, s := range []string{endOfTurn(text), t.EOS} {
		if s != "" && (len(stops) == 0 || stops[0] != s) {
			stops = append(stops, s)
		}
	}
	return stops, nil
}
