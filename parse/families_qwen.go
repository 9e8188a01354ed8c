package parse

// The <tool_call> tag family: Hermes JSON, and what Qwen, Seed, poolside
// and Meituan write in the same tag or beside it.

// qwenResult is how Qwen's templates (Hermes' and Qwen3-Coder's) write a
// tool's result back, in a user turn.
var qwenResult = &ResultMarkers{Start: "<tool_response>\n", End: "\n</tool_response>"}

var (
	_ = register(Spec{Format: FormatHermes, Models: []string{"Hermes 2 Pro/3, Qwen2.5, QwQ, Qwen3, Xiaomi MiMo, ERNIE 4.5, LongCat, many fine-tunes"}, Example: `<tool_call>{"name":"f","arguments":{"a":1}}</tool_call>`,
		Call: CallMarkers{Start: "<tool_call>", End: "</tool_call>"}, Body: BodyJSON,
		Result: qwenResult})
	_ = register(Spec{Format: FormatFunctionTag, Models: []string{"Functionary v3.1 (Llama 3.1), Hermes variants"}, Example: `<function=f>{"a":1}</function>`,
		Result: &ResultMarkers{Start: "<|start_header_id|>ipython<|end_header_id|>\n\n", End: "<|eot_id|>"},
		Call:   CallMarkers{Start: "<function=", NameEnd: ">", End: "</function>"}, Body: BodyNameJSON,
		Code: "<function=…> also opens Qwen3-Coder's parameters, and <function name=…> MiniCPM 5's (functionTag)",
		own: []marker{
			{"<function=", (*Parser).functionTag, []string{FormatFunctionTag, FormatQwen3Coder}},
			{"<function name=", (*Parser).functionTag, []string{FormatFunctionTag, FormatMiniCPM5}},
			closer("</function>", FormatFunctionTag, FormatQwen3Coder, FormatMiniCPM5),
		}})
	_ = register(Spec{Format: FormatQwen3Coder, Models: []string{"Qwen3-Coder, Qwen3.5, NVIDIA Nemotron 3 Nano"}, Example: "<tool_call>\\n<function=f>\\n<parameter=a>\\n1\\n</parameter>\\n</function>\\n</tool_call>",
		Section: &Markers{Start: "<tool_call>", End: "</tool_call>"},
		Call:    CallMarkers{Start: "<function=", NameEnd: ">", End: "</function>"}, Body: BodyParams,
		Param:  &ParamMarkers{Start: "<parameter=", KeyEnd: ">", End: "</parameter>", Wrapped: true},
		Result: qwenResult,
		Code:   "read in Hermes' <tool_call> tag (qwenInTag), or from <function=…> without it (functionTag)", own: []marker{}})
	_ = register(Spec{Format: FormatSeedOSS, Models: []string{"ByteDance Seed-OSS"}, Example: "<seed:tool_call>\\n<function=f>\\n<parameter=a>1</parameter>\\n</function>\\n</seed:tool_call>",
		Result:  &ResultMarkers{Start: "<seed:bos>tool\n", End: "<seed:eos>"},
		Section: &Markers{Start: "<seed:tool_call>", End: "</seed:tool_call>"},
		Call:    CallMarkers{Start: "<function=", NameEnd: ">", End: "</function>"}, Body: BodyParams,
		Param: &ParamMarkers{Start: "<parameter=", KeyEnd: ">", End: "</parameter>"},
		Code:  "its tag holds Qwen3-Coder's <function=…> block or a JSON call (seedTag)",
		own: []marker{
			{"<seed:tool_call>", seedTag("</seed:tool_call>"), []string{FormatSeedOSS}},
			closer("</seed:tool_call>", FormatSeedOSS),
		}})
	_ = register(Spec{Format: FormatLaguna, Models: []string{"poolside Laguna (its other forms are glm_4_5 and hermes)"}, Example: "<tool_call>f\\n{\"a\":1}</tool_call>",
		Result: &ResultMarkers{Start: "<tool_response>", End: "</tool_response>"},
		Call:   CallMarkers{Start: "<tool_call>", NameEnd: "\n", End: "</tool_call>"}, Body: BodyNameJSON,
		Code: "a call in <user> tags, in any of the syntaxes <tool_call> holds, counts only for a known tool (lagunaUser); its <tool_call> is read by its spec",
		try:  4, specToo: true,
		own: []marker{
			// poolside Laguna sometimes wraps a call in <user> tags.
			{"<user>", (*Parser).lagunaUser, []string{FormatLaguna}},
			closer("</user>", FormatLaguna),
		}})
	_ = register(Spec{Format: FormatLongCat, Models: []string{"Meituan LongCat (XML arguments)"}, Example: "<longcat_tool_call>f\\n<longcat_arg_key>a</longcat_arg_key>\\n<longcat_arg_value>1</longcat_arg_value>\\n</longcat_tool_call>",
		Call: CallMarkers{Start: "<longcat_tool_call>", NameEnd: "\n", End: "</longcat_tool_call>"}, Body: BodyKV,
		Key: &Markers{Start: "<longcat_arg_key>", End: "</longcat_arg_key>"}, Value: &Markers{Start: "<longcat_arg_value>", End: "</longcat_arg_value>"},
		// Its tag also holds Hermes' JSON (tagReadings).
	})
)
