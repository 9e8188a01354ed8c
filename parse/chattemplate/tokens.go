package chattemplate

// Control tokens in rendered text: what one rendering has in place of
// another's, and the token that ends an assistant turn (Stops).

import (
	"regexp"
	"strings"
	"sync"
)

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
