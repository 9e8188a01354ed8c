package chattemplate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/toolcall/toolcall/internal/jinja"
)

// A request's objects keep their key order in Python's Jinja (a dict
// keeps its insertion order), and templates print them: tools | tojson,
// a schema's properties in a loop. A Go map has no order, so values that
// come as JSON are decoded to the engine's ordered dict instead, and a
// message is built in the order a client writes one.

// dict builds an ordered dict of key, value pairs.
func dict(kv ...any) jinja.Value {
	d := jinja.NewDict()
	for i := 0; i+1 < len(kv); i += 2 {
		d.AsDict().Set(kv[i].(string), toValue(kv[i+1]))
	}
	return d
}

// toValue returns v for the engine: json.RawMessage decoded with its
// objects' keys in order, a Go map with its keys sorted, anything else as
// the JSON it would marshal to. JSON that does not decode (or nests past
// maxJSONDepth) is given as its text, which templates take for arguments
// too, rather than fail every later render.
func toValue(v any) jinja.Value {
	switch x := v.(type) {
	case jinja.Value:
		return x
	case nil:
		return jinja.None()
	case string:
		return jinja.NewString(x)
	case bool:
		return jinja.NewBool(x)
	case int:
		return jinja.NewInt(int64(x))
	case int64:
		return jinja.NewInt(x)
	case float64:
		return jinja.NewFloat(x)
	case json.RawMessage:
		return decodeJSON(x)
	case []any:
		items := make([]jinja.Value, len(x))
		for i, el := range x {
			items[i] = toValue(el)
		}
		return jinja.NewList(items)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := jinja.NewDict()
		for _, k := range keys {
			d.AsDict().Set(k, toValue(x[k]))
		}
		return d
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return jinja.NewString(fmt.Sprint(v))
	}
	return decodeJSON(raw)
}

// decodeJSON decodes raw with its objects' keys in order; JSON that does
// not decode, or holds more than one value, is its text.
func decodeJSON(raw []byte) jinja.Value {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	out, err := decodeOrdered(d, 0)
	if err != nil {
		return jinja.NewString(string(raw))
	}
	if _, err := d.Token(); err != io.EOF {
		return jinja.NewString(string(raw)) // more than one value
	}
	return out
}

// maxJSONDepth bounds the nesting decodeOrdered follows.
const maxJSONDepth = 200

func decodeOrdered(d *json.Decoder, depth int) (jinja.Value, error) {
	if depth > maxJSONDepth {
		return jinja.Value{}, fmt.Errorf("nested more than %d deep", maxJSONDepth)
	}
	tok, err := d.Token()
	if err != nil {
		return jinja.Value{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out := jinja.NewDict()
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return jinja.Value{}, err
				}
				v, err := decodeOrdered(d, depth+1)
				if err != nil {
					return jinja.Value{}, err
				}
				out.AsDict().Set(k.(string), v)
			}
			_, err := d.Token()
			return out, err
		case '[':
			items := []jinja.Value{}
			for d.More() {
				v, err := decodeOrdered(d, depth+1)
				if err != nil {
					return jinja.Value{}, err
				}
				items = append(items, v)
			}
			_, err := d.Token()
			return jinja.NewList(items), err
		}
		return jinja.Value{}, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if !strings.ContainsAny(t.String(), ".eE") {
			if n, err := t.Int64(); err == nil {
				return jinja.NewInt(n), nil
			}
		}
		f, err := t.Float64()
		return jinja.NewFloat(f), err
	case string:
		return jinja.NewString(t), nil
	case bool:
		return jinja.NewBool(t), nil
	}
	return jinja.None(), nil
}
