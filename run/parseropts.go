package run

import (
	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/parse/chattemplate"
	"github.com/toolcall/toolcall/tools"
)

// ParserOptions is how parse reads model output meant for the tools of
// set: base, with the schemas' parameter types (so that a Qwen3-Coder or
// GLM value "007" stays a string where the schema asks for one) and the
// tools' names (so that a bare call to one counts wherever it starts);
// and, when template names a model's own chat template, read the way
// that template writes calls. set may be nil: no tools.
//
// It is the one place both `toolcall parse --tools` and run's loop get
// their parser from, so that the two read the same text the same way;
// once each built its own and run left out the parameter types.
func ParserOptions(set tools.ToolSet, template string, base parse.Options) (parse.Options, error) {
	if set != nil {
		base.ParamType = func(tool, param string) string {
			t, ok := set.Lookup(tool)
			if !ok {
				return ""
			}
			return t.ParamType(param)
		}
		base.KnownTool = func(name string) bool {
			_, ok := set.Lookup(name)
			return ok
		}
	}
	if template == "" {
		return base, nil
	}
	return chattemplate.ParseOptions(template, base)
}
