package chattemplate

// A call syntax of the template's own, read off one or two rendered calls
// when no built-in format reads them.

import (
	"errors"
	"regexp"
	"strings"

	"github.com/toolcall/toolcall/parse"
)

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
