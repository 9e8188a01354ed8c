package parse

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// rawEvent is an event with its bytes copied out of the parser's buffer.
type rawEvent struct {
	typ     string
	content []byte
}

// parseRaw parses in, written in pieces that end at each of cuts (then the
// rest), and returns the events with their content as the parser gave it,
// before JSON encoding turns bytes that are not UTF-8 into U+FFFD.
func parseRaw(t *testing.T, in []byte, cuts ...int) []rawEvent {
	t.Helper()
	var evs []rawEvent
	p, err := NewParser(Options{}, func(e *Event) error {
		evs = append(evs, rawEvent{e.Type, bytes.Clone(e.Content)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	from := 0
	for _, c := range append(cuts, len(in)) {
		if c <= from || c > len(in) {
			continue
		}
		if _, err := p.Write(in[from:c]); err != nil {
			t.Fatal(err)
		}
		from = c
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestLongTextBoundary writes text without a newline of exactly the hard
// cut's length, one byte less and one more, in every mode a long run is
// cut in, and with the pieces of input ending right at the cut and around
// it. The text comes back whole, in events no longer than the cut, the
// same however it was written; the cut never splits a character, and bytes
// that are not UTF-8 are cut all the same.
func TestLongTextBoundary(t *testing.T) {
	const call = `{"name":"f","arguments":{}}`
	modes := []struct {
		name, prefix string
		typ          string // the type of the events that carry the text
		limit        int    // the hard cut is at twice this
	}{
		{"opening prose", "", event.TypeText, openingSplit},
		{"prose after a call", call, event.TypeText, textSplit},
		{"reasoning", "<think>", event.TypeReasoning, textSplit},
		{"fence", "```\n", event.TypeText, textSplit},
	}
	fills := map[string]string{"ascii": "a", "two-byte": "é", "three-byte": "€", "not utf-8": "\x80"}
	for _, m := range modes {
		for fname, fill := range fills {
			for _, delta := range []int{-1, 0, 1} {
				n := 2*m.limit + delta
				t.Run(fmt.Sprintf("%s/%s/%+d", m.name, fname, delta), func(t *testing.T) {
					text := []byte(strings.Repeat(fill, n/len(fill)+1)[:n])
					in := append([]byte(m.prefix), text...)
					at := len(m.prefix) + 2*m.limit // where the hard cut falls
					whole := parseRaw(t, in)
					checkLongText(t, whole, m.prefix, text, m.typ, 2*m.limit)
					for _, cuts := range [][]int{{at}, {at - 1, at, at + 1}, {at + 1}, {len(m.prefix), at - 2}} {
						got := parseRaw(t, in, cuts...)
						if !sameEvents(got, whole) {
							t.Fatalf("written in pieces ending at %v: %d events, whole: %d events", cuts, len(got), len(whole))
						}
					}
				})
			}
		}
	}
}

func checkLongText(t *testing.T, evs []rawEvent, prefix string, text []byte, typ string, max int) {
	t.Helper()
	var got []byte
	for _, e := range evs {
		switch {
		case e.typ == tools.TypeToolCall && prefix != "":
		case e.typ == typ:
			if len(e.content) > max {
				t.Errorf("a %s event of %d bytes, more than %d", e.typ, len(e.content), max)
			}
			got = append(got, e.content...)
		default:
			t.Errorf("unexpected %s event", e.typ)
		}
	}
	if typ == event.TypeText && prefix != "" && !strings.HasPrefix(prefix, "{") {
		got = bytes.TrimPrefix(got, []byte(prefix)) // a fence is prose too
	}
	if !bytes.Equal(got, text) {
		t.Errorf("the events hold %d bytes of text, want the %d written", len(got), len(text))
	}
	if utf8.Valid(text) {
		for i, e := range evs {
			if !utf8.Valid(e.content) {
				t.Errorf("event %d is cut inside a character", i)
			}
		}
	}
}

func sameEvents(a, b []rawEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].typ != b[i].typ || !bytes.Equal(a[i].content, b[i].content) {
			return false
		}
	}
	return true
}

// TestLongTextStream runs the reported cases through Stream, as toolcall
// parse does: 2 MiB with no newline, and 128 KiB after a call.
func TestLongTextStream(t *testing.T) {
	for name, in := range map[string]string{
		"2 MiB":                strings.Repeat("a", 2<<20),
		"128 KiB after a call": `{"name":"f","arguments":{}}` + strings.Repeat("a", 128<<10),
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if _, err := Stream(t.Context(), strings.NewReader(in), &out, Options{}); err != nil {
				t.Fatal(err)
			}
			checkEvents(t, out.String())
			if n := strings.Count(out.String(), "a"); n < strings.Count(in, "a") {
				t.Errorf("the events hold %d of the %d bytes of text", n, strings.Count(in, "a"))
			}
		})
	}
}

// TestParseErrorRawCut: the raw text of a long failed call is quoted up to
// a bound that never ends inside a character.
func TestParseErrorRawCut(t *testing.T) {
	for pad := range 3 {
		// A cut-off call whose quoted text passes the bound in the middle
		// of a three-byte character, at each of its bytes.
		in := []byte(`<tool_call>{"name":"f","arguments":{"s":"` + strings.Repeat("x", pad) + strings.Repeat("€", maxRaw/3+1))
		var raws [][]byte
		p, err := NewParser(Options{}, func(e *Event) error {
			if e.Type == event.TypeParseError {
				raws = append(raws, bytes.Clone(e.Raw))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		p.Write(in)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if len(raws) != 1 {
			t.Fatalf("pad %d: %d parse errors, want 1", pad, len(raws))
		}
		if r := raws[0]; len(r) > maxRaw || len(r) < maxRaw-2 || !utf8.Valid(r) {
			t.Errorf("pad %d: raw of %d bytes, valid UTF-8 %v; want up to %d bytes, whole characters", pad, len(r), utf8.Valid(r), maxRaw)
		}
	}
}

// Prose after a call is written out as it comes and not kept: the buffer
// stays near the split size however long the prose runs (issue 31: it used
// to keep every byte of prose back to the last call).
func TestProseAfterCallNotKept(t *testing.T) {
	for _, call := range []string{
		"<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>\n",
		"{\"name\":\"f\",\"arguments\":{}}\n",
		"<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>   ;, ",
	} {
		p, err := NewParser(Options{}, func(e *Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Write([]byte(call)); err != nil {
			t.Fatal(err)
		}
		chunk := []byte(strings.Repeat(strings.Repeat("word ", 15)+"\n", 50))
		most := 0
		for n := 0; n < 8<<20; n += len(chunk) {
			if _, err := p.Write(chunk); err != nil {
				t.Fatal(err)
			}
			most = max(most, len(p.buf))
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if most > 1<<20 {
			t.Errorf("after %q, 8 MiB of prose held the buffer at %d bytes", call, most)
		}
	}
}
