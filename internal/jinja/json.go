package jinja

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// maxJSONDepth bounds how deep tojson follows a value.
const maxJSONDepth = 400

// fToJSON is tojson as transformers defines it: Python's json.dumps with
// ensure_ascii=False, its indent, separators and sort_keys, no HTML
// escaping; the keys in their order unless sort_keys. One difference: a
// generator is written as a list (see write).
func fToJSON(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	j := jsonWriter{r: r, item: ", ", key: ": "}
	if v := arg(args, kw, 0, "indent", None()); v.k != KindNone && v.k != KindUndefined {
		switch {
		case isIntLike(v):
			if err := r.sized(int(v.int())); err != nil {
				return Value{}, err
			}
			j.indent = strings.Repeat(" ", max(int(v.int()), 0))
		case v.k == KindString:
			j.indent = v.str()
		default:
			return Value{}, typeErrorf("indent must be an int or a str, not %s", typeName(v))
		}
		j.item, j.pretty = ",", true
	}
	if v, ok := kw["separators"]; ok && v.k == KindList {
		if items := v.AsList().Items; len(items) == 2 {
			j.item, j.key = Print(items[0]), Print(items[1])
		}
	}
	if v, ok := kw["sort_keys"]; ok {
		j.sort = v.IsTruthy()
	}
	if err := j.write(in, 0); err != nil {
		return Value{}, err
	}
	return NewString(j.b.String()), nil
}

type jsonWriter struct {
	r            *renderer
	b            strings.Builder
	item, key    string
	indent       string
	pretty, sort bool
}

func (j *jsonWriter) newline(depth int) {
	if j.pretty {
		j.b.WriteByte('\n')
		for range depth {
			j.b.WriteString(j.indent)
		}
	}
}

func (j *jsonWriter) write(v Value, depth int) error {
	if depth > maxJSONDepth {
		return valueErrorf("Circular reference detected")
	}
	if j.r != nil && j.r.o.String > 0 && j.b.Len() > j.r.o.String {
		return &LimitError{Bound: BoundString, Max: j.r.o.String}
	}
	switch v.k {
	case KindNone:
		j.b.WriteString("null")
	case KindBool:
		if v.int() != 0 {
			j.b.WriteString("true")
		} else {
			j.b.WriteString("false")
		}
	case KindInt:
		j.b.WriteString(strconv.FormatInt(v.int(), 10))
	case KindFloat:
		switch {
		case math.IsNaN(v.flt()):
			j.b.WriteString("NaN")
		case math.IsInf(v.flt(), 1):
			j.b.WriteString("Infinity")
		case math.IsInf(v.flt(), -1):
			j.b.WriteString("-Infinity")
		default:
			j.b.WriteString(formatFloat(v.flt()))
		}
	case KindString:
		writeJSONString(&j.b, v.str())
	case KindList:
		// Python's json.dumps refuses a generator (tools | map(...) |
		// tojson); it is written as the list it yields, as llama.cpp's
		// engine writes it, so that such a template renders its tools.
		if v.fl&flagRange != 0 {
			return typeErrorf("Object of type range is not JSON serializable")
		}
		items := v.AsList().Items
		if len(items) == 0 {
			j.b.WriteString("[]")
			return nil
		}
		j.b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				j.b.WriteString(j.item)
			}
			j.newline(depth + 1)
			if err := j.write(it, depth+1); err != nil {
				return err
			}
		}
		j.newline(depth)
		j.b.WriteByte(']')
	case KindDict:
		d := v.AsDict()
		if len(d.Keys) == 0 {
			j.b.WriteString("{}")
			return nil
		}
		keys := d.Keys
		if j.sort {
			keys = d.OrderedKeys()
			sort.Strings(keys)
		}
		j.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				j.b.WriteString(j.item)
			}
			j.newline(depth + 1)
			switch kv := d.keyOf(k); kv.k {
			case KindString:
				writeJSONString(&j.b, k)
			case KindNone:
				j.b.WriteString(`"null"`)
			case KindBool, KindInt, KindFloat:
				j.b.WriteString(`"` + jsonScalar(kv) + `"`)
			default:
				return typeErrorf("keys must be str, int, float, bool or None, not %s", typeName(kv))
			}
			j.b.WriteString(j.key)
			if err := j.write(d.Data[k], depth+1); err != nil {
				return err
			}
		}
		j.newline(depth)
		j.b.WriteByte('}')
	default:
		return typeErrorf("Object of type %s is not JSON serializable", typeName(v))
	}
	return nil
}

// jsonScalar is a number or bool as json.dumps writes it.
func jsonScalar(v Value) string {
	var j jsonWriter
	_ = j.write(v, 0)
	return j.b.String()
}

// writeJSONString writes s as json.dumps does with ensure_ascii=False.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		start = i + 1
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteString(`\u00` + hex2(int(c)))
		}
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
