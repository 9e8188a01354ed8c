package parse

// OpenAI's harmony and Muse Glimmer, which writes harmony's messages
// around its own ATEM markup; Google's FunctionGemma and Gemma 4.

// xmlAtem is Muse Glimmer's ATEM markup.
var xmlAtem = &xmlDialect{format: FormatGlimmer, paramOpen: "<atem:parameter name=", paramClose: "</atem:parameter>", close: "</atem:invoke>", attrs: true}

var (
	_ = register(Spec{Format: FormatHarmony, Models: []string{"OpenAI gpt-oss (harmony)"}, Example: `<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":1}<|call|>`,
		Code: "the name is in a message header (to=functions.NAME) and the channel says what the message is (harmony)",
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
		Call: CallMarkers{Start: "<start_function_call>", NameStart: "call:", End: "<end_function_call>"}, Body: BodyBrace, StringQuote: "<escape>"})
	_ = register(Spec{Format: FormatGemma4, Models: []string{"Google Gemma 4"}, Example: `<|tool_call>call:f{a:<|"|>x<|"|>,n:3}<tool_call|>`,
		Call: CallMarkers{Start: "<|tool_call>", NameStart: "call:", End: "<tool_call|>"}, Body: BodyBrace, StringQuote: `<|"|>`,
		// Its thought channel is a control token's (gemmaChannel).
		Reasoning: []Markers{{Start: "<|channel>", End: "<channel|>"}}, AfterReasoning: true})
)
