package parse

// OpenAI's harmony and Muse Glimmer, which writes harmony's messages
// around its own ATEM markup; Google's FunctionGemma and Gemma 4.

// xmlAtem is Muse Glimmer's ATEM markup.
var xmlAtem = &xmlDialect{format: FormatGlimmer, paramOpen: "<atem:parameter name=", paramClose: "</atem:parameter>", close: "</atem:invoke>", attrs: true, jsonArgs: true}

// harmonyResult is gpt-oss's template's result: a message from the
// function to the assistant, the text passed through tojson.
var harmonyResult = &ResultMarkers{Start: "<|start|>functions.{name} to=assistant<|channel|>commentary<|message|>", End: "<|end|>", JSON: true}

// gemma4Result is Gemma 4's template's result: a response token pair
// naming the tool, the text a quoted value.
var gemma4Result = &ResultMarkers{Start: `<|tool_response>response:{name}{value:<|"|>`, End: `<|"|>}<tool_response|>`}

var (
	_ = register(Spec{Format: FormatHarmony, Models: []string{"OpenAI gpt-oss (harmony)"}, Example: `<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":1}<|call|>`,
		Result: harmonyResult,
		Code:   "the name is in a message header (to=functions.NAME) and the channel says what the message is (harmony)",
		own: []marker{
			{"<|channel|>", (*Parser).harmony, []string{FormatHarmony}},
			{"<|start|>", (*Parser).harmony, []string{FormatHarmony, FormatGlimmer}},
			{"<|message|>", (*Parser).harmonyContinued, []string{FormatHarmony, FormatGlimmer}},
		}})
	_ = register(Spec{Format: FormatGlimmer, Models: []string{"Muse Glimmer"}, Example: `<|start|>assistant to=f<|message|><atem:function_calls><atem:invoke name="f"><atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls><|eom|>`,
		Code: "its calls sit in a harmony message (harmony), read as invoke tags (invokeBlock)",
		own: []marker{
			sectionMarker("<atem:function_calls>", FormatGlimmer),
			sectionEnd("</atem:function_calls>"),
			{"<atem:invoke name=", invokeBlock(xmlAtem), []string{FormatGlimmer}},
		}})
	_ = register(Spec{Format: FormatFunctionGemma, Models: []string{"Google FunctionGemma 270M"}, Example: `<start_function_call>call:f{a:<escape>x<escape>}<end_function_call>`,
		Result: &ResultMarkers{Start: "<start_function_response>", End: "<end_function_response>"},
		Call:   CallMarkers{Start: "<start_function_call>", NameStart: "call:", End: "<end_function_call>"}, Body: BodyBrace, StringQuote: "<escape>"})
	_ = register(Spec{Format: FormatGemma4, Models: []string{"Google Gemma 4"}, Example: `<|tool_call>call:f{a:<|"|>x<|"|>,n:3}<tool_call|>`,
		Result: gemma4Result,
		Call:   CallMarkers{Start: "<|tool_call>", NameStart: "call:", End: "<tool_call|>"}, Body: BodyBrace, StringQuote: `<|"|>`,
		// Its thought channel is a control token's (gemmaChannel).
		Reasoning: []Markers{{Start: "<|channel>", End: "<channel|>"}}, AfterReasoning: true})
)
