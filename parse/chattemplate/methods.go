package chattemplate

import (
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// strMethodNames are the str methods gonja v2.9.1 defines; the set is
// copied so that a few can be replaced without touching gonja's own.
var strMethodNames = []string{"capitalize", "capwords", "casefold", "center", "count", "encode", "endswith",
	"expandtabs", "find", "format", "format_map", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit",
	"islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip",
	"partition", "removeprefix", "removesuffix", "replace", "rfind", "rjust", "rpartition", "rsplit", "rstrip",
	"split", "splitlines", "startswith", "strip", "swapcase", "title", "upper", "zfill"}

// dictMethodNames are the dict methods gonja v2.9.1 defines.
var dictMethodNames = []string{"sort", "keys", "values", "items", "get", "pop", "setdefault", "update", "copy", "clear"}

// orderedDict is the engine's ordered dict behind v, if v holds one.
func orderedDict(v *exec.Value) (*exec.Dict, bool) {
	if v == nil {
		return nil, false
	}
	switch d := v.Interface().(type) {
	case *exec.Dict:
		return d, true
	case exec.Dict:
		return &d, true
	}
	return nil, false
}

// methods returns gonja's methods with Python's semantics restored where
// chat templates meet gonja's bugs: "".endswith(x) is true there, and
// strip() without arguments fails.
func methods() exec.Methods {
	m := builtins.Methods
	str := map[string]exec.Method[string]{}
	for _, name := range strMethodNames {
		if f, ok := m.Str.Get(name); ok {
			str[name] = f
		}
	}
	affix := func(has func(s, affix string) bool) exec.Method[string] {
		return func(self string, _ *exec.Value, args *exec.VarArgs) (any, error) {
			if len(args.Args) != 1 {
				return nil, fmt.Errorf("takes one argument, a string or a tuple of strings")
			}
			a := args.Args[0]
			if a.IsString() {
				return has(self, a.String()), nil
			}
			if a.IsList() {
				for i := 0; i < a.Len(); i++ {
					if has(self, a.Index(i).String()) {
						return true, nil
					}
				}
				return false, nil
			}
			return nil, fmt.Errorf("takes a string or a tuple of strings, not %s", a.String())
		}
	}
	str["endswith"] = affix(strings.HasSuffix)
	str["startswith"] = affix(strings.HasPrefix)
	strip := func(trim func(s, cutset string) string) exec.Method[string] {
		return func(self string, _ *exec.Value, args *exec.VarArgs) (any, error) {
			cut := " \t\n\r\v\f"
			if len(args.Args) > 0 && !args.Args[0].IsNil() {
				cut = args.Args[0].String()
			}
			return trim(self, cut), nil
		}
	}
	str["strip"] = strip(strings.Trim)
	str["lstrip"] = strip(strings.TrimLeft)
	str["rstrip"] = strip(strings.TrimRight)
	for name, est := range boundedMethods {
		if f, ok := str[name]; ok {
			str[name] = boundMethod(f, est)
		}
	}
	m.Str = exec.NewMethodSet(str)
	// keys(), values() and items() of a dict that keeps its order (a
	// request's object, a dict literal) in that order; gonja's sort them.
	dict := map[string]exec.Method[map[string]any]{}
	for _, name := range dictMethodNames {
		if f, ok := m.Dict.Get(name); ok {
			dict[name] = f
		}
	}
	for name, pick := range map[string]func(p *exec.Pair) any{
		"keys":   func(p *exec.Pair) any { return p.Key.Interface() },
		"values": func(p *exec.Pair) any { return p.Value.Interface() },
		"items":  func(p *exec.Pair) any { return []any{p.Key.Interface(), p.Value.Interface()} },
	} {
		sorted := dict[name]
		dict[name] = func(self map[string]any, v *exec.Value, args *exec.VarArgs) (any, error) {
			d, ok := orderedDict(v)
			if !ok || len(args.Args) > 0 || len(args.KwArgs) > 0 {
				return sorted(self, v, args)
			}
			out := make([]any, len(d.Pairs))
			for i, p := range d.Pairs {
				out[i] = pick(p)
			}
			return out, nil
		}
	}
	// get() from such a dict gives its own value, nested order kept.
	get := dict["get"]
	dict["get"] = func(self map[string]any, v *exec.Value, args *exec.VarArgs) (any, error) {
		d, ok := orderedDict(v)
		if !ok || len(args.Args) < 1 || len(args.Args) > 2 {
			return get(self, v, args)
		}
		for _, p := range d.Pairs {
			if p.Key.String() == args.Args[0].String() {
				return p.Value.Interface(), nil
			}
		}
		if len(args.Args) == 2 {
			return args.Args[1].Interface(), nil
		}
		return nil, nil
	}
	m.Dict = exec.NewMethodSet(dict)
	return m
}
