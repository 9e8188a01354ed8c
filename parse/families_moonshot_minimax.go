package parse

// Moonshot's Kimi and MiniMax.

// kimiResult is Kimi K2's template's result: a system turn named by the
// tool, which says the call's id (functions.NAME:INDEX).
var kimiResult = &ResultMarkers{Start: "<|im_system|>{name}<|im_middle|>## Return of {id}\n", End: "<|im_end|>"}

var (
	_ = register(Spec{Format: FormatKimiK2, Models: []string{"Moonshot Kimi K2, K2 Thinking"}, Example: `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a":1}<|tool_call_end|><|tool_calls_section_end|>`,
		Result:  kimiResult,
		Section: &Markers{Start: "<|tool_calls_section_begin|>", End: "<|tool_calls_section_end|>"},
		Call:    CallMarkers{Start: "<|tool_call_begin|>", NamePrefix: "functions.", IndexSep: ":", NameEnd: "<|tool_call_argument_begin|>", End: "<|tool_call_end|>"}, Body: BodyNameJSON,
		// Kimi K2 Thinking may start a call with no section around it.
		opens: []string{"<|tool_calls_section_begin|>", "<|tool_call_begin|>"}})
	_ = register(Spec{Format: FormatKimiK3, Models: []string{"Moonshot Kimi K3 (XTML)"}, Example: `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`,
		Section: &Markers{Start: "<|open|>tools<|sep|>", End: "<|close|>tools<|sep|>"},
		// Each tag's attributes run to <|sep|>; the call's index="1"
		// names no tool, and each argument says its type.
		Call: CallMarkers{Start: "<|open|>call tool=", Attribute: true, TagEnd: "<|sep|>", End: "<|close|>call<|sep|>"}, Body: BodyParams,
		Param:    &ParamMarkers{Start: "<|open|>argument key=", Attribute: true, TagEnd: "<|sep|>", TypeAttribute: "type", End: "<|close|>argument<|sep|>"},
		JSONTags: &Markers{Start: "<|open|>json", End: "<|close|>json<|sep|>"},
		Escaped:  true})
	_ = register(Spec{Format: FormatMiniMaxM2, Models: []string{"MiniMax M2"}, Example: `<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter></invoke></minimax:tool_call>`,
		Result:  &ResultMarkers{Start: "<response>", End: "</response>"},
		Section: &Markers{Start: "<minimax:tool_call>", End: "</minimax:tool_call>"},
		Call:    CallMarkers{Start: "<invoke name=", Attribute: true, End: "</invoke>"}, Body: BodyParams,
		Param:         &ParamMarkers{Start: "<parameter name=", Attribute: true, End: "</parameter>"},
		JSONArguments: true, EmptyNeedsSection: true,
		opens: []string{"<minimax:tool_call>"}})
	_ = register(Spec{Format: FormatMiniMaxM3, Models: []string{"MiniMax M3"}, Example: `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>`,
		Code:  "a namespace token before every tag, and each parameter a tag named by its key whose nested tags are objects and arrays, which no body reader reads (miniMaxM3)",
		opens: []string{m3Marker + "<tool_call>"},
		own: []marker{
			{m3Marker, (*Parser).miniMaxM3, []string{FormatMiniMaxM3}},
			// M3's invoke in its section with the namespace tokens
			// dropped: quoted, one byte longer than M2's <invoke name=,
			// so looked at before it.
			{`<invoke name="`, (*Parser).m3PlainInvoke, []string{FormatMiniMaxM3}},
			{`<invoke name='`, (*Parser).m3PlainInvoke, []string{FormatMiniMaxM3}},
		}})
)
