package parse

// Calls written as JSON values with no marker of their own: read where a
// value starts (bareJSON, protocolline.go, the fences of backtick), so no
// marker and no body reader describes them.

var (
	_ = register(Spec{Format: FormatJSONL, Models: []string{"this project's protocol: any model prompted by toolcall's jsonl style"}, Example: `{"type":"tool_call","name":"f","arguments":{"a":1}}`,
		Code: "a JSON line with no marker, read where a line starts (protocolline.go, bareJSON)"})
	_ = register(Spec{Format: FormatXLAM, Models: []string{"Salesforce xLAM 2"}, Example: `[{"name":"f","arguments":{}}]`,
		Code: "a bare JSON array of calls, read where a line starts (bareJSON)"})
	_ = register(Spec{Format: FormatLlamaCppGeneric, Models: []string{"any model under llama.cpp's generic (grammar-forced) handler"}, Example: `{"tool_call":{"name":"f","arguments":{}}}`,
		Code: "a bare JSON envelope, read where a line starts (candidates)"})
	_ = register(Spec{Format: FormatOpenAIEnvelope, Models: []string{"fine-tunes imitating the OpenAI API, GLM 4.5 JSON drift"}, Example: `{"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		Code: "a bare JSON envelope, read where a line starts (candidates)"})
	_ = register(Spec{Format: FormatJSONFenced, Models: []string{"prompted models without native tokens (Qwen2.5-Coder, Gemma, small models)"}, Example: "```json\\n{\"name\":\"f\",\"arguments\":{}}\\n```",
		Code: "a Markdown code fence, which prose also writes: read by backtick, which tells the two apart"})
	_ = register(Spec{Format: FormatNative, Models: []string{"servers with function calling: tool_calls in an OpenAI or Ollama response"}, Example: `{"choices":[{"message":{"tool_calls":[…]}}]}`,
		Code: "the server's own tool_calls, read from the response (input_calls.go)"})
)
