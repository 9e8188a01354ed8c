package parse

// Mistral's [TOOL_CALLS], and the families that write a call after text
// that is not a marker of its own (Functionary's >>>, functools[).

// mistralResult is Mistral Nemo's template's result: the text as it
// comes in a JSON-like object with the call's id.
var mistralResult = &ResultMarkers{Start: `[TOOL_RESULTS]{"content": `, End: `, "call_id": "{id}"}[/TOOL_RESULTS]`}

// toolHeaderResult is a Llama 3 header turn of role tool, as Functionary
// v3.2's and FireFunction v2's templates write a result.
var toolHeaderResult = &ResultMarkers{Start: "<|start_header_id|>tool<|end_header_id|>\n\n", End: "<|eot_id|>"}

var (
	// The two share [TOOL_CALLS], tried in id order: JSON after it is
	// v0.3's, a name v11's.
	_ = register(Spec{Format: FormatMistral, Models: []string{"Mistral 7B v0.3, Nemo, Mixtral, Ministral 8B 2410, Large 2407"}, Example: `[TOOL_CALLS][{"name":"f","arguments":{}}]`,
		Result: mistralResult,
		Call:   CallMarkers{Start: "[TOOL_CALLS]", NoEnd: true}, Body: BodyJSON})
	_ = register(Spec{Format: FormatMistralV11, Models: []string{"Mistral Small 3.x, Magistral, Devstral, Ministral 3"}, Example: `[TOOL_CALLS]f[ARGS]{"a":1}`,
		Result: &ResultMarkers{Start: "[TOOL_RESULTS]", End: "[/TOOL_RESULTS]"},
		Call:   CallMarkers{Start: "[TOOL_CALLS]", NameEnd: "[ARGS]", NoEnd: true, IDStart: "[CALL_ID]", NameEndOptional: true}, Body: BodyNameJSON})
	_ = register(Spec{Format: FormatFunctionary, Models: []string{"MeetKai Functionary v3.2"}, Example: ">>>f\\n{\"a\":1}",
		Result: toolHeaderResult,
		Code:   ">>> starts with neither '<' nor '[', and the output may start with the name line (functionary)", own: []marker{}})
	_ = register(Spec{Format: FormatFireFunction, Models: []string{"Fireworks FireFunction v2"}, Example: ` functools[{"name":"f","arguments":{}}]`,
		Result: toolHeaderResult,
		Call:   CallMarkers{Start: " functools", NoEnd: true, Word: true}, Body: BodyJSON})
	_ = register(Spec{Format: FormatPhi4Mini, Models: []string{"Phi-4-mini"}, Example: `functools[{"name":"f","arguments":{}}]`,
		Result: &ResultMarkers{Start: "<|tool|>", End: "<|end|>"},
		Call:   CallMarkers{Start: "functools", NoEnd: true, Word: true}, Body: BodyJSON})
)
