package parse

// Meta's families: Llama 3 and 4 JSON, pythonic lists, the built-in
// tools' python_tag, CWM.

// llama3Result is how Meta's Llama 3.1 template writes a tool's result
// back: a turn of role ipython, the text passed through tojson (a string
// is iterable to Jinja, so it is quoted).
var llama3Result = &ResultMarkers{Start: "<|start_header_id|>ipython<|end_header_id|>\n\n", End: "<|eot_id|>", JSON: true}

var (
	// The two share <|python_tag|>, tried in id order: a call NAME(…)
	// after it is a built-in tool's, JSON a call of llama3_json's. A
	// JSON call with no marker, where a line starts, is read by the
	// generic bare JSON reader (bareJSON), which names it llama3_json.
	_ = register(Spec{Format: FormatLlama3Builtin, Models: []string{"Llama 3.1 built-in tools (brave_search, wolfram_alpha)"}, Example: `<|python_tag|>brave_search.call(query="x")`,
		Result: llama3Result,
		Call:   CallMarkers{Start: "<|python_tag|>", NoEnd: true, NameSuffix: ".call"}, Body: BodyPythonic})
	_ = register(Spec{Format: FormatLlama3JSON, Models: []string{"Llama 3.1/3.2/3.3, Llama 4 (JSON template)"}, Example: `<|python_tag|>{"name":"f","parameters":{"a":1}}`,
		Result: llama3Result,
		Call:   CallMarkers{Start: "<|python_tag|>", NoEnd: true}, Body: BodyJSON})
	_ = register(Spec{Format: FormatPythonic, Models: []string{"Llama 3.2 pythonic, Llama 4, ToolACE, Gemma 3 when prompted"}, Example: `[f(a=1, b='x')]`,
		Code: "a bare Python list on a line of its own (bracket); Llama 4's <|python_start|> block holds content or calls (llama4Block)",
		own: []marker{
			{"<|python_end|>", lateCloser, []string{FormatPythonic, FormatLlama3JSON}},
			// Llama 4's own template writes the content between these and
			// the JSON calls after them: a block that holds no call is
			// layout, its text prose.
			{"<|python_start|>", llama4Block, []string{FormatPythonic, FormatLlama3JSON}},
			{"<|python_end|>", skip, []string{FormatPythonic, FormatLlama3JSON}},
		}})
	_ = register(Spec{Format: FormatCWM, Models: []string{"Meta CWM (Code World Model)"}, Example: "<tool: bash>\nbash ls -la\n</tool>",
		Code: "the first word of the block names the tool and the rest is JSON or a command's text (cwmCall)",
		own: []marker{
			{"<tool:", (*Parser).cwmCall, []string{FormatCWM}},
			closer("</tool>", FormatCWM),
		}})
)
