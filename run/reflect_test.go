package run

import (
	"testing"

	"github.com/toolcall/toolcall/tools"
)

// TestReflectOn: each status and error kind gets the finding and the next
// action the rules of reflect.go give it.
func TestReflectOn(t *testing.T) {
	for _, tc := range []struct {
		name          string
		o             tools.Observation
		finding, next string
	}{
		{"ok", tools.Observation{Content: "\n{\n  \"temperature\": 18,\n}", Status: tools.StatusOK},
			`"temperature": 18,`, "use this result: answer if it is enough, or make the next call it leads to"},
		{"ok, silent", tools.Observation{Status: tools.StatusOK},
			"the call succeeded and printed nothing", "use this result: answer if it is enough, or make the next call it leads to"},
		{"partial, saved", tools.Observation{Content: "line 1\nline 2", Status: tools.StatusPartial, Truncated: true, Ref: "ref:call_1"},
			"line 1", `the output was cut: pass "ref:call_1" as an argument to read the rest, or answer from what you have`},
		{"partial, not saved", tools.Observation{Content: "line 1", Status: tools.StatusPartial, Truncated: true},
			"line 1", "the output was cut: call get_weather again asking for less, or answer from what you have"},
		{"validation, root", tools.Observation{IsError: true, Status: tools.StatusError,
			Error: &tools.ToolError{Kind: tools.KindValidation, Message: "arguments do not match", Details: []byte(`[{"pointer":"","message":"not an object"}]`)}},
			"not an object", "fix the arguments and call get_weather again"},
		{"validation, at a pointer", tools.Observation{IsError: true, Status: tools.StatusError,
			Error: &tools.ToolError{Kind: tools.KindValidation, Message: "arguments do not match", Details: []byte(`[{"pointer":"/unit","message":"/unit: \"kelvin\" is not one of [\"celsius\",\"fahrenheit\"]"}]`)}},
			`/unit: "kelvin" is not one of ["celsius","fahrenheit"]`, "fix the argument at /unit and call get_weather again"},
		{"unknown tool", tools.Observation{IsError: true, Status: tools.StatusError, Error: &tools.ToolError{Kind: tools.KindUnknownTool, Message: "Unknown tool \"get_weather\"."}},
			`Unknown tool "get_weather".`, "call one of the tools offered, or answer without a tool"},
		{"not allowed", tools.Observation{IsError: true, Status: tools.StatusBlocked, Error: &tools.ToolError{Kind: tools.KindPermission, Message: "tool \"get_weather\" is not allowed\nmore"}},
			`tool "get_weather" is not allowed`, "the tool is not allowed: answer without it"},
		{"timeout", tools.Observation{IsError: true, Status: tools.StatusError, Error: &tools.ToolError{Kind: tools.KindTimeout, Message: "timed out after 30s"}},
			"timed out after 30s", "the tool ran out of time: call get_weather again asking for less, or answer without it"},
		{"failed", tools.Observation{IsError: true, Status: tools.StatusError, Content: "\n---\nerror: no such city\n", Error: &tools.ToolError{Kind: tools.KindExecution, Message: "exit status 1"}},
			"error: no such city", "the tool failed: change what the error names and call get_weather again, or answer without it"},
		{"interrupted", tools.Observation{IsError: true, Status: tools.StatusError, Error: &tools.ToolError{Kind: tools.KindInterrupted, Message: "interrupted"}},
			"interrupted", "the call was interrupted: call get_weather again if you still need it"},
		{"dry run", tools.Observation{Content: "Dry run: nothing was run.\nexecutable: x", Status: tools.StatusBlocked},
			"Dry run: nothing was run.", "nothing was run (a dry run): answer without its result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.ID, tc.o.Name = "call_1", "get_weather"
			f := reflectOn(&tc.o)
			if f.Finding != tc.finding || f.NextAction != tc.next || f.ID != "call_1" || f.Name != "get_weather" || f.Status != stepStatus(&tc.o) {
				t.Errorf("got %+v\nwant finding %q, next %q", f, tc.finding, tc.next)
			}
		})
	}
}

func TestFirstLine(t *testing.T) {
	long := ""
	for range 50 {
		long += "word "
	}
	for in, want := range map[string]string{
		"":                 "",
		"{\n[\n":           "",
		"  \n```\nHello\n": "Hello",
		long:               long[:findingMax] + "…",
	} {
		if got := firstLine(in); got != want {
			t.Errorf("firstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
