package parse

// DeepSeek's fullwidth tokens and DSML, and StepFun's Step-3, which
// writes DeepSeek's wrapper around its own invoke tags.

// The DSML call sections: V3.2's function_calls, V4's tool_calls, each
// also with ASCII '|' for the fullwidth '｜' as some servers and
// quantizations detokenize them.
var dsmlSections = []string{"<｜DSML｜function_calls>", "<｜DSML｜tool_calls>", "<|DSML|function_calls>", "<|DSML|tool_calls>"}

// deepseekSpelled: the '▁' of DeepSeek's tokens as a space, as some
// servers detokenize it.
var deepseekSpelled = []Spelling{{From: "▁", To: " "}}

// deepseekSkip are the control tokens of R1's and V3.1's templates
// that are never prose: a call's end and separator where they stand
// alone, a tool output's markers (their text stays), the turn's.
var deepseekSkip = []string{"<｜tool▁call▁end｜>", "<｜tool▁sep｜>", "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>", "<｜tool▁outputs▁end｜>",
	"<｜end▁of▁sentence｜>", "<｜begin▁of▁sentence｜>", "<｜Assistant｜>"}

// deepseekResult is how R1's and V3.1's templates write a result; R1's
// also write <｜tool▁outputs▁begin｜> once before a turn's results.
var deepseekResult = &ResultMarkers{Start: "<｜tool▁output▁begin｜>", End: "<｜tool▁output▁end｜>"}

var (
	_ = register(Spec{Format: FormatDeepSeekR1, Models: []string{"DeepSeek R1, V3-0324, R1-0528"}, Example: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{\"a\":1}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		Result:  deepseekResult,
		Section: &Markers{Start: "<｜tool▁calls▁begin｜>", End: "<｜tool▁calls▁end｜>"},
		// The name after a type, then the arguments in a ```json fence.
		Call: CallMarkers{Start: "<｜tool▁call▁begin｜>function<｜tool▁sep｜>", NameEnd: "\n", End: "<｜tool▁call▁end｜>"}, Body: BodyNameJSON, Fenced: true,
		AlsoSpelled: deepseekSpelled, Skip: deepseekSkip})
	_ = register(Spec{Format: FormatDeepSeekV31, Models: []string{"DeepSeek V3.1, Cogito"}, Example: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a":1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
		Result:  deepseekResult,
		Section: &Markers{Start: "<｜tool▁calls▁begin｜>", End: "<｜tool▁calls▁end｜>"},
		Call:    CallMarkers{Start: "<｜tool▁call▁begin｜>", NameEnd: "<｜tool▁sep｜>", End: "<｜tool▁call▁end｜>"}, Body: BodyNameJSON,
		AlsoSpelled: deepseekSpelled, Skip: deepseekSkip})
	_ = register(Spec{Format: FormatDeepSeekDSML, Models: []string{"DeepSeek V3.2, V4"}, Example: `<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`,
		Result:  &ResultMarkers{Start: "<result>", End: "</result>"},
		Section: &Markers{Start: "<｜DSML｜function_calls>", End: "</｜DSML｜function_calls>"},
		Call:    CallMarkers{Start: "<｜DSML｜invoke name=", Attribute: true, End: "</｜DSML｜invoke>"}, Body: BodyParams,
		Param:         &ParamMarkers{Start: "<｜DSML｜parameter name=", Attribute: true, End: "</｜DSML｜parameter>"},
		JSONArguments: true,
		// V4's section is tool_calls; some servers and quantizations
		// detokenize the fullwidth '｜' as ASCII '|'.
		AlsoSpelled: []Spelling{{From: "function_calls", To: "tool_calls"}, {From: "｜", To: "|"}},
		Skip:        []string{"<｜end▁of▁sentence｜>"},
		opens:       dsmlSections})
	_ = register(Spec{Format: FormatStep3, Models: []string{"StepFun Step-3"}, Example: `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`,
		Section: &Markers{Start: "<｜tool_calls_begin｜>", End: "<｜tool_calls_end｜>"},
		// The invoke tag after a type and <｜tool_sep｜> (and, some
		// write, the name again on a line), or right after the token.
		Call: CallMarkers{Start: "<｜tool_call_begin｜>", NameStart: "<steptml:invoke name=", Attribute: true, End: "</steptml:invoke>"}, Body: BodyParams,
		Param:         &ParamMarkers{Start: "<steptml:parameter name=", Attribute: true, End: "</steptml:parameter>"},
		JSONArguments: true,
		Skip:          []string{"<｜tool_call_end｜>", "<｜tool_sep｜>"}})
)
