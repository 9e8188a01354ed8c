package parse

import "strings"

// Format describes one tool-call syntax that parse recognises.
type Format struct {
	// ID is the value of the "format" field on events, and what
	// --format accepts.
	ID string
	// Models lists the model families known to emit it.
	Models string
	// Example is a one-line sample of the syntax.
	Example string
}

// Format ids, as they appear in the "format" field of events.
const (
	FormatJSONL           = "jsonl"
	FormatHermes          = "hermes"
	FormatFunctionTag     = "function_tag"
	FormatLlama3JSON      = "llama3_json"
	FormatLlama3Builtin   = "llama3_builtin"
	FormatPythonic        = "pythonic"
	FormatOlmo3           = "olmo3"
	FormatLFM2            = "lfm2"
	FormatMistral         = "mistral"
	FormatMistralV11      = "mistral_v11"
	FormatFunctionary     = "functionary_v3_2"
	FormatFireFunction    = "firefunction_v2"
	FormatPhi4Mini        = "phi4_mini"
	FormatCommandR7B      = "command_r7b"
	FormatCommandRAction  = "command_r_action"
	FormatGranite         = "granite"
	FormatGranite20B      = "granite_20b_fc"
	FormatNemotron        = "nemotron"
	FormatApertus         = "apertus"
	FormatXLAM            = "xlam"
	FormatToolCallsArray  = "tool_calls_array"
	FormatMiniMaxM1       = "minimax_m1"
	FormatInternLM2       = "internlm2"
	FormatGigaChat3       = "gigachat3"
	FormatDeepSeekR1      = "deepseek_r1"
	FormatDeepSeekV31     = "deepseek_v3_1"
	FormatDeepSeekDSML    = "deepseek_v3_2_dsml"
	FormatKimiK2          = "kimi_k2"
	FormatGLM45           = "glm_4_5"
	FormatGLM47           = "glm_4_7"
	FormatHunyuan         = "hunyuan_hy"
	FormatPlamo3          = "plamo3"
	FormatCWM             = "cwm"
	FormatKimiK3          = "kimi_k3"
	FormatGlimmer         = "muse_glimmer"
	FormatMiniCPM3        = "minicpm3"
	FormatLongCat         = "longcat"
	FormatLaguna          = "laguna"
	FormatSolarOpen       = "solar_open"
	FormatSolarOpen2      = "solar_open2"
	FormatHyperCLOVAX     = "hyperclovax"
	FormatQwen3Coder      = "qwen3_coder"
	FormatSeedOSS         = "seed_oss"
	FormatMiniMaxM2       = "minimax_m2"
	FormatMiniMaxM3       = "minimax_m3"
	FormatMiniCPM5        = "minicpm5"
	FormatStep3           = "step3"
	FormatHarmony         = "gpt_oss_harmony"
	FormatFunctionGemma   = "functiongemma"
	FormatGemma4          = "gemma4"
	FormatLlamaCppGeneric = "llamacpp_generic"
	FormatOpenAIEnvelope  = "openai_envelope"
	FormatJSONFenced      = "json_fenced"
	FormatNative          = "native"
)

