package chattemplate

import (
	"github.com/toolcall/toolcall/internal/jinja"
)

// printed is the text {{ v }} writes.
func printed(v jinja.Value) string { return jinja.Print(v) }

type args = []jinja.Value
type kwargs = map[string]jinja.Value

// filterToJSON is the engine's tojson, as transformers defines it, for
// values toolcall writes itself (the tools given as functions).
func filterToJSON(a args, kw kwargs) (jinja.Value, error) {
	f, _ := jinja.Filter("tojson")
	return f.AsCallable().Fn(a, kw)
}
