package ollamabench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/parsers"
	"github.com/ollama/ollama/tools"
	"github.com/toolcall/toolcall/parse"
)

// A reading is what a side made of one response: its calls, as the name
// and the arguments in compact JSON with sorted keys, and its text and
// reasoning without white space: Ollama trims it around markers, and
// joins what is left, where toolcall keeps it.
type reading struct {
	calls    []string
	text     string
	thinking string
}

func (r *reading) addCall(name string, args any) error {
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	var v any // decoded again so that keys sort the same on both sides
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	b, err = json.Marshal(v)
	if err != nil {
		return err
	}
	r.calls = append(r.calls, name+" "+string(b))
	return nil
}

func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func ollamaTools() []api.Tool {
	var ts []api.Tool
	if err := json.Unmarshal([]byte(toolsJSON), &ts); err != nil {
		panic(err)
	}
	return ts
}

// toolcallOptions gives parse what run gives it from --tools: each
// parameter's schema type, and which names are tools.
func toolcallOptions() parse.Options {
	var ts []struct {
		Function struct {
			Name       string
			Parameters struct {
				Properties map[string]struct{ Type string }
			}
		}
	}
	if err := json.Unmarshal([]byte(toolsJSON), &ts); err != nil {
		panic(err)
	}
	types := map[string]map[string]string{}
	for _, t := range ts {
		m := map[string]string{}
		for k, p := range t.Function.Parameters.Properties {
			m[k] = p.Type
		}
		types[t.Function.Name] = m
	}
	return parse.Options{
		ParamType: func(tool, param string) string { return types[tool][param] },
		KnownTool: func(name string) bool { _, ok := types[name]; return ok },
	}
}

// ollamaParser is one of Ollama's parsers behind one Add, as the server
// drives it (server/routes.go: a builtin parser's Add(content, done), or
// tools.Parser's Add(content) where a model has none).
type ollamaParser func(s string, done bool) (content, thinking string, calls []api.ToolCall, err error)

func newOllama(name string, ts []api.Tool) ollamaParser {
	if name == "tools" {
		p := tools.NewParserWithTag(ts, "<tool_call>")
		return func(s string, done bool) (string, string, []api.ToolCall, error) {
			calls, content := p.Add(s)
			return content, "", calls, nil
		}
	}
	p := parsers.ParserForName(name)
	if p == nil {
		panic("ollama has no parser " + name)
	}
	p.Init(ts, nil, nil)
	return p.Add
}

// readOllama feeds the pieces of one response to a new Ollama parser.
func readOllama(name string, ts []api.Tool, pieces []string) (reading, error) {
	var r reading
	var text, thinking strings.Builder
	p := newOllama(name, ts)
	for i, s := range pieces {
		content, th, calls, err := p(s, i == len(pieces)-1)
		if err != nil {
			return r, err
		}
		text.WriteString(content)
		thinking.WriteString(th)
		for _, c := range calls {
			if err := r.addCall(c.Function.Name, c.Function.Arguments); err != nil {
				return r, err
			}
		}
	}
	r.text, r.thinking = squash(text.String()), squash(thinking.String())
	return r, nil
}

// readToolcall feeds the pieces of one response to a new parse.Parser.
func readToolcall(opts parse.Options, pieces []string) (reading, error) {
	var r reading
	var text, thinking strings.Builder
	var bad error
	p, err := parse.NewParser(opts, func(e *parse.Event) error {
		switch e.Type {
		case "text":
			text.Write(e.Content)
		case "reasoning":
			thinking.Write(e.Content)
		case "tool_call":
			if err := r.addCall(e.Call.Name, json.RawMessage(e.Call.Arguments)); err != nil {
				return err
			}
		default:
			bad = fmt.Errorf("%s event: %s %s", e.Type, e.Error, e.Raw)
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	for _, s := range pieces {
		if _, err := p.Write([]byte(s)); err != nil {
			return r, err
		}
	}
	if err := p.Close(); err != nil {
		return r, err
	}
	r.text, r.thinking = squash(text.String()), squash(thinking.String())
	return r, bad
}
