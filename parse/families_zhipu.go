package parse

// GLM's <arg_key>/<arg_value> pairs, as Zhipu, Tencent and NAVER write
// them.

// hyTags returns Hunyuan's tags with suffix ("" or ":opensource").
func hyTags(suffix string) *glmTags {
	return &glmTags{key: "<arg_key" + suffix + ">", keyEnd: "</arg_key" + suffix + ">", val: "<arg_value" + suffix + ">", valEnd: "</arg_value" + suffix + ">", sep: "<tool_sep" + suffix + ">"}
}

// glmPlain are GLM's tags; Hunyuan's bare <tool_sep> after the name
// switches to Hunyuan's reading.
var glmPlain = func() *glmTags { t := hyTags(""); t.nameJSON = true; return t }()

var (
	_ = register(Spec{Format: FormatGLM45, Models: []string{"Zhipu GLM 4.5, 4.6"}, Example: "<tool_call>f\\n<arg_key>a</arg_key>\\n<arg_value>1</arg_value>\\n</tool_call>",
		Result: &ResultMarkers{Start: "<tool_response>\n", End: "\n</tool_response>"},
		Call:   CallMarkers{Start: "<tool_call>", NameEnd: "\n", End: "</tool_call>"}, Body: BodyKV,
		Key: &Markers{Start: "<arg_key>", End: "</arg_key>"}, Value: &Markers{Start: "<arg_value>", End: "</arg_value>"},
		Code: "read in Hermes' <tool_call> tag, the layout after the name telling 4.5 from 4.7 (glmCall)", own: []marker{}})
	_ = register(Spec{Format: FormatGLM47, Models: []string{"Zhipu GLM 4.7"}, Example: `<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>`,
		Result: &ResultMarkers{Start: "<tool_response>", End: "</tool_response>"},
		Call:   CallMarkers{Start: "<tool_call>", End: "</tool_call>"}, Body: BodyKV,
		Key: &Markers{Start: "<arg_key>", End: "</arg_key>"}, Value: &Markers{Start: "<arg_value>", End: "</arg_value>"},
		Code: "read in Hermes' <tool_call> tag (glmCall)", own: []marker{}})
	_ = register(Spec{Format: FormatHunyuan, Models: []string{"Tencent Hunyuan Hy3 (HY v3, v4)"}, Example: "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>",
		Section: &Markers{Start: "<tool_calls>", End: "</tool_calls>"},
		Call:    CallMarkers{Start: "<tool_call>", NameEnd: "<tool_sep>", End: "</tool_call>"}, Body: BodyKV,
		Key: &Markers{Start: "<arg_key>", End: "</arg_key>"}, Value: &Markers{Start: "<arg_value>", End: "</arg_value>"},
		Code: "read in Hermes' <tool_call> tag; Hy3's tokenizer puts a suffix on each of its tags (hunyuanCall)",
		own: []marker{
			{"<tool_call:opensource>", hunyuanCall(":opensource"), []string{FormatHunyuan}},
			closer("</tool_call:opensource>", FormatHunyuan),
			sectionMarker("<tool_calls:opensource>", FormatHunyuan),
			sectionEnd("</tool_calls:opensource>"),
			toolCallsSection, sectionEnd("</tool_calls>"),
		}})
	_ = register(Spec{Format: FormatHyperCLOVAX, Models: []string{"NAVER HyperCLOVA X SEED Think 14B (32B writes glm_4_5)"}, Example: " -> tool/function_call\\n[{\"name\":\"f\",\"arguments\":{\"a\":1}}]",
		Code: `"-> tool/…" starts with neither '<' nor '[', and prose may write it (clovaCall)`, own: []marker{}})
)
