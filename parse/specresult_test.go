package parse

import (
	"errors"
	"strings"
	"testing"
)

// Result markers as a format file writes them: placeholders for the call
// the result answers, the text as a JSON string, and what is refused.
func TestFormatFileResult(t *testing.T) {
	file := func(result string) string {
		return `{"format": "acme", "call": {"start": "<call>", "end": "</call>"}, "body": "json", "result": ` + result + `}`
	}
	s, err := ParseFormatFile("acme.json", []byte(file(`{"start": "<out name=\"{name}\" id=\"{id}\">{\"v\": ", "end": "}</out>", "json": true}`)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.AppendResult(nil, SpecResult{Content: "a \"b\"\nc", Name: "f", ID: "c1"})
	if want := `<out name="f" id="c1">{"v": "a \"b\"\nc"}</out>`; err != nil || string(got) != want {
		t.Errorf("AppendResult: %q, %v; want %q", got, err, want)
	}
	if _, err := s.AppendResult(nil, SpecResult{Content: "x", Name: "f"}); err == nil || !strings.Contains(err.Error(), "{id}") {
		t.Errorf("a result without the id its markers name: %v, want an error naming {id}", err)
	}
	for _, c := range []struct{ result, field, msg string }{
		{`{"start": "<out {nmae}>", "end": "</out>"}`, "result.start", "{nmae}"},
		{`{"start": "<out>", "end": "{id}</out>{tool}"}`, "result.end", "{tool}"},
		{`{"start": "", "end": ""}`, "result", "neither start nor end"},
		{`{"start": "<out>", "end": "</out>", "json": "yes"}`, "result.json", "true or false"},
		{`{"start": "<out>", "end": "</out>", "quote": true}`, "result.quote", "json"},
	} {
		_, err := ParseFormatFile("acme.json", []byte(file(c.result)))
		var fe *FormatFileError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("result %s: %v; want field %q saying %q", c.result, err, c.field, c.msg)
		}
	}
}

// Built-in families whose markers name the call write it.
func TestBuiltinResultPlaceholders(t *testing.T) {
	got, err := BuiltinSpec(FormatHarmony).AppendResult(nil, SpecResult{Content: `{"t": 21}`, Name: "get_weather"})
	if want := `<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"{\"t\": 21}"<|end|>`; err != nil || string(got) != want {
		t.Errorf("harmony: %q, %v; want %q", got, err, want)
	}
	if _, err := BuiltinSpec(FormatKimiK2).AppendResult(nil, SpecResult{Content: "x"}); err == nil || !strings.Contains(err.Error(), "tool's name") {
		t.Errorf("kimi_k2 without the tool's name: %v", err)
	}
}