var formats = []Format{
	{FormatJSONL, "this project's protocol: any model prompted by toolcall's jsonl style", `{"type":"tool_call","name":"f","arguments":{"a":1}}`},
	{FormatHermes, "Hermes 2 Pro/3, Qwen2.5, QwQ, Qwen3, Xiaomi MiMo, ERNIE 4.5, LongCat, many fine-tunes", `<tool_call>{"name":"f","arguments":{"a":1}}</tool_call>`},
	{FormatFunctionTag, "Functionary v3.1 (Llama 3.1), Hermes variants", `<function=f>{"a":1}</function>`},
	{FormatLlama3JSON, "Llama 3.1/3.2/3.3, Llama 4 (JSON template)", `{"name":"f","parameters":{"a":1}}`},
	{FormatLlama3Builtin, "Llama 3.1 built-in tools (brave_search, wolfram_alpha)", `<|python_tag|>brave_search.call(query="x")`},
	{FormatPythonic, "Llama 3.2 pythonic, Llama 4, ToolACE, Gemma 3 when prompted", `[f(a=1, b='x')]`},
	{FormatOlmo3, "AllenAI Olmo 3", "<function_calls>\\nf(a=1)\\n</function_calls>"},
	{FormatLFM2, "LiquidAI LFM2, LFM2.5", `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`},
	{FormatMiniCPM3, "OpenBMB MiniCPM3", "<|tool_call_start|>```python\\nf(a=1)\\n```<|tool_call_end|>"},
	{FormatMistral, "Mistral 7B v0.3, Nemo, Mixtral, Ministral 8B 2410, Large 2407", `[TOOL_CALLS][{"name":"f","arguments":{}}]`},
	{FormatMistralV11, "Mistral Small 3.x, Magistral, Devstral, Ministral 3", `[TOOL_CALLS]f[ARGS]{"a":1}`},
	{FormatFunctionary, "MeetKai Functionary v3.2", ">>>f\\n{\"a\":1}"},
	{FormatFireFunction, "Fireworks FireFunction v2", ` functools[{"name":"f","arguments":{}}]`},
	{FormatPhi4Mini, "Phi-4-mini", `functools[{"name":"f","arguments":{}}]`},
	{FormatCommandR7B, "Cohere Command R7B, Command A", `<|START_ACTION|>[{"tool_call_id":"0","tool_name":"f","parameters":{}}]<|END_ACTION|>`},
	{FormatCommandRAction, "Cohere Command R, R+", "Action: ```json [{\"tool_name\":\"f\",\"parameters\":{}}] ```"},
	{FormatGranite, "IBM Granite 3.0, 3.1", `<|tool_call|>[{"name":"f","arguments":{}}]`},
	{FormatGranite20B, "IBM granite-20b-functioncalling", `<function_call> {"name":"f","arguments":{}}`},
	{FormatNemotron, "NVIDIA Nemotron Nano v2", `<TOOLCALL>[{"name":"f","arguments":{}}]</TOOLCALL>`},
	{FormatApertus, "Swiss AI Apertus", `<|tools_prefix|>[{"f":{"a":1}}]<|tools_suffix|>`},
	{FormatXLAM, "Salesforce xLAM 2", `[{"name":"f","arguments":{}}]`},
	{FormatToolCallsArray, "AI21 Jamba 1.5, Tencent Hunyuan A13B, ServiceNow Apriel 1.5", `<tool_calls>[{"name":"f","arguments":{}}]</tool_calls>`},
	{FormatMiniMaxM1, "MiniMax Text-01, M1", "<tool_calls>\\n{\"name\":\"f\",\"arguments\":{}}\\n</tool_calls>"},
	{FormatInternLM2, "InternLM2, InternLM2.5", `<|action_start|><|plugin|>{"name":"f","parameters":{}}<|action_end|>`},
	{FormatGigaChat3, "Sber GigaChat 3, 3.1", "function call<|role_sep|>\\n{\"name\":\"f\",\"arguments\":{}}"},
	{FormatDeepSeekR1, "DeepSeek R1, V3-0324, R1-0528", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{\"a\":1}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
	{FormatDeepSeekV31, "DeepSeek V3.1, Cogito", `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a":1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`},
	{FormatDeepSeekDSML, "DeepSeek V3.2, V4", `<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`},
	{FormatKimiK2, "Moonshot Kimi K2, K2 Thinking", `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a":1}<|tool_call_end|><|tool_calls_section_end|>`},
	{FormatKimiK3, "Moonshot Kimi K3 (XTML)", `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`},
	{FormatGLM45, "Zhipu GLM 4.5, 4.6", "<tool_call>f\\n<arg_key>a</arg_key>\\n<arg_value>1</arg_value>\\n</tool_call>"},
	{FormatGLM47, "Zhipu GLM 4.7", `<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>`},
	{FormatLongCat, "Meituan LongCat (XML arguments)", "<longcat_tool_call>f\\n<longcat_arg_key>a</longcat_arg_key>\\n<longcat_arg_value>1</longcat_arg_value>\\n</longcat_tool_call>"},
	{FormatHunyuan, "Tencent Hunyuan Hy3 (HY v3, v4)", "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>"},
	{FormatPlamo3, "Preferred Networks PLaMo 3", `<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{"a":1}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>`},
	{FormatCWM, "Meta CWM (Code World Model)", "<tool: bash>\nbash ls -la\n</tool>"},
	{FormatLaguna, "poolside Laguna (its other forms are glm_4_5 and hermes)", "<tool_call>f\\n{\"a\":1}</tool_call>"},
	{FormatSolarOpen, "Upstage Solar Open", `<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>f<|tool_call:args|>{"a":1}<|tool_call:end|><|calls|>`},
	{FormatSolarOpen2, "Upstage Solar Open 2", "<|tool_call:start|>f\\n<|tool_arg:start|>a<|tool_arg:value|>1<|tool_arg:end|>\\n<|tool_call:end|>"},
	{FormatHyperCLOVAX, "NAVER HyperCLOVA X SEED Think 14B (32B writes glm_4_5)", " -> tool/function_call\\n[{\"name\":\"f\",\"arguments\":{\"a\":1}}]"},
	{FormatQwen3Coder, "Qwen3-Coder, Qwen3.5, NVIDIA Nemotron 3 Nano", "<tool_call>\\n<function=f>\\n<parameter=a>\\n1\\n</parameter>\\n</function>\\n</tool_call>"},
	{FormatSeedOSS, "ByteDance Seed-OSS", "<seed:tool_call>\\n<function=f>\\n<parameter=a>1</parameter>\\n</function>\\n</seed:tool_call>"},
	{FormatMiniMaxM2, "MiniMax M2", `<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter></invoke></minimax:tool_call>`},
	{FormatMiniMaxM3, "MiniMax M3", `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>`},
	{FormatMiniCPM5, "OpenBMB MiniCPM 5", `<function name="f"><param name="a">1</param></function>`},
	{FormatStep3, "StepFun Step-3", `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`},
	{FormatHarmony, "OpenAI gpt-oss (harmony)", `<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":1}<|call|>`},
	{FormatGlimmer, "Muse Glimmer", `<|start|>assistant to=f<|message|><atem:function_calls><atem:invoke name="f"><atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls><|eom|>`},
	{FormatFunctionGemma, "Google FunctionGemma 270M", `<start_function_call>call:f{a:<escape>x<escape>}<end_function_call>`},
	{FormatGemma4, "Google Gemma 4", `<|tool_call>call:f{a:<|"|>x<|"|>,n:3}<tool_call|>`},
	{FormatLlamaCppGeneric, "any model under llama.cpp's generic (grammar-forced) handler", `{"tool_call":{"name":"f","arguments":{}}}`},
	{FormatOpenAIEnvelope, "fine-tunes imitating the OpenAI API, GLM 4.5 JSON drift", `{"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`},
	{FormatJSONFenced, "prompted models without native tokens (Qwen2.5-Coder, Gemma, small models)", "```json\\n{\"name\":\"f\",\"arguments\":{}}\\n```"},
	{FormatNative, "servers with function calling: tool_calls in an OpenAI or Ollama response", `{"choices":[{"message":{"tool_calls":[…]}}]}`},
}

// builtins are the built-in families, in the order of Formats.
var builtins = func() []*Spec {
	var ss []*Spec
	for _, f := range formats {
		ss = append(ss, &Spec{Format: f.ID, Models: []string{f.Models}, Example: f.Example, Source: "built-in", Code: "own"})
	}
	return ss
}()

// Formats lists every syntax parse recognises, in a fixed order.
func Formats() []Format {
	fs := make([]Format, len(builtins))
	for k, s := range builtins {
		fs[k] = Format{ID: s.Format, Models: strings.Join(s.Models, ", "), Example: s.Example}
	}
	return fs
}

// Specs returns the built-in families' specs, in the order of Formats.
func Specs() []*Spec {
	ss := make([]*Spec, len(builtins))
	for k, s := range builtins {
		c := *s
		ss[k] = &c
	}
	return ss
}

// knownFormat reports whether id names a built-in format.
func knownFormat(id string) bool {
	for _, s := range builtins {
		if s.Format == id {
			return true
		}
	}
	return false
}
