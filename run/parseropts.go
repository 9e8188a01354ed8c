package run

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/parse/chattemplate"
	"github.com/toolcall/toolcall/tools"
)

// ParserOptions is how parse reads model output meant for the tools of
// set: base, with the schemas' parameter types (so that a Qwen3-Coder or
// GLM value "007" stays a string where the schema asks for one) and the
// tools' names (so that a bare call to one counts wherever it starts).
// set may be nil: no tools.
//
// It is the one place both `toolcall parse --tools` and run's loop get
// their parser from, so that the two read the same text the same way;
// once each built its own and run left out the parameter types.
func ParserOptions(set tools.ToolSet, base parse.Options) parse.Options {
	if set == nil {
		return base
	}
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
	return base
}

// StreamFunc parses one input into events, as parse.Stream does.
type StreamFunc func(ctx context.Context, r io.Reader, w io.Writer, opts parse.Options) (parse.Stats, error)

// TemplateParser is how parse reads the output of the model whose chat
// template is at path: base with the call syntax derived from the
// template, and the StreamFunc that writes auto-detection's events where
// that syntax reads no call and detection reads one.
//
// It is never worse than no template: when the template cannot be
// rendered or its calls cannot be derived, it returns base and stream
// nil, with the reason in fallback, and parse looks for every syntax.
// With strict, that reason is the error instead. A template that would
// read files (chattemplate.ErrNoFiles) is always an error: it is refused,
// not worked around.
func TemplateParser(path string, strict bool, base parse.Options) (opts parse.Options, stream StreamFunc, fallback, err error) {
	t, err := chattemplate.Load(path)
	if err != nil {
		return base, nil, nil, err
	}
	d, err := t.Derive()
	switch {
	case err == nil:
	case strict || errors.Is(err, chattemplate.ErrNoFiles):
		return base, nil, nil, err
	default:
		return base, nil, fmt.Errorf("%w; looking for every syntax instead (--template-strict makes this an error)", err), nil
	}
	stream = func(ctx context.Context, r io.Reader, w io.Writer, opts parse.Options) (parse.Stats, error) {
		auto := opts
		auto.Format, auto.Syntax = "", nil
		return chattemplate.Stream(ctx, r, w, opts, auto)
	}
	return d.Options(base), stream, nil, nil
}
