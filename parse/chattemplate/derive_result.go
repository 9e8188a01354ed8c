package chattemplate

// Deriving how a template writes a tool's result back: two results
// rendered one after the other, and the text around them cut at the turn
// boundaries, give the markers written around each (parse.ResultMarkers).

import (
	"strings"

	"github.com/toolcall/toolcall/parse"
)

// The probe results: a quote and a line break, so that a template that
// escapes them (tojson) shows it, and one that reshapes them (indents,
// trims) is not taken for one that writes them as they are.
const (
	probeResult1 = "Pq6 probe \"result\"\nline one~"
	probeResult2 = "Pq6 probe \"result\"\nline two~"
)

// deriveResultMarkers works out the markers the template writes around each
// tool result, rendering a turn of calls (those that rendered) and a
// result for each; with one call only, two results answering it. render
// renders with the generation prompt when gen is set. Nil when the
// results are not written as two markers can say (in one list, with the
// call's place in its turn), or the template takes no such turn.
func deriveResultMarkers(render func([]Message, bool) (string, error), user Message, calls []Call, eot, genPrompt string) *parse.ResultMarkers {
	tries := [][]Call{calls}
	if len(calls) > 1 {
		tries = append(tries, calls[:1])
	}
	for _, cs := range tries {
		answers := []Call{cs[0], cs[len(cs)-1]} // the call each result answers
		msgs := []Message{user, {Role: "assistant", ToolCalls: cs}}
		for k, text := range []string{probeResult1, probeResult2} {
			msgs = append(msgs, Message{Role: "tool", Content: text, ToolCallID: answers[k].ID, Name: answers[k].Name})
		}
		r, err := render(msgs, true)
		if err != nil {
			continue
		}
		if m := resultMarkers(namePlaceholders(r, cs), eot, genPrompt); m != nil {
			return m
		}
	}
	return nil
}

// namePlaceholders is r with the calls' ids and names written as the
// placeholders; a Kimi-form id (functions.NAME:INDEX), which Kimi's
// templates write whatever the id given, first.
func namePlaceholders(r string, calls []Call) string {
	var pairs []string
	for k, c := range calls {
		pairs = append(pairs, kimiID(c.Name, k), parse.PlaceholderID)
	}
	for _, c := range calls {
		pairs = append(pairs, c.ID, parse.PlaceholderID)
	}
	for _, c := range calls {
		pairs = append(pairs, c.Name, parse.PlaceholderName)
	}
	return strings.NewReplacer(pairs...).Replace(r)
}

// resultMarkers cuts the markers out of r, a rendering with the two probe
// results one after the other: what comes between them is the first's
// end, layout, and the second's start; what follows the second begins
// with the end too; what precedes the first ends with the start.
func resultMarkers(r, eot, genPrompt string) *parse.ResultMarkers {
	m := &parse.ResultMarkers{}
	a, b := probeResult1, probeResult2
	i1, i2 := strings.Index(r, a), strings.Index(r, b)
	if i1 < 0 || i2 < i1 {
		m.JSON = true
		a, b = mustJSON(a), mustJSON(b)
		if i1, i2 = strings.Index(r, a), strings.Index(r, b); i1 < 0 || i2 < i1 {
			return nil
		}
	}
	between, after := r[i1+len(a):i2], r[i2+len(b):]
	end := commonPrefix(between, after)
	// The end is the first result's up to the end of its turn; the next
	// turn's opening (the generation prompt's) is not.
	if i := strings.Index(end, eot); eot != "" && i >= 0 {
		end = end[:i+len(eot)]
	}
	for k := min(len(end), len(genPrompt)); k > 0; k-- {
		if strings.HasSuffix(end, genPrompt[:k]) {
			end = end[:len(end)-k]
			break
		}
	}
	// Cut where a marker ends, not inside the next one.
	if !strings.HasSuffix(end, eot) || eot == "" {
		end = end[:strings.LastIndexAny(end, ">]")+1]
	}
	m.End = end
	m.Start = strings.TrimLeft(between[len(end):], " \n")
	if !strings.HasSuffix(r[:i1], m.Start) || m.Start == "" && m.End == "" {
		return nil
	}
	return m
}

// commonPrefix is the longest prefix a and b share.
func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}
