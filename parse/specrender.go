package parse

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// Writing a call back: a conversation sent to a completions endpoint
// holds the model's earlier calls, and a family's spec says how the model
// writes them, so the same markers write them back (run's callAs template
// function). What the family's reader reads is what is written.

// AppendCalls appends calls, each a name and a JSON object of arguments,
// as a model of the family s writes them: in one section when the family
// has one. A spec without a file form cannot write them.
func (s *Spec) AppendCalls(b []byte, calls ...SpecCall) ([]byte, error) {
	if !s.FileForm() {
		return b, fmt.Errorf("format %q is read by code of its own (%s): it has no spec to write calls with", s.Format, s.Code)
	}
	if s.Section != nil {
		b = append(b, s.Section.Start...)
	}
	for k, c := range calls {
		args := gjson.ParseBytes(c.Arguments)
		if len(c.Arguments) == 0 {
			args = gjson.Parse("{}")
		}
		if !args.IsObject() {
			return b, fmt.Errorf("call to %q: its arguments are not a JSON object", c.Name)
		}
		if s.Lines {
			// One block, a call object a line (MiniMax M1).
			if k == 0 {
				b = append(b, s.Call.Start...)
			}
			b = append(b, '\n')
			b = s.appendJSONCall(b, c.Name, args)
			continue
		}
		b = append(b, s.Call.Start...)
		b = append(b, s.Call.NameStart...)
		switch s.Body {
		case BodyJSON:
			if s.NameIsKey {
				b = append(b, '{')
				b = strconv.AppendQuote(b, c.Name)
				b = append(b, ": "...)
				b = append(b, args.Raw...)
				b = append(b, '}')
				break
			}
			if s.Call.Word {
				// functools[…]: the word, then a list.
				b = append(b, '[')
				b = s.appendJSONCall(b, c.Name, args)
				b = append(b, ']')
				break
			}
			b = s.appendJSONCall(b, c.Name, args)
		case BodyNameJSON:
			b = append(b, s.Call.NamePrefix...)
			b = append(b, c.Name...)
			if s.Call.IndexSep != "" {
				// The id's index: the call's place among these.
				b = append(b, s.Call.IndexSep...)
				b = strconv.AppendInt(b, int64(k), 10)
			}
			b = append(b, s.Call.NameEnd...)
			if s.Fenced {
				b = append(b, "```json\n"...)
				b = append(b, args.Raw...)
				b = append(b, "\n```"...)
				break
			}
			b = append(b, args.Raw...)
		case BodyBrace:
			b = append(b, c.Name...)
			b = s.appendBrace(b, args)
		case BodyPythonic:
			switch {
			case s.Fenced:
				b = append(b, "```python\n"...)
			case !s.Call.NoEnd:
				b = append(b, '[')
			}
			b = append(b, c.Name...)
			b = append(b, s.Call.NameSuffix...)
			b = append(b, '(')
			n := 0
			args.ForEach(func(k, v gjson.Result) bool {
				if n > 0 {
					b = append(b, ", "...)
				}
				n++
				b = append(b, k.Str...)
				b = append(b, '=')
				b = append(b, v.Raw...)
				return true
			})
			switch {
			case s.Fenced:
				b = append(b, ")\n```"...)
			case s.Call.NoEnd:
				b = append(b, ')') // one call, which ends there
			default:
				b = append(b, ")]"...)
			}
		case BodyParams, BodyKV:
			if s.Call.Attribute {
				b = append(b, '"')
				b = append(b, c.Name...)
				b = append(b, '"')
				b = append(b, orTagEnd(s.Call.TagEnd)...)
			} else {
				b = append(b, c.Name...)
			}
			b = append(b, s.Call.NameEnd...)
			args.ForEach(func(k, v gjson.Result) bool {
				val := v.Raw
				if v.Type == gjson.String {
					val = v.Str // bare text, as the reader takes it
				}
				if s.Body == BodyKV {
					b = append(b, s.Key.Start...)
					b = append(b, k.Str...)
					b = append(b, s.Key.End...)
					b = append(b, s.Value.Start...)
					b = append(b, val...)
					b = append(b, s.Value.End...)
					return true
				}
				b = append(b, s.Param.Start...)
				b = append(b, s.Param.key(k.Str)...)
				if s.Param.Wrapped {
					val = "\n" + val + "\n"
				}
				b = append(b, val...)
				b = append(b, s.Param.End...)
				return true
			})
		}
		b = append(b, s.Call.End...)
	}
	if s.Lines && len(calls) > 0 {
		b = append(b, '\n')
		b = append(b, s.Call.End...)
	}
	if s.Section != nil {
		b = append(b, s.Section.End...)
	}
	return b, nil
}

// appendJSONCall writes a json body's call object: the name and the
// arguments under the spec's first keys.
func (s *Spec) appendJSONCall(b []byte, name string, args gjson.Result) []byte {
	b = append(b, `{"`...)
	b = append(b, s.nameKeys()[0]...)
	b = append(b, `": `...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `, "`...)
	b = append(b, s.argumentsKeys()[0]...)
	b = append(b, `": `...)
	b = append(b, args.Raw...)
	return append(b, '}')
}

