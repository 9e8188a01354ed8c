package parse

// Families that write JSON calls between markers: IBM, NVIDIA, Swiss AI,
// Shanghai AI Lab, Cohere, AI21 and others, Sber.

// commandRResult is Command R+'s template's result: a system turn.
var commandRResult = &ResultMarkers{Start: "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|><results>\n", End: "</results><|END_OF_TURN_TOKEN|>"}

var (
	_ = register(Spec{Format: FormatGranite, Models: []string{"IBM Granite 3.0, 3.1"}, Example: `<|tool_call|>[{"name":"f","arguments":{}}]`,
		Result: &ResultMarkers{Start: "<|start_of_role|>tool<|end_of_role|>", End: "<|end_of_text|>"},
		Call:   CallMarkers{Start: "<|tool_call|>", NoEnd: true}, Body: BodyJSON})
	_ = register(Spec{Format: FormatGranite20B, Models: []string{"IBM granite-20b-functioncalling"}, Example: `<function_call> {"name":"f","arguments":{}}`,
		Call: CallMarkers{Start: "<function_call>", End: "</function_call>"}, Body: BodyJSON})
	_ = register(Spec{Format: FormatNemotron, Models: []string{"NVIDIA Nemotron Nano v2"}, Example: `<TOOLCALL>[{"name":"f","arguments":{}}]</TOOLCALL>`,
		Call: CallMarkers{Start: "<TOOLCALL>", End: "</TOOLCALL>"}, Body: BodyJSON})
	_ = register(Spec{Format: FormatApertus, Models: []string{"Swiss AI Apertus"}, Example: `<|tools_prefix|>[{"f":{"a":1}}]<|tools_suffix|>`,
		Call: CallMarkers{Start: "<|tools_prefix|>", End: "<|tools_suffix|>"}, Body: BodyJSON, NameIsKey: true})
	_ = register(Spec{Format: FormatInternLM2, Models: []string{"InternLM2, InternLM2.5"}, Example: `<|action_start|><|plugin|>{"name":"f","parameters":{}}<|action_end|>`,
		Call: CallMarkers{Start: "<|action_start|><|plugin|>", End: "<|action_end|>"}, Body: BodyJSON})
	// Its directly_answer entry is no call: the JSON reader knows it by
	// the format (directly.go).
	_ = register(Spec{Format: FormatCommandR7B, Models: []string{"Cohere Command R7B, Command A"}, Example: `<|START_ACTION|>[{"tool_call_id":"0","tool_name":"f","parameters":{}}]<|END_ACTION|>`,
		Call: CallMarkers{Start: "<|START_ACTION|>", End: "<|END_ACTION|>"}, Body: BodyJSON})
	_ = register(Spec{Format: FormatCommandRAction, Models: []string{"Cohere Command R, R+"}, Example: "Action: ```json\\n[{\"tool_name\":\"f\",\"parameters\":{}}]\\n```",
		Result: commandRResult,
		Code:   `"Action:" and a Markdown fence, which prose also writes (backtick)`, own: []marker{}})
	// <tool_calls> is tried in id order: call objects one a line are
	// MiniMax M1's, a JSON list AI21's and others'; a <tool_call> after it
	// opens Hunyuan's section (specSection).
	_ = register(Spec{Format: FormatToolCallsArray, Models: []string{"AI21 Jamba 1.5, Tencent Hunyuan A13B, ServiceNow Apriel 1.5"}, Example: `<tool_calls>[{"name":"f","arguments":{}}]</tool_calls>`,
		Call: CallMarkers{Start: "<tool_calls>", End: "</tool_calls>"}, Body: BodyJSON})
	_ = register(Spec{Format: FormatMiniMaxM1, Models: []string{"MiniMax Text-01, M1"}, Example: "<tool_calls>\\n{\"name\":\"f\",\"arguments\":{}}\\n</tool_calls>",
		Call: CallMarkers{Start: "<tool_calls>", End: "</tool_calls>"}, Body: BodyJSON, Lines: true})
	_ = register(Spec{Format: FormatGigaChat3, Models: []string{"Sber GigaChat 3, 3.1"}, Example: "function call<|role_sep|>\\n{\"name\":\"f\",\"arguments\":{}}",
		Result: &ResultMarkers{Start: "function result<|role_sep|>\n", End: "<|message_sep|>"},
		Code:   `the text "function call" before its marker is the call's (gigaChat)`,
		own: []marker{
			{"<|role_sep|>", (*Parser).gigaChat, []string{FormatGigaChat3}},
			{"<|function_call|>", jsonBlock("", FormatGigaChat3), []string{FormatGigaChat3}},
		}})
)
