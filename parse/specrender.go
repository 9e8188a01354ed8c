package parse

import (
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
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
			b = append(b, `{"`...)
			b = append(b, s.nameKeys()[0]...)
			b = append(b, `": `...)
			b = strconv.AppendQuote(b, c.Name)
			b = append(b, `, "`...)
			b = append(b, s.argumentsKeys()[0]...)
			b = append(b, `": `...)
			b = append(b, args.Raw...)
			b = append(b, '}')
		case BodyNameJSON:
			b = append(b, s.Call.NamePrefix...)
			b = append(b, c.Name...)
			if s.Call.IndexSep != "" {
				// The id's index: the call's place among these.
				b = append(b, s.Call.IndexSep...)
				b = strconv.AppendInt(b, int64(k), 10)
			}
			b = append(b, s.Call.NameEnd...)
			b = append(b, args.Raw...)
		case BodyBrace:
			b = append(b, c.Name...)
			b = s.appendBrace(b, args)
		case BodyPythonic:
			if s.Fenced {
				b = append(b, "```python\n"...)
			} else {
				b = append(b, '[')
			}
			b = append(b, c.Name...)
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
			if s.Fenced {
				b = append(b, ")\n```"...)
			} else {
				b = append(b, ")]"...)
			}
		case BodyParams, BodyKV:
			b = append(b, c.Name...)
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
				keyEnd := s.Param.KeyEnd
				if keyEnd == "" {
					keyEnd = ">"
				}
				b = append(b, s.Param.Start...)
				b = append(b, k.Str...)
				b = append(b, keyEnd...)
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
	if s.Section != nil {
		b = append(b, s.Section.End...)
	}
	return b, nil
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
// its spec does not say how.
func (s *Spec) AppendResult(b []byte, result string) ([]byte, error) {
	if s.Result == nil {
		return b, fmt.Errorf("format %q does not say how a tool's result is written back: its spec has no result markers", s.Format)
	}
	b = append(b, s.Result.Start...)
	b = append(b, result...)
	return append(b, s.Result.End...), nil
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