// ResultMarkers are what a family's chat template writes around each
// tool result: Start, the result, End. Where consecutive results share a
// turn (Qwen's <|im_start|>user, GLM's <|observation|>), what opens and
// closes that turn is not a result's, and a template file writes it;
// where each result is a turn of its own (Llama 3's ipython header), the
// turn is. White space the template lays out between turns is neither.
//
// Start and End may name the call the result answers: {name}, the tool's
// name, and {id}, the call's id, are replaced by the result's (gpt-oss
// writes functions.{name}, Kimi K2 "## Return of {id}").
type ResultMarkers struct {
	Start string `json:"start"`
	End   string `json:"end"`
	// JSON says the result is written as a JSON string, quoted and
	// escaped, as templates that pass it through tojson do (Llama 3's,
	// gpt-oss's).
	JSON bool `json:"json,omitempty"`
}

// The placeholders ResultMarkers may hold.
const (
	PlaceholderName = "{name}"
	PlaceholderID   = "{id}"
)

// check reports what is wrong with r, nil or not: neither marker, or a
// {word} in one that is not a placeholder.
func (r *ResultMarkers) check() error {
	if r == nil {
		return nil
	}
	if r.Start == "" && r.End == "" {
		return specErr("result", `has neither start nor end: give the text written before and after a tool's result, or drop "result"`)
	}
	for _, f := range []struct{ field, t string }{{"result.start", r.Start}, {"result.end", r.End}} {
		if w := unknownPlaceholder(f.t); w != "" {
			return specErr(f.field, "%q holds %s, which is not a placeholder: a result marker knows %s (the tool's name) and %s (the call's id) only", f.t, w, PlaceholderName, PlaceholderID)
		}
	}
	return nil
}

// unknownPlaceholder is the first {word} of lower-case letters and '_'
// in t that is neither placeholder, or "". A brace followed by anything
// else ({"content": …, {value:…) is the template's own text.
func unknownPlaceholder(t string) string {
	for i := 0; i < len(t); i++ {
		if t[i] != '{' {
			continue
		}
		j := i + 1
		for j < len(t) && (t[j] >= 'a' && t[j] <= 'z' || t[j] == '_') {
			j++
		}
		if j > i+1 && j < len(t) && t[j] == '}' {
			if w := t[i : j+1]; w != PlaceholderName && w != PlaceholderID {
				return w
			}
		}
	}
	return ""
}

// needs reports whether r's markers name placeholder p.
func (r *ResultMarkers) needs(p string) bool {
	return strings.Contains(r.Start, p) || strings.Contains(r.End, p)
}

// SpecResult is a tool's result to write back with AppendResult: its
// text, and the call it answers.
type SpecResult struct {
	Content string
	Name    string // the tool's name
	ID      string // the call's id
}

// appendBrace writes a brace body's value: object keys bare, strings
// between the spec's StringQuote, the rest as JSON.
func (s *Spec) appendBrace(b []byte, v gjson.Result) []byte {
	switch {
	case v.Type == gjson.String:
		b = append(b, s.StringQuote...)
		b = append(b, v.Str...)
		return append(b, s.StringQuote...)
	case v.IsObject(), v.IsArray():
		open, close := byte('['), byte(']')
		if v.IsObject() {
			open, close = '{', '}'
		}
		b = append(b, open)
		n := 0
		v.ForEach(func(k, e gjson.Result) bool {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			if v.IsObject() {
				b = append(b, k.Str...)
				b = append(b, ':')
			}
			b = s.appendBrace(b, e)
			return true
		})
		return append(b, close)
	}
	return append(b, v.Raw...)
}

// AppendResult appends a tool's result as the family s writes it back
// into the conversation (its spec's result markers), or an error when
// its spec does not say how, or its markers name the call and r does
// not.
func (s *Spec) AppendResult(b []byte, r SpecResult) ([]byte, error) {
	m := s.Result
	if m == nil {
		return b, fmt.Errorf("format %q does not say how a tool's result is written back: its spec has no result markers", s.Format)
	}
	for _, p := range []struct{ ph, val, what string }{{PlaceholderName, r.Name, "tool's name"}, {PlaceholderID, r.ID, "call's id"}} {
		if p.val == "" && m.needs(p.ph) {
			return b, fmt.Errorf("format %q writes the %s with each result (%s in its result markers), and none was given", s.Format, p.what, p.ph)
		}
	}
	fill := func(b []byte, t string) []byte {
		for {
			i := strings.IndexByte(t, '{')
			if i < 0 {
				return append(b, t...)
			}
			b = append(b, t[:i]...)
			t = t[i:]
			switch {
			case strings.HasPrefix(t, PlaceholderName):
				b, t = append(b, r.Name...), t[len(PlaceholderName):]
			case strings.HasPrefix(t, PlaceholderID):
				b, t = append(b, r.ID...), t[len(PlaceholderID):]
			default:
				b, t = append(b, '{'), t[1:]
			}
		}
	}
	b = fill(b, m.Start)
	if m.JSON {
		b = jsonw.AppendString(b, r.Content)
	} else {
		b = append(b, r.Content...)
	}
	return fill(b, m.End), nil
}

// SpecCall is a call to write back with AppendCalls.
type SpecCall struct {
	Name      string
	Arguments []byte // a JSON object
}

// BuiltinSpec returns the spec of the built-in family id, or nil.
func BuiltinSpec(id string) *Spec {
	for _, s := range Specs() {
		if s.Format == id {
			return s
		}
	}
	return nil
}
