package parse

import (
	"slices"
	"testing"
)

// TestTaggedResume: a call in tagged parameters read on from the
// parameters read before (taggedResume) gives the events reading it
// again from its start gives, after the same piece, however the input
// is cut: values holding their own closing tag's text, a closing tag
// left out, values typed by the schema, JSON marks, calls back to back
// and a call cut off by the end of the output.
func TestTaggedResume(t *testing.T) {
	inputs := map[string]string{
		"qwen3-coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=day>\n5\n</parameter>\n<parameter=detail>\nTrue\n</parameter>\n</function>\n</tool_call>\nAfter.\n" +
			"<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>",
		"tag text in a value":  "<tool_call>\n<function=write>\n<parameter=code>\nx = \"</parameter>\" + y\n</parameter>\n<parameter=n>\n[1, {\"a\": 2}]\n</parameter>\n</function>\n</tool_call>",
		"closing tag left out": "<tool_call>\n<function=write>\n<parameter=a>\none\n<parameter=b>\ntwo\n</parameter>\n<parameter=c>\nthree\n</function>\n</tool_call> done",
		"repaired, then more":  "<tool_call>\n<function=write>\n<parameter=a>\none\n<parameter=b>\ntwo\n</parameter>\n<parameter=o>\n{'k': True}\n</parameter>\n<parameter=c>\nthree\n</parameter>\n</function>\n</tool_call> done",
		"no closing tags":      "<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\n2\n</parameter>\ntext",
		"cut off":              "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\n2",
		"unexpected text":      "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\nnoise\n</function>\n</tool_call>",
		"minimax m2":           "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"day\">5</parameter>\n</invoke>\n</minimax:tool_call>",
		"dsml":                 "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n<｜DSML｜parameter name=\"day\" string=\"false\">5</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
	}
	types := map[string]string{"day": "integer", "detail": "boolean", "n": "array", "city": "string", "o": "object"}
	opts := Options{
		ParamType: func(_, param string) string { return types[param] },
		KnownTool: func(string) bool { return true },
	}
	for name, in := range inputs {
		whole := parseAll(t, []byte(in), opts, nil)
		for size := 1; size <= 7; size++ {
			on := eventsByPiece(t, []byte(in), size, opts, false)
			off := eventsByPiece(t, []byte(in), size, opts, true)
			if !slices.Equal(on, off) {
				t.Errorf("%s in pieces of %d: events differ read on and read again:\n on %q\noff %q", name, size, on, off)
			}
			if got := parseAll(t, []byte(in), opts, []int{size}); got != whole {
				t.Errorf("%s in pieces of %d:\n%s\nwhole:\n%s", name, size, got, whole)
			}
		}
	}
}
