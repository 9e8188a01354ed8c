package parse

// AllenAI, LiquidAI, OpenBMB, Preferred Networks and Upstage.

// xmlMiniCPM5 are MiniCPM 5's tags, read after <function name=…>
// (functionTag).
var xmlMiniCPM5 = &xmlDialect{format: FormatMiniCPM5, paramOpen: "<param name=", paramClose: "</param>", close: "</function>", attrs: true}

// solarResult is Solar Open's template's result, which names the call
// by its id and its tool.
var solarResult = &ResultMarkers{Start: "<|tool_response:begin|>{id}<|tool_response:name|>{name}<|tool_response:result|>", End: "<|tool_response:end|>"}

var (
	_ = register(Spec{Format: FormatOlmo3, Models: []string{"AllenAI Olmo 3"}, Example: "<function_calls>\\nf(a=1)\\n</function_calls>",
		Call: CallMarkers{Start: "<function_calls>", End: "</function_calls>"}, Body: BodyPythonic})
	// LFM2's and MiniCPM3's blocks share their markers: a block LFM2's
	// reading does not fit, a fence, is tried as MiniCPM3's.
	_ = register(Spec{Format: FormatLFM2, Models: []string{"LiquidAI LFM2, LFM2.5"}, Example: `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`,
		Result: &ResultMarkers{Start: "<|im_start|>tool\n", End: "<|im_end|>"},
		Call:   CallMarkers{Start: "<|tool_call_start|>", End: "<|tool_call_end|>"}, Body: BodyPythonic})
	_ = register(Spec{Format: FormatMiniCPM3, Models: []string{"OpenBMB MiniCPM3"}, Example: "<|tool_call_start|>```python\\nf(a=1)\\n```<|tool_call_end|>",
		Call: CallMarkers{Start: "<|tool_call_start|>", End: "<|tool_call_end|>"}, Body: BodyPythonic, Fenced: true})
	_ = register(Spec{Format: FormatMiniCPM5, Models: []string{"OpenBMB MiniCPM 5"}, Example: `<function name="f"><param name="a">1</param></function>`,
		Call: CallMarkers{Start: `<function name="`, NameEnd: `">`, End: "</function>"}, Body: BodyParams,
		Param: &ParamMarkers{Start: `<param name="`, KeyEnd: `">`, End: "</param>"},
		Code:  "<function name=…> also opens Functionary's JSON calls (functionTag)", own: []marker{}})
	_ = register(Spec{Format: FormatPlamo3, Models: []string{"Preferred Networks PLaMo 3"}, Example: `<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{"a":1}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>`,
		Section: &Markers{Start: "<|plamo:begin_tool_requests:plamo|>", End: "<|plamo:end_tool_requests:plamo|>"},
		Call: CallMarkers{Start: "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>", NameEnd: "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>",
			End: "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>", Spaced: true}, Body: BodyNameJSON})
	_ = register(Spec{Format: FormatSolarOpen, Models: []string{"Upstage Solar Open"}, Example: `<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>f<|tool_call:args|>{"a":1}<|tool_call:end|><|calls|>`,
		Result:  solarResult,
		Section: &Markers{Start: "<|tool_calls|>", End: "<|calls|>"},
		Call:    CallMarkers{Start: "<|tool_call:begin|>", NameStart: "<|tool_call:name|>", NameEnd: "<|tool_call:args|>", End: solarEnd}, Body: BodyNameJSON})
	_ = register(Spec{Format: FormatSolarOpen2, Models: []string{"Upstage Solar Open 2"}, Example: "<|tool_call:start|>f\\n<|tool_arg:start|>a<|tool_arg:value|>1<|tool_arg:end|>\\n<|tool_call:end|>",
		Call: CallMarkers{Start: "<|tool_call:start|>", End: solarEnd}, Body: BodyKV,
		Key: &Markers{Start: "<|tool_arg:start|>", End: "<|tool_arg:value|>"}, Value: &Markers{End: "<|tool_arg:end|>"}})
)
