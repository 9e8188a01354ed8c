package parse

import (
	"slices"
	"strings"
)

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

// builtins are the built-in families, by id: each family's file
// (families_*.go) registers it, and the dispatch table (dispatch.go) and
// the list of formats are built from them.
var builtins []*Spec

// register adds a built-in family. It runs as the package's variables
// are set, before dispatch.go's init builds the markers.
func register(s Spec) *Spec {
	s.Source = "built-in"
	if s.Code == "" && s.own != nil {
		panic("parse: family " + s.Format + " has code of its own: say why in Code")
	}
	if s.Section != nil && (s.own == nil || s.endsInSection) {
		// Its section's end ends a call in it that left its own end
		// marker out (closerWithin), in the order the families
		// register, as sectionEnd's are.
		for k, sp := range s.spellings() {
			if k == 0 || !slices.Contains(sectionEnds, sp.Section.End) {
				sectionEnds = append(sectionEnds, sp.Section.End)
			}
		}
		if s.TagSuffix != "" {
			sectionEnds = append(sectionEnds, s.suffixed().Section.End)
		}
	}
	if s.NameIsKey {
		nameIsKeyFormats[s.Format] = true
	}
	builtins = append(builtins, &s)
	return &s
}

// Formats lists every syntax parse recognises, by id.
func Formats() []Format {
	buildMarkers()
	fs := make([]Format, len(builtins))
	for k, s := range builtins {
		fs[k] = Format{ID: s.Format, Models: strings.Join(s.Models, ", "), Example: s.Example}
	}
	return fs
}

// Specs returns the built-in families' specs, in the order of Formats.
func Specs() []*Spec {
	buildMarkers()
	ss := make([]*Spec, len(builtins))
	for k, s := range builtins {
		c := *s
		c.own, c.opens, c.endsInSection, c.shared, c.try, c.specToo = nil, nil, false, false, 0, false
		ss[k] = &c
	}
	return ss
}

// knownFormat reports whether id names a built-in format.
func knownFormat(id string) bool {
	buildMarkers()
	for _, s := range builtins {
		if s.Format == id {
			return true
		}
	}
	return false
}
