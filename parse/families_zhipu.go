package parse

// GLM's <arg_key>/<arg_value> pairs, as Zhipu, Tencent and NAVER write
// them.

var (
	// GLM's, Hunyuan's, Laguna's and Hermes' calls share <tool_call>,
	// told apart by what follows the name: each family's spec says, and
	// they are tried in the order of their try.
	_ = register(Spec{Format: FormatGLM45, Models: []string{"Zhipu GLM 4.5, 4.6"}, Example: "<tool_call>f\\n<arg_key>a</arg_key>\\n<arg_value>1</arg_value>\\n</tool_call>",
		Result: &ResultMarkers{Start: "<tool_response>\n", End: "\n</tool_response>"},
		Call:   CallMarkers{Start: "<tool_call>", NameEnd: "\n", End: "</tool_call>", NameEndExact: true}, Body: BodyKV,
		Key: &Markers{Start: "<arg_key>", End: "</arg_key>"}, Value: &Markers{Start: "<arg_value>", End: "</arg_value>"},
		try: 1})
	_ = register(Spec{Format: FormatGLM47, Models: []string{"Zhipu GLM 4.7"}, Example: `<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>`,
		Result: &ResultMarkers{Start: "<tool_response>", End: "</tool_response>"},
		Call:   CallMarkers{Start: "<tool_call>", End: "</tool_call>", NameEndExact: true}, Body: BodyKV,
		Key: &Markers{Start: "<arg_key>", End: "</arg_key>"}, Value: &Markers{Start: "<arg_value>", End: "</arg_value>"},
		try: 3})
	// Hy3's tokenizer writes each of Hunyuan's tags with a suffix
	// (<tool_call:opensource>); its <tool_calls> section is also Jamba's
	// (tool_calls_array), whose marker reads it first.
	_ = register(Spec{Format: FormatHunyuan, Models: []string{"Tencent Hunyuan Hy3 (HY v3, v4)"}, Example: "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>",
		Section: &Markers{Start: "<tool_calls>", End: "</tool_calls>"},
		Call:    CallMarkers{Start: "<tool_call>", NameEnd: "<tool_sep>", End: "</tool_call>", NameEndExact: true}, Body: BodyKV,
		Key: &Markers{Start: "<arg_key>", End: "</arg_key>"}, Value: &Markers{Start: "<arg_value>", End: "</arg_value>"},
		TagSuffix: ":opensource", try: 2})
	_ = register(Spec{Format: FormatHyperCLOVAX, Models: []string{"NAVER HyperCLOVA X SEED Think 14B (32B writes glm_4_5)"}, Example: " -> tool/function_call\\n[{\"name\":\"f\",\"arguments\":{\"a\":1}}]",
		Code: `"-> tool/…" starts with neither '<' nor '[', and prose may write it (clovaCall)`, own: []marker{}})
)
