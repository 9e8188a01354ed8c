package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/editdist"
)

// foreignKeys are keys other dialects put in a tool definition that
// toolcall has no use for, and that a definition dropped in as it is may
// well hold: they are not stray.
var foreignKeys = []string{
	"cache_control",  // Anthropic
	"defer_loading",  // Anthropic's tool search
	"input_examples", // Anthropic
	"response",       // Gemini's function declarations
}

// foreignKey reports whether a key that is not one of sidecarKeys belongs
// to some other dialect or is an extension by its name ("x-...", "_meta",
// "$comment"), and so is passed over without a word.
func foreignKey(k string) bool {
	return slices.Contains(foreignKeys, k) || slices.Contains(mcpPassThrough, k) ||
		strings.HasPrefix(k, "x-") || strings.HasPrefix(k, "x_") ||
		strings.HasPrefix(k, "_") || strings.HasPrefix(k, "$")
}

// strayKeys lists the keys of a sidecar that mean nothing where they
// stand, and so change nothing: a key no dialect has (a typo, with the
// key meant), one beside OpenAI's "function" that the definition inside
// overrides, or one inside "function" that is read only beside it. An
// author who wrote them meant something, so each is said (Tool.StrayKeys).
func (p *sidecarParser) strayKeys(root gjson.Result, s *sidecar) {
	keys := sidecarKeyIndex()
	fn := s.function.Exists()
	root.ForEach(func(k, _ gjson.Result) bool {
		name := k.Str
		sk, known := keys[name]
		switch {
		case !known:
			if !foreignKey(name) {
				p.stray(name, "is not a sidecar key", "")
			}
		case fn && sk.inside == innerWins && s.function.Get(gjson.Escape(name)).Exists():
			p.stray(name, `is beside "function", whose own "`+name+`" is the one read`, `delete it, or move it into "function"`)
		case name == "properties" && len(s.schemaKeys) > 0:
			p.stray(name, "is beside the input schema, not in it", fmt.Sprintf("move it into %q", s.schemaKeys[0]))
		}
		return true
	})
	if !fn {
		return
	}
	s.function.ForEach(func(k, _ gjson.Result) bool {
		name := k.Str
		sk, known := keys[name]
		switch {
		case !known:
			if !foreignKey(name) {
				p.stray("function."+name, `is not a key of OpenAI's "function"`, "")
			}
		case sk.inside == notInside && name == "properties":
			p.stray("function."+name, `is not read inside "function": the schema of the arguments is "function.parameters"`, `move it into "parameters"`)
		case sk.inside == notInside && name != "type":
			// "type" inside is harmless: some exports repeat "function".
			p.stray("function."+name, `is not read inside "function"`, "")
		}
		return true
	})
}

// stray notes one stray key: why it is ignored and, for an unknown key,
// the key probably meant.
func (p *sidecarParser) stray(key, why, fix string) {
	msg := fmt.Sprintf("%q %s, so it is ignored", key, why)
	if fix == "" {
		base := key[strings.LastIndexByte(key, '.')+1:]
		if s := editdist.Suggest(base, sidecarKeyNames()); len(s) > 0 {
			fix = fmt.Sprintf("did you mean %q?", s[0])
		} else {
			fix = "delete it, or see docs/tools.md for the keys of a sidecar"
		}
	}
	p.t.StrayKeys = append(p.t.StrayKeys, msg+"; "+fix)
}

// sidecarKeyNames are the keys a sidecar may hold, for suggestions.
func sidecarKeyNames() []string {
	names := make([]string, 0, len(sidecarKeys)+1)
	for _, k := range sidecarKeys {
		names = append(names, k.key)
	}
	return append(names, "mcp_server")
}
